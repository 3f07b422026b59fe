/**
 * Seeded fuzzing of the packet parser (no input makes it throw; docs/packet.md "Errors"): at least
 * 100,000 mutations — bit flips, byte overwrites, truncations (with the wire length kept or not), lies
 * in 16-bit length fields, link-type swaps — of the real packets of every capture in ../shared/pcap.
 *
 * Each case must return (never throw), leave a consistent view (a parse or one typed error), and
 * never read outside its frame: the frame is parsed twice from the middle of a larger buffer whose
 * surrounding bytes are refilled with a different random pattern in between, and the two results
 * (tuples, error, every recorded field) must be identical.
 *
 * Reproduce a failure with the seed and case number printed in the message:
 *   ATCASIM_FUZZ_SEED=<seed> npx vitest run test/fuzz
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { SeededRandom } from '../../board/common/random.ts';
import { CaptureReader } from '../../board/packet/capture-reader.ts';
import type { FieldId, FieldRecorder } from '../../board/packet/field-recorder.ts';
import type { FlowTuple } from '../../board/packet/flow-tuple.ts';
import { PacketErrorKind, PACKET_ERROR_NAMES } from '../../board/packet/packet-error.ts';
import { PacketParser, type ParsedPacket } from '../../board/packet/parse.ts';
import { sharedCaptures } from '../support/shared.ts';

const SEED = Number(process.env.ATCASIM_FUZZ_SEED ?? 20240917);
const CASES = Number(process.env.ATCASIM_FUZZ_CASES ?? 120_000);
const LINK_TYPES = [0, 1, 9, 12, 101, 108, 113, 228, 229, 276];
const INTERESTING = [0, 1, 2, 4, 5, 6, 7, 8, 0x0f, 0x11, 0x29, 0x2f, 0x3a, 0x40, 0x45, 0x60, 0x7f, 0x80, 0x84, 0xff];

interface Sample {
  linkType: number;
  bytes: Uint8Array;
  origLen: number;
}

/** Field recorder that folds every occurrence into a checksum (cheap, no strings). */
class HashRecorder implements FieldRecorder {
  h = 0;
  n = 0;
  num(field: FieldId, value: number): void {
    this.h = (Math.imul(this.h ^ (field * 0x9e3779b1), 0x85ebca6b) + value) | 0;
    this.n++;
  }
  addr(field: FieldId, buf: Uint8Array, off: number): void {
    const len = field === 7 || field === 8 ? 16 : 4;
    for (let i = 0; i < len; i++) this.num(field, buf[off + i]!);
  }
}

function tupleKey(t: FlowTuple): string {
  return [t.family, Array.from(t.src).join('.'), Array.from(t.dst).join('.'), t.proto, t.hasPorts, t.sport, t.dport, t.fragment, t.tcpFlags, t.l3Offset, t.l4Offset, t.ipLength].join('|');
}

function viewKey(v: ParsedPacket, rec: HashRecorder): string {
  const e = v.err;
  return [tupleKey(v.outer), tupleKey(v.inner), tupleKey(v.quoted), v.tunnelDepth, v.icmpError, v.innerIcmpError, v.malformed, v.truncated, v.ethOffset, v.vlanCount, Array.from(v.vlanIds.subarray(0, v.vlanCount)).join(','), e.kind, e.layer, e.field, e.offset, rec.h, rec.n].join('/');
}

/** Frames of every shared capture (the refused one has none). */
function samples(): Sample[] {
  const out: Sample[] = [];
  for (const file of sharedCaptures()) {
    const r = new CaptureReader({ packet: (rec) => void out.push({ linkType: rec.linkType, bytes: rec.data.slice(), origLen: rec.origLen }) });
    try {
      r.push(readFileSync(file));
      r.end();
    } catch {
      // refused file: no packets
    }
  }
  return out;
}

function mutate(rnd: SeededRandom, s: Sample): { bytes: Uint8Array; origLen: number; linkType: number; how: string } {
  let bytes = s.bytes.slice();
  let origLen = s.origLen;
  let linkType = s.linkType;
  const how: string[] = [];
  const steps = 1 + rnd.int(3);
  for (let k = 0; k < steps && bytes.length > 0; k++) {
    const i = rnd.int(bytes.length);
    switch (rnd.int(6)) {
      case 0: {
        const bit = rnd.int(8);
        bytes[i] = bytes[i]! ^ (1 << bit);
        how.push(`flip ${i}.${bit}`);
        break;
      }
      case 1:
        bytes[i] = INTERESTING[rnd.int(INTERESTING.length)]!;
        how.push(`set ${i}=${bytes[i]}`);
        break;
      case 2: {
        const cut = rnd.int(bytes.length + 1);
        bytes = bytes.slice(0, cut);
        if (rnd.int(2) === 0) origLen = cut;
        how.push(`cut ${cut} orig ${origLen}`);
        break;
      }
      case 3: {
        // a 16-bit length field lies: 0, tiny, huge, or off by a little
        const j = i & ~1;
        if (j + 1 < bytes.length) {
          const cur = (bytes[j]! << 8) | bytes[j + 1]!;
          const choices = [0, 1, 4, 7, 8, 20, 0xffff, cur + 1, cur - 1, cur + 8, cur >> 1];
          const v = choices[rnd.int(choices.length)]! & 0xffff;
          bytes[j] = v >> 8;
          bytes[j + 1] = v & 0xff;
          how.push(`len16 ${j}=${v}`);
        }
        break;
      }
      case 4: {
        const b = rnd.int(256);
        bytes[i] = b;
        how.push(`byte ${i}=${b}`);
        break;
      }
      default:
        if (rnd.int(4) === 0) {
          linkType = LINK_TYPES[rnd.int(LINK_TYPES.length)]!;
          how.push(`link ${linkType}`);
        } else {
          origLen = rnd.int(2) === 0 ? bytes.length : 262144;
          how.push(`orig ${origLen}`);
        }
    }
  }
  return { bytes, origLen, linkType, how: how.join(', ') };
}

describe(`parser fuzzing (seed ${SEED}, ${CASES} mutations)`, () => {
  it('never throws, always a consistent parse or one typed error, never reads outside the frame', () => {
    const pool = samples();
    expect(pool.length).toBeGreaterThan(2000);
    const rnd = new SeededRandom(SEED);
    const parser = new PacketParser();
    const rec = new HashRecorder();
    const PAD = 64;
    const big = new Uint8Array(PAD + 70000 + PAD);
    const kinds = new Map<string, number>();
    for (let c = 0; c < CASES; c++) {
      const s = pool[rnd.int(pool.length)]!;
      const m = mutate(rnd, s);
      const where = `seed ${SEED} case ${c} (${m.how}; link ${m.linkType}, ${m.bytes.length}/${m.origLen} bytes): `;
      if (m.bytes.length + 2 * PAD > big.length) continue;
      const start = PAD + rnd.int(PAD);
      const keys: string[] = [];
      for (let pass = 0; pass < 2; pass++) {
        const fill = pass === 0 ? rnd.u32() & 0xff : (rnd.u32() & 0xff) ^ 0xa5;
        big.fill(fill, 0, start);
        big.fill(fill ^ 0xff, start + m.bytes.length, start + m.bytes.length + PAD);
        big.set(m.bytes, start);
        rec.h = 0;
        rec.n = 0;
        let v: ParsedPacket;
        try {
          // a subarray ending at the frame's end: reads past it would see other bytes, not undefined
          v = parser.parseAt(big, start, m.bytes.length, m.linkType, m.origLen, rec);
        } catch (e) {
          throw new Error(`${where}parser threw: ${(e as Error).stack}`);
        }
        keys.push(viewKey(v, rec));
        if (pass === 1) continue;
        // one typed error or none, consistent with the flags
        const e = v.err;
        if (e.kind === PacketErrorKind.NONE) {
          if (v.malformed || v.truncated) throw new Error(`${where}flags without an error`);
        } else {
          if (!(e.layer.length > 0 && e.field.length > 0 && Number.isInteger(e.offset) && e.offset >= 0)) throw new Error(`${where}bad error ${JSON.stringify(e)}`);
          if (e.kind === PacketErrorKind.TRUNCATED ? !v.truncated : !v.malformed) throw new Error(`${where}error ${e.kindName} without its flag`);
        }
        kinds.set(PACKET_ERROR_NAMES[e.kind]!, (kinds.get(PACKET_ERROR_NAMES[e.kind]!) ?? 0) + 1);
        for (const t of [v.outer, v.inner, v.quoted]) {
          if (t.family !== 0 && t.family !== 4 && t.family !== 6) throw new Error(`${where}family ${t.family}`);
          if (t.hasPorts && t.proto !== 6 && t.proto !== 17 && t.proto !== 132) throw new Error(`${where}ports on proto ${t.proto}`);
          if (t.family !== 0 && !(t.l3Offset >= 0 && t.l3Offset < m.bytes.length)) throw new Error(`${where}l3Offset ${t.l3Offset}`);
        }
        if (v.tunnelDepth === 0 && tupleKey(v.inner) !== tupleKey(v.outer)) throw new Error(`${where}inner != outer without a tunnel`);
        if (v.vlanCount > 8) throw new Error(`${where}vlanCount ${v.vlanCount}`);
      }
      if (keys[0] !== keys[1]) throw new Error(`${where}bytes outside the frame changed the result:\n${keys[0]}\n${keys[1]}`);
    }
    // the mutations reach the error paths, not only clean parses
    for (const k of ['none', 'truncated', 'overrun', 'bad-version', 'bad-header-length', 'bad-length']) expect(kinds.get(k) ?? 0, k).toBeGreaterThan(0);
  });
});
