/**
 * The live path across a takeover (chassis/dataplane/live/live-path.ts, pure: fake links on a
 * SimClock, the live shelf's configuration): a `fullnat` connection's translation, carried in its
 * session's sync payload (chassis/runtime/session-payload.ts) and adopted by the buddy, makes the
 * buddy send the connection's next segment to the RS from the same local address and port; the
 * buddy announces the share's local addresses (gratuitous ARP) because their L2 owner changed; new
 * connections of the share never get the adopted port. Control: without the adopted binding the
 * buddy's segment leaves with another local endpoint — the test can fail.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ETHERTYPE_ARP } from '../../../../../board/packet/ether-frame.ts';
import type { SessionRecord } from '../../../../../board/processor/session-record.ts';
import { copySessionRecord } from '../../../../../board/processor/session-record.ts';
import { parseShelfConfig } from '../../../../../chassis/config/shelf-config.ts';
import { LiveDataPath, liveMac } from '../../../../../chassis/dataplane/live/live-path.ts';
import { encodePayload, payloadBinding } from '../../../../../chassis/runtime/session-payload.ts';
import { nullLogger } from '../../../../../board/common/logger.ts';
import { addr, frame } from '../../../../support/frames.ts';
import { makePlane } from '../fixture.ts';

const cfg = parseShelfConfig(readFileSync(new URL('../../../../../chassis/config/live-shelf.yaml', import.meta.url), 'utf8'), 'live-shelf.yaml');
const VIP = '198.18.100.12';
const RS_MAC = Uint8Array.of(0x02, 0x52, 0x53, 0, 0, 1);
const PAIR: Record<number, number> = { 3: 4, 4: 3, 5: 6, 6: 5 };

interface Rig {
  path: LiveDataPath;
  dp: ReturnType<typeof makePlane>['dp'];
  sent: Map<number, Uint8Array[]>;
  /** The buddy adopts the leaving board's synced bindings (the HA model's job), when set. */
  carry: boolean;
}

function rig(carry: boolean): Rig {
  const sent = new Map<number, Uint8Array[]>();
  const port = (slot: number) => ({ send: (f: Uint8Array, n: number) => void (sent.get(slot) ?? sent.set(slot, []).get(slot)!).push(Uint8Array.from(f.subarray(0, n))) });
  const front = new Map([1, 2].map((s) => [s, port(s)]));
  const back = new Map([3, 4, 5, 6].map((s) => [s, port(100 + s)]));
  const r = {} as Rig;
  r.carry = carry;
  const { dp, clock } = makePlane({
    buddyFailover: true,
    handover: (slot, board) => {
      // What the HA model does for an unplanned leave: the buddy holds the synced sessions and
      // adopts the translation each payload carries.
      const buddy = dp.board(PAIR[slot]!);
      const recs: SessionRecord[] = [];
      board.forEachSession((x) => recs.push(copySessionRecord(x)));
      for (const x of recs) {
        buddy.importSession('s', x, clock.now());
        const b = r.path.bindingOf(slot, x);
        const p = encodePayload(x, clock.now(), b);
        const t = payloadBinding(p);
        if (r.carry && t) r.path.adopt(PAIR[slot]!, x, t);
      }
      buddy.promote('s', clock.now());
      return recs.length;
    },
  }, cfg);
  r.dp = dp;
  r.sent = sent;
  r.path = new LiveDataPath({ config: cfg, dataPlane: dp, clock, log: nullLogger, front, back });
  r.path.start();
  for (const s of [3, 4, 5, 6]) for (const a of ['198.18.10.121', '198.18.10.122', '198.18.10.123']) r.path.backs.get(s)!.neighbours.learn(4, addr(a), RS_MAC, true, true, true);
  sent.clear();
  return r;
}

function seg(r: Rig, sport: number, flags: number): void {
  const f = frame({ src: '198.18.0.2', dst: VIP, proto: 6, sport, dport: 80, flags });
  f.set(liveMac('front', 1), 0);
  r.path.receiveFront(1, f);
}

/** The last TCP segment sent on a back link: [source address, source port, destination address]. */
function lastOut(r: Rig, slot: number): [string, number, string] | null {
  const fs = (r.sent.get(100 + slot) ?? []).filter((f) => f[12] === 0x08 && f[13] === 0x00 && f[23] === 6);
  const f = fs.at(-1);
  if (!f) return null;
  return [Array.from(f.subarray(26, 30)).join('.'), (f[34]! << 8) | f[35]!, Array.from(f.subarray(30, 34)).join('.')];
}

/** A client port whose connection goes to a fullnat RS (fnat1 or fnat2). */
function fullnatConn(r: Rig): { sport: number; slot: number; out: [string, number, string] } {
  for (let sport = 41000; sport < 41200; sport++) {
    seg(r, sport, 0x02);
    for (const slot of [3, 4, 5, 6]) {
      const o = lastOut(r, slot);
      if (o && o[0].startsWith('198.18.10.') && o[0] !== '198.18.0.2' && o[2] !== '198.18.10.123') {
        r.sent.clear();
        return { sport, slot, out: o };
      }
    }
    r.sent.clear();
  }
  throw new Error('no fullnat connection found');
}

describe('live path: a fullnat connection across a board failure', () => {
  it('the buddy translates it identically, announces the share\'s local addresses, and never reuses its port', () => {
    const r = rig(true);
    const c = fullnatConn(r);
    seg(r, c.sport, 0x10);
    expect(lastOut(r, c.slot)).toEqual(c.out);
    const buddy = PAIR[c.slot]!;
    r.sent.clear();
    r.dp.setInService(c.slot, false);
    // The buddy's back link announced the local addresses of the failed board's share.
    const arps = (r.sent.get(100 + buddy) ?? []).filter((f) => ((f[12]! << 8) | f[13]!) === ETHERTYPE_ARP);
    expect(arps.some((f) => Array.from(f.subarray(28, 32)).join('.') === c.out[0] && Array.from(f.subarray(6, 12)).join() === Array.from(liveMac('back', buddy)).join())).toBe(true);
    expect(r.path.localOwner(c.slot)).toBe(buddy);
    // One ARP owner for the local address: the buddy answers for it, the failed board no longer does.
    expect(r.path.backs.get(buddy)!.owns(4, addr(c.out[0]))).toBe(true);
    expect(r.path.backs.get(c.slot)!.owns(4, addr(c.out[0]))).toBe(false);
    seg(r, c.sport, 0x10);
    expect(lastOut(r, buddy)).toEqual(c.out);
    // New connections on the buddy (its own share and the adopted one): the adopted endpoint stays taken.
    const seen = new Set<string>();
    for (let sport = 42000; sport < 42300; sport++) {
      r.sent.clear();
      seg(r, sport, 0x02);
      const o = lastOut(r, buddy);
      if (o) seen.add(`${o[0]}:${o[1]}>${o[2]}`);
    }
    expect(seen.size).toBeGreaterThan(50);
    // Ports are per (local address, RS, protocol), as DPVS: the back-side 5-tuple is what must stay unique.
    expect(seen.has(`${c.out[0]}:${c.out[1]}>${c.out[2]}`)).toBe(false);
  });

  it('control: without the synced binding the buddy sends the segment from another local endpoint', () => {
    const r = rig(false);
    const c = fullnatConn(r);
    const buddy = PAIR[c.slot]!;
    r.dp.setInService(c.slot, false);
    r.sent.clear();
    seg(r, c.sport, 0x10);
    const o = lastOut(r, buddy);
    expect(o).not.toBeNull();
    expect(`${o![0]}:${o![1]}`).not.toBe(`${c.out[0]}:${c.out[1]}`);
  });
});
