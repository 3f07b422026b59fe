/**
 * Fuzz: 10^5 datagrams at the shelf's SNMP agent (`atcasim start --snmp-port`, the agent inside
 * the shelf process) — random bytes, bit flips, truncations, BER length edits and deep nesting of
 * real requests captured from snmpget, snmpbulkget and snmpget -v3 (the right community and user,
 * so the mutations reach net-snmp's request handlers), plus the crafted GET of docs/snmp.md (an OID
 * whose first sub-identifier takes two octets, `84 06`) that kills an unguarded net-snmp agent.
 * Afterwards the shelf process is alive, the guard reported what it caught, and real snmpwalk (v2c)
 * and snmpget (v3 authPriv) still get correct answers.
 */
import { createSocket } from 'node:dgram';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SeededRandom } from '../../board/common/random.ts';
import { readDefaultShelfYaml } from '../../chassis/io/data-dir.ts';
import { startHeadless, type HeadlessEmulator } from '../support/headless.ts';
import { captureRequests, haveSnmpTools, parseVars, snmp } from '../support/snmp.ts';

const COUNT = 100_000;
const COMMUNITY = 'fuzz-community';
const V3 = ['-v3', '-l', 'authPriv', '-u', 'ops', '-a', 'SHA', '-A', 'ops-auth-pass-1', '-x', 'AES', '-X', 'ops-priv-pass-1'];
const SKIP = !(await haveSnmpTools());
if (SKIP) console.log('SKIP test/fuzz/snmp-agent.test.ts: the Net-SNMP tools (Debian snmp) are not installed');

const dir = mkdtempSync(join(tmpdir(), 'atcasim-snmp-fuzz-'));
let emu: HeadlessEmulator | undefined;
let host = '';
let port = 0;

beforeAll(async () => {
  if (SKIP) return;
  const file = join(dir, 'shelf.yaml');
  writeFileSync(file, `${readDefaultShelfYaml()}snmp:\n  communities: [${COMMUNITY}]\n  users:\n    - { name: ops, auth: sha, auth_key: ops-auth-pass-1, priv: aes, priv_key: ops-priv-pass-1 }\n`);
  emu = await startHeadless({ dir, args: ['--config', file, '--snmp-port', '0'], statsInterval: '60s' });
  [host, port] = [String(emu.ready.snmp).split(':')[0]!, Number(String(emu.ready.snmp).split(':')[1])];
}, 90_000);

afterAll(async () => {
  await emu?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Real requests, captured from the tools (v2c get/getnext/getbulk with the right community, v3 discovery and request). */
async function seeds(): Promise<Buffer[]> {
  const v2 = ['-v2c', '-c', COMMUNITY];
  const got = [
    ...(await captureRequests('snmpget', v2, ['1.3.6.1.2.1.1.5.0', '1.3.6.1.2.1.99.1.1.1.4.103001'])),
    ...(await captureRequests('snmpgetnext', v2, ['1.3.6.1.2.1.47.1.1.1'])),
    ...(await captureRequests('snmpbulkget', [...v2, '-Cn1', '-Cr20'], ['1.3.6.1.2.1.1.1', '1.3.6.1.2.1.47'])),
    ...(await captureRequests('snmpget', ['-v1', '-c', COMMUNITY], ['1.3.6.1.2.1.1.3.0'])),
    ...(await captureRequests('snmpget', V3, ['1.3.6.1.2.1.1.5.0'])),
  ];
  expect(got.length).toBeGreaterThanOrEqual(5);
  return got;
}

/** The GET of docs/snmp.md: snmpget's request with the first OID octet `2b` (1.3) replaced by `84 06`. */
function crasher(get: Buffer): Buffer {
  const at = get.indexOf(Buffer.from([0x06, 0x08, 0x2b]));
  expect(at).toBeGreaterThan(0);
  // one octet longer: fix the three enclosing lengths (message, PDU, varbind list, varbind) and the OID's
  const b = Buffer.concat([get.subarray(0, at), Buffer.from([0x06, 0x09, 0x84, 0x06]), get.subarray(at + 3)]);
  for (const off of lengthOffsets(get, at)) b[off] = b[off]! + 1;
  return b;
}

/** Offsets of the one-octet lengths of the BER constructions that enclose offset `at`. */
function lengthOffsets(b: Buffer, at: number): number[] {
  const out: number[] = [];
  const walk = (start: number, end: number) => {
    let i = start;
    while (i < end) {
      const tag = b[i]!;
      const len = b[i + 1]!;
      if (len & 0x80) return;
      const body = i + 2;
      if (body <= at && at < body + len && (tag & 0x20)) {
        out.push(i + 1);
        walk(body, body + len);
      }
      i = body + len;
    }
  };
  walk(0, b.length);
  return out;
}

function mutate(r: SeededRandom, seeds: Buffer[], i: number): Buffer {
  const pick = () => Buffer.from(seeds[r.int(seeds.length)]!);
  switch (i % 6) {
    case 0: {
      const b = Buffer.alloc(r.int(1400));
      for (let k = 0; k < b.length; k++) b[k] = r.int(256);
      return b;
    }
    case 1: {
      const b = pick();
      for (let k = 0, n = 1 + r.int(6); k < n; k++) b[r.int(b.length)] ^= 1 << r.int(8);
      return b;
    }
    case 2: {
      const b = pick();
      return b.subarray(0, r.int(b.length));
    }
    case 3: {
      const b = pick();
      b[r.int(b.length)] = [0x84, 0xff, 0x80, 0x00, 0x7f, 0x81][r.int(6)]!;
      return b;
    }
    case 4: {
      const b = pick();
      const at = r.int(b.length);
      return Buffer.concat([b.subarray(0, at), Buffer.from([0x06, 0x84, 0x7f, 0xff, 0xff, 0xff]), b.subarray(at)]).subarray(0, 1400);
    }
    default: {
      const parts: Buffer[] = [];
      for (let k = 0, depth = 1 + r.int(300); k < depth; k++) parts.push(Buffer.from([0x30, 0x84, 0x00, 0x00, 0x00, 0xff]));
      return Buffer.concat(parts).subarray(0, 1400);
    }
  }
}

async function blast(datagrams: (i: number) => Buffer, count: number): Promise<void> {
  const s = createSocket('udp4');
  for (let i = 0; i < count; ) {
    const burst = Math.min(200, count - i);
    await Promise.all(Array.from({ length: burst }, (_, k) => new Promise<void>((r) => s.send(datagrams(i + k), port, host, () => r()))));
    i += burst;
    await new Promise((r) => setImmediate(r));
  }
  s.close();
}

describe.skipIf(SKIP)('SNMP agent under 10^5 fuzzed datagrams', () => {
  it('the crafted GET is caught by the guard: the shelf keeps serving', async () => {
    const [get] = await captureRequests('snmpget', ['-v2c', '-c', COMMUNITY], ['1.3.6.1.2.1.1.5.0']);
    await blast(() => crasher(get!), 1);
    await emu!.waitFor((l) => l.category === 'snmp-guard', 10_000, 'the guard line');
    const r = await snmp('snmpget', ['-v2c', '-c', COMMUNITY, `${host}:${port}`, '1.3.6.1.2.1.1.5.0']);
    expect(parseVars(r.stdout).get('1.3.6.1.2.1.1.5.0')?.value).toBe('atcasim-default');
  });

  it(`${COUNT} mutated datagrams: the process lives, v2c walks and v3 reads stay correct`, async () => {
    const s = await seeds();
    const r = new SeededRandom(0x5e3d);
    const t0 = performance.now();
    await blast((i) => mutate(r, s, i), COUNT);
    const ms = performance.now() - t0;
    expect(emu!.proc.exitCode).toBeNull();
    const walk = await snmp('snmpwalk', ['-v2c', '-c', COMMUNITY, `${host}:${port}`, '1.3.6.1.2.1.99.1.1.1.4']);
    expect([walk.code, walk.stderr]).toEqual([0, '']);
    expect(parseVars(walk.stdout).get('1.3.6.1.2.1.99.1.1.1.4.103001')?.value).toBe('48');
    expect(parseVars(walk.stdout).size).toBe(38);
    const v3 = await snmp('snmpget', [...V3, `${host}:${port}`, '1.3.6.1.2.1.1.5.0']);
    expect([v3.code, parseVars(v3.stdout).get('1.3.6.1.2.1.1.5.0')?.value]).toEqual([0, 'atcasim-default']);
    const guarded = emu!.lines.filter((l) => l.category === 'snmp-guard').length;
    const rejected = emu!.lines.filter((l) => l.category === 'snmp-rejected');
    // rejections are summarised (at most one line per 10 s), never one line per datagram
    expect(rejected.length).toBeLessThan(20);
    console.log(`snmp fuzz: ${COUNT} datagrams in ${Math.round(ms)} ms; guard caught ${guarded}; ${rejected.length} rejection summaries`);
  }, 240_000);
});
