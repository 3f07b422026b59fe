/** A ShMC's maintenance port requests (chassis/io/shmc-maint.ts) and its own database (chassis/io/shmc-store.ts). */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { answerMaint, listenMaint, maintRequest } from '../../../chassis/io/shmc-maint.ts';
import { ShmcStore } from '../../../chassis/io/shmc-store.ts';

const dir = mkdtempSync(join(tmpdir(), 'atcasim-shmc-io-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('maintenance requests', () => {
  const blocked: boolean[] = [];
  const h = { status: () => ({ role: 'standby.hot' }), blockHeartbeats: (on: boolean) => void blocked.push(on), passwordOk: (pw: string) => pw === 'secret' };

  it('answers status, checks the password of control operations, refuses garbage without throwing', () => {
    expect(answerMaint('{"op":"status"}', h)).toEqual({ role: 'standby.hot' });
    expect(answerMaint('{"op":"block-heartbeats","on":true,"password":"nope"}', h)).toMatchObject({ error: { code: 'denied' } });
    expect(blocked).toEqual([]);
    expect(answerMaint('{"op":"block-heartbeats","on":true,"password":"secret"}', h)).toEqual({ ok: true, heartbeats_blocked: true });
    expect(blocked).toEqual([true]);
    for (const bad of ['', 'garbage', '[]', '{"op":"reboot"}', '{"op":"block-heartbeats","on":"yes","password":"secret"}']) {
      expect(answerMaint(bad, h), bad).toMatchObject({ error: { code: 'bad_request' } });
    }
  });

  it('serves one JSON answer per request line over TCP', async () => {
    const srv = await listenMaint('127.0.0.1', 0, h);
    try {
      expect(await maintRequest('127.0.0.1', srv.port, { op: 'status' })).toEqual({ role: 'standby.hot' });
    } finally {
      await srv.close();
    }
    await expect(maintRequest('127.0.0.1', srv.port, { op: 'status' }, 500)).rejects.toThrow(/maintenance port/);
  });
});

describe('ShmcStore', () => {
  it('creates its database readable by its owner only (it mirrors the IPMI users and passwords)', () => {
    const file = join(dir, 'mode.db');
    const s = new ShmcStore(file);
    s.putState('user', '2', '{"name":"admin"}');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    s.close();
  });

  it('keeps SEL records, users/thresholds and the epoch across a reopen; refuses a foreign file', () => {
    const file = join(dir, 'a.db');
    const s = new ShmcStore(file);
    s.putSel(2, 'BB');
    s.putSel(1, 'AA');
    s.putSel(1, 'AB');
    s.putState('user', '2', '{"name":"admin"}');
    s.putState('thresholds', 'slot3#2', '{}');
    s.setEpoch(7);
    s.deleteSel(2);
    s.close();
    const r = new ShmcStore(file);
    expect(r.allSel()).toEqual([{ id: 1, data: 'AB' }]);
    expect(r.allState()).toEqual([{ kind: 'thresholds', key: 'slot3#2', data: '{}' }, { kind: 'user', key: '2', data: '{"name":"admin"}' }]);
    expect(r.epoch()).toBe(7);
    r.clearSel();
    expect(r.allSel()).toEqual([]);
    r.close();
    const foreign = join(dir, 'foreign.db');
    writeFileSync(foreign, 'not a database at all, just text');
    expect(() => new ShmcStore(foreign)).toThrow();
    const other = join(dir, 'other-app.db');
    const db = new Database(other);
    db.exec('CREATE TABLE t (x)');
    db.close();
    expect(() => new ShmcStore(other)).toThrow(/not a shelf-manager database/);
  });
});
