/**
 * `atcasim fields` against the tshark oracle (docs/packet.md):
 * - every capture in ../shared/pcap: the CSV compared by ../shared/tools/compare-fields.py with
 *   the oracle's CSV (zero differences, no exclusions); the file tshark refuses is refused (exit 2,
 *   nothing on stdout, one line on stderr);
 * - the real command (`node bin/atcasim.mjs fields …`) on a capture, a refused file, a file cut
 *   inside a record and a file that is not a capture;
 * - a 1000-packet slice of ../shared/pcap/bench/loopback-mix.pcap (editcap) against tshark run
 *   live with the oracle's exact options (../shared/pcap/make-oracle.sh);
 * - seeded synthetic tunnel packets (VXLAN, Geneve, GRE variants, ERSPAN II/III, PPTP, MPLS,
 *   PPPoE, IP-in-IP, ICMP quotes, IPv6 extension headers, snaplen cuts), which the public captures
 *   do not cover, against tshark run live the same way.
 * Most captures run in-process through `main()` for speed; the bin is spawned where it matters.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { Writable } from 'node:stream';
import { SeededRandom } from '../../board/common/random.ts';
import { main } from '../../chassis/main.ts';
import { FIELDS_HEADER } from '../../chassis/cli/fields.ts';
import { repoRoot, shared, sharedCaptures } from '../support/shared.ts';

const dir = mkdtempSync(join(tmpdir(), 'atcasim-tshark-fields-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const COMPARE = shared('tools', 'compare-fields.py');
const MAKE_ORACLE = shared('pcap', 'make-oracle.sh');

class Sink extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _enc: BufferEncoding, cb: () => void): void {
    this.text += chunk.toString();
    cb();
  }
}

/** Runs `atcasim fields FILE` in-process. */
async function fieldsInProcess(file: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new Sink();
  const stderr = new Sink();
  const code = await main(['node', 'atcasim', 'fields', file], { stdout, stderr });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

/** Runs the real command. */
function fieldsBin(file: string): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(repoRoot, 'bin', 'atcasim.mjs'), 'fields', file], { encoding: 'utf8', maxBuffer: 64 << 20 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** compare-fields.py ORACLE PRODUCED → its exit status and last line. */
function compare(oracle: string, producedCsv: string): { code: number; out: string } {
  const produced = join(dir, `${basename(oracle)}.${Math.random().toString(36).slice(2)}.produced.csv`);
  writeFileSync(produced, producedCsv);
  const r = spawnSync('python3', [COMPARE, oracle, produced], { encoding: 'utf8' });
  return { code: r.status ?? -1, out: `${r.stdout}${r.stderr}`.trim() };
}

/**
 * compare-fields.py applied to many (oracle, produced) pairs in one python3 process (its `main`
 * function, loaded from the script file): per pair, its exit status and printed lines.
 */
function compareMany(pairs: Array<[string, string]>): Array<{ code: number; out: string }> {
  const list = join(dir, `pairs-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(list, JSON.stringify(pairs));
  const driver = [
    'import importlib.util, io, json, sys, contextlib',
    `spec = importlib.util.spec_from_file_location("compare_fields", ${JSON.stringify(COMPARE)})`,
    'm = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)',
    'res = []',
    'for o, p in json.load(open(sys.argv[1])):',
    '    buf = io.StringIO()',
    '    with contextlib.redirect_stdout(buf): code = m.main(o, p)',
    '    res.append({"code": code, "out": buf.getvalue().strip()})',
    'print(json.dumps(res))',
  ].join('\n');
  const out = execFileSync('python3', ['-c', driver, list], { encoding: 'utf8', maxBuffer: 64 << 20 });
  return JSON.parse(out) as Array<{ code: number; out: string }>;
}

describe('atcasim fields vs the tshark oracle, every shared capture', () => {
  const files = sharedCaptures();
  const runs = new Map<string, { code: number; stdout: string; stderr: string }>();
  const verdicts = new Map<string, { code: number; out: string }>();

  beforeAll(async () => {
    for (const f of files) runs.set(f, await fieldsInProcess(f));
    const compared = files.filter((f) => !existsSync(`${f}.tshark-stderr.txt`) && runs.get(f)!.code === 0);
    const pairs = compared.map((f, i): [string, string] => {
      const produced = join(dir, `shared-${i}.csv`);
      writeFileSync(produced, runs.get(f)!.stdout);
      return [`${f}.fields.csv`, produced];
    });
    compareMany(pairs).forEach((v, i) => verdicts.set(compared[i]!, v));
  });

  it('covers all 50 captures', () => expect(files.length).toBe(50));

  it.each(files.map((f) => [basename(f), f]))('%s', (_name, file) => {
    const r = runs.get(file)!;
    if (existsSync(`${file}.tshark-stderr.txt`)) {
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/major version 1 unsupported/);
      return;
    }
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe(FIELDS_HEADER);
    const c = verdicts.get(file)!;
    expect(c.out).toMatch(/^OK: \d+ rows, 0 differences$/m);
    expect(c.code, c.out).toBe(0);
  });
});

describe('the real command', () => {
  it('node bin/atcasim.mjs fields FILE: the oracle comparison passes', () => {
    const file = shared('pcap', 'zeek__gre-pptp.pcap');
    const r = fieldsBin(file);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(compare(`${file}.fields.csv`, r.stdout).code).toBe(0);
  });

  it('a file tshark refuses: no CSV, one line on stderr, exit 2', () => {
    const r = fieldsBin(shared('pcap', 'libpcap__pcap-invalid-version-1.pcap'));
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toMatch(/^atcasim fields: .*libpcap__pcap-invalid-version-1\.pcap: pcap: version_major at offset 4: major version 1 unsupported/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('a truncated capture: the rows before the cut, then the error with its byte offset, exit 2, no stack trace', () => {
    const src = shared('pcap', 'zeek__gre-sample.pcap');
    const bytes = readFileSync(src);
    const cut = join(dir, 'gre-sample-cut.pcap');
    writeFileSync(cut, bytes.subarray(0, 3000));
    const r = fieldsBin(cut);
    expect(r.code).toBe(2);
    const rows = r.stdout.trim().split('\n');
    expect(rows[0]).toBe(FIELDS_HEADER);
    // every complete record before byte 3000, and they match the oracle's first rows
    let off = 24;
    let complete = 0;
    while (off + 16 <= 3000) {
      const next = off + 16 + bytes.readUInt32LE(off + 8);
      if (next > 3000) break;
      complete++;
      off = next;
    }
    expect(rows).toHaveLength(1 + complete);
    expect(r.stderr).toBe(`atcasim fields: ${cut}: pcap: record at offset ${off}: cut short: ${16 + bytes.readUInt32LE(off + 8)} bytes needed (16-byte header + ${bytes.readUInt32LE(off + 8)} captured), ${3000 - off} present\n`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    const oracleHead = readFileSync(`${src}.fields.csv`, 'utf8').split('\n').slice(0, 1 + complete).join('\n');
    const oracleCut = join(dir, 'gre-sample-cut.oracle.csv');
    writeFileSync(oracleCut, `${oracleHead}\n`);
    expect(compare(oracleCut, r.stdout).code).toBe(0);
  });

  it('not a capture: exit 2 with a one-line message, nothing on stdout', () => {
    const notCap = join(dir, 'notes.txt');
    writeFileSync(notCap, 'these are meeting notes, not packets\n');
    const r = fieldsBin(notCap);
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toBe(`atcasim fields: ${notCap}: capture: magic at offset 0: not a capture file (magic 0x74686573; expected pcap a1b2c3d4/a1b23c4d in either byte order, or pcapng 0a0d0d0a)\n`);
  });

  it('a missing file: exit 2, one line', () => {
    const r = fieldsBin(join(dir, 'missing.pcap'));
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`atcasim fields: ${join(dir, 'missing.pcap')}: no such file\n`);
  });
});

describe('live tshark', () => {
  it('a 1000-packet slice of bench/loopback-mix.pcap agrees with tshark run with the oracle options', async () => {
    const slice = join(dir, 'loopback-slice.pcap');
    execFileSync('editcap', ['-r', shared('pcap', 'bench', 'loopback-mix.pcap'), slice, '1-1000']);
    execFileSync('bash', [MAKE_ORACLE, slice], { stdio: 'ignore' });
    const r = await fieldsInProcess(slice);
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(1001);
    const c = compare(`${slice}.fields.csv`, r.stdout);
    expect(c.out).toBe('OK: 1000 rows, 0 differences');
  });

  it('seeded synthetic tunnel packets agree with tshark run with the oracle options', async () => {
    const file = join(dir, 'tunnels.pcap');
    writeFileSync(file, syntheticCapture(new SeededRandom(7), 1500));
    execFileSync('bash', [MAKE_ORACLE, file], { stdio: 'ignore' });
    const r = await fieldsInProcess(file);
    expect(r.code, r.stderr).toBe(0);
    const c = compare(`${file}.fields.csv`, r.stdout);
    expect(c.out).toBe('OK: 1500 rows, 0 differences');
  });
});

// ---- synthetic packets (built from the RFC header layouts) ----

function bytes(...parts: Array<Uint8Array | number[]>): Uint8Array {
  const n = parts.reduce((s, p) => s + p.length, 0);
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}
const u16 = (v: number) => [(v >> 8) & 0xff, v & 0xff];
const u32 = (v: number) => [(v >>> 24) & 0xff, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff];

function synth(rnd: SeededRandom) {
  const rb = (n: number) => Array.from({ length: n }, () => rnd.int(256));
  const ip4 = (proto: number, payload: Uint8Array, flags = 0) => bytes([0x45, 0], u16(20 + payload.length), u16(rnd.int(65536)), u16(flags), [64, proto, 0, 0], [10, ...rb(3)], [172, 16, ...rb(2)], payload);
  const ip6 = (nxt: number, payload: Uint8Array) => bytes([0x60, 0, 0, 0], u16(payload.length), [nxt, 64], [0x20, 0x01, 0x0d, 0xb8], rb(12), [0xfd, 0], rb(14), payload);
  const tcp = () => bytes(u16(1024 + rnd.int(60000)), u16(1024 + rnd.int(60000)), u32(rnd.u32()), u32(rnd.u32()), [0x50, rnd.int(256)], u16(1000), [0, 0, 0, 0]);
  const udp = (sport = 33000 + rnd.int(400), dport = 33434 + rnd.int(64), payload: Uint8Array = new Uint8Array(rnd.int(12))) => bytes(u16(sport), u16(dport), u16(8 + payload.length), [0, 0], payload);
  const sctp = () => bytes(u16(3868), u16(3868), u32(rnd.u32()), [0, 0, 0, 0], [0x0a, 0, 0, 4]); // COOKIE-ACK
  const l4 = (v6: boolean): [number, Uint8Array] => {
    switch (rnd.int(4)) {
      case 0:
        return [6, tcp()];
      case 1:
        return [17, udp()];
      case 2:
        return [132, sctp()];
      default:
        return v6 ? [58, new Uint8Array([128, 0, 0, 0, 0, 1, 0, 1])] : [1, new Uint8Array([8, 0, 0, 0, 0, 1, 0, 1])];
    }
  };
  const ipPacket = (): [number, Uint8Array] => {
    const v6 = rnd.int(2) === 0;
    const [p, payload] = l4(v6);
    if (!v6) return [0x0800, ip4(p, payload, rnd.int(8) === 0 ? 0x2000 : 0)];
    if (rnd.int(3) === 0) return [0x86dd, ip6(rnd.int(2) ? 0 : 60, bytes([p, 0, 1, 4, 0, 0, 0, 0], payload))];
    if (rnd.int(6) === 0) return [0x86dd, ip6(44, bytes([p, 0], u16(0), u32(rnd.u32()), payload))];
    return [0x86dd, ip6(p, payload)];
  };
  const ethFrame = (type: number, payload: Uint8Array, tags = 0) => {
    const t: number[] = [];
    for (let i = 0; i < tags; i++) t.push(...u16(i === 0 && rnd.int(3) === 0 ? 0x88a8 : 0x8100), ...u16(rnd.int(4096)));
    return bytes([0x02, ...rb(5), 0x02, ...rb(5)], t, u16(type), payload);
  };
  const innerEth = () => {
    const [t, p] = ipPacket();
    return ethFrame(t, p, rnd.int(3) === 0 ? 1 : 0);
  };
  const kind = rnd.int(13);
  let type: number;
  let payload: Uint8Array;
  switch (kind) {
    case 0:
      [type, payload] = [0x0800, ip4(17, udp(49152 + rnd.int(16000), 4789, bytes([8, 0, 0, 0], rb(3), [0], innerEth())))];
      break;
    case 1: {
      const opt = rnd.int(3);
      [type, payload] = [0x0800, ip4(17, udp(49152 + rnd.int(16000), 6081, bytes([opt, 0, 0x65, 0x58], rb(3), [0], new Array(opt * 4).fill(0), innerEth())))];
      break;
    }
    case 2: {
      const [t, p] = ipPacket();
      const flags = [0, 0x8000, 0x2000, 0x1000, 0xb000][rnd.int(5)]!;
      const opt = ((flags & 0x8000 ? 4 : 0) + (flags & 0x2000 ? 4 : 0) + (flags & 0x1000 ? 4 : 0));
      [type, payload] = [0x0800, ip4(47, bytes(u16(flags), u16(t), new Array(opt).fill(0), p))];
      break;
    }
    case 3:
      [type, payload] = [0x86dd, ip6(47, bytes([0x20, 0, 0x65, 0x58], u32(rnd.u32()), innerEth()))];
      break;
    case 4:
      [type, payload] = [0x0800, ip4(47, bytes([0x10, 0, 0x88, 0xbe], u32(rnd.u32()), [0x10, 0x65, 0xc0, 0x01, 0, 0, 0, 8], innerEth()))];
      break;
    case 5: {
      const o = rnd.int(2);
      [type, payload] = [0x0800, ip4(47, bytes([0x10, 0, 0x22, 0xeb], u32(rnd.u32()), [0x20, 0x65, 0xc0, 0x01], u32(rnd.u32()), [0, 0, 0, o], new Array(8 * o).fill(0), innerEth()))];
      break;
    }
    case 6: {
      const [t, p] = ipPacket();
      [type, payload] = [0x0800, ip4(47, bytes([0x30, 0x81, 0x88, 0x0b], u16(p.length + 4), u16(7), u32(rnd.u32()), u32(rnd.u32()), [0xff, 0x03], u16(t === 0x0800 ? 0x21 : 0x57), p))];
      break;
    }
    case 7: {
      const [t, p] = ipPacket();
      const outerV6 = rnd.int(2) === 0;
      const proto = t === 0x0800 ? 4 : 41;
      [type, payload] = outerV6 ? [0x86dd, ip6(proto, p)] : [0x0800, ip4(proto, p)];
      break;
    }
    case 8: {
      const [, p] = ipPacket();
      const n = 1 + rnd.int(3);
      const labels: number[] = [];
      for (let i = 0; i < n; i++) labels.push(...u32(((16 + rnd.int(100000)) << 12) | (i === n - 1 ? 0x100 : 0) | 64));
      [type, payload] = [0x8847, bytes(labels, p)];
      break;
    }
    case 9: {
      const [t, p] = ipPacket();
      [type, payload] = [0x8864, bytes([0x11, 0], u16(rnd.int(65536)), u16(p.length + 2), u16(t === 0x0800 ? 0x21 : 0x57), p)];
      break;
    }
    case 10: {
      const [t, p] = ipPacket();
      const quote = p.subarray(0, Math.min(p.length, (t === 0x0800 ? 28 : 48) + rnd.int(24)));
      [type, payload] = t === 0x0800 ? [0x0800, ip4(1, bytes([3, 3, 0, 0, 0, 0, 0, 0], quote))] : [0x86dd, ip6(58, bytes([1, 4, 0, 0, 0, 0, 0, 0], quote))];
      break;
    }
    default:
      [type, payload] = ipPacket();
  }
  const frame = ethFrame(type, payload, rnd.int(4) === 0 ? 1 + rnd.int(2) : 0);
  const caplen = rnd.int(5) === 0 ? 14 + rnd.int(frame.length - 13) : frame.length;
  return { data: frame.subarray(0, caplen), origLen: frame.length };
}

/** A pcap (Ethernet) of `n` synthetic packets. */
function syntheticCapture(rnd: SeededRandom, n: number): Uint8Array {
  const recs: Uint8Array[] = [new Uint8Array([0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 1, 0, 0, 0])];
  for (let i = 0; i < n; i++) {
    const { data, origLen } = synth(rnd);
    const h = new Uint8Array(16);
    const dv = new DataView(h.buffer);
    dv.setUint32(0, 1700000000 + i, true);
    dv.setUint32(8, data.length, true);
    dv.setUint32(12, origLen, true);
    recs.push(h, data);
  }
  return bytes(...recs);
}
