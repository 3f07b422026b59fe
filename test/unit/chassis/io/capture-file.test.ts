/**
 * Streaming capture files from disk (chassis/io/capture-file.ts) and the pcap writer
 * (board/packet/pcap-writer.ts + chassis/io/pcap-file-sink.ts); the bundled capture parses clean. Files
 * in a temporary folder only; the reader itself is tested in
 * test/unit/board/packet/capture-reader.test.ts.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DecodeError } from '../../../../board/common/errors.ts';
import { CaptureReader } from '../../../../board/packet/capture-reader.ts';
import { PacketParser } from '../../../../board/packet/parse.ts';
import { PcapEncoder, msToSecNsec } from '../../../../board/packet/pcap-writer.ts';
import { CaptureFileReader, forEachPacket } from '../../../../chassis/io/capture-file.ts';
import { PcapFileSink } from '../../../../chassis/io/pcap-file-sink.ts';
import { repoRoot, shared, sharedCaptures } from '../../../support/shared.ts';
import { udpFrame } from '../../../support/packet-builders.ts';

const dir = mkdtempSync(join(tmpdir(), 'atcasim-packet-capture-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function inMemory(file: string): string[] {
  const out: string[] = [];
  const r = new CaptureReader({ packet: (rec) => void out.push(`${rec.number} ${rec.epochText()} ${Buffer.from(rec.data).toString('hex')}`) });
  r.push(readFileSync(file));
  r.end();
  return out;
}

describe('forEachPacket', () => {
  it('every shared capture read in 64-byte chunks equals the whole-file read', () => {
    for (const file of sharedCaptures()) {
      if (file.includes('invalid-version')) continue;
      const got: string[] = [];
      forEachPacket(file, (rec) => void got.push(`${rec.number} ${rec.epochText()} ${Buffer.from(rec.data).toString('hex')}`), { chunkSize: 64 });
      expect(got, file).toEqual(inMemory(file));
    }
  });

  it('loops N times and stops early when the callback returns false', () => {
    const file = shared('pcap', 'zeek__tcp.pcap');
    const loops: number[] = [];
    const r = forEachPacket(file, (_rec, loop) => void loops.push(loop), { loops: 3 });
    expect([r.packets, r.loops, r.stoppedEarly, r.format]).toEqual([36, 3, false, 'pcap']);
    expect(loops.filter((l) => l === 2)).toHaveLength(12);
    let n = 0;
    const s = forEachPacket(file, () => ++n < 5, { loops: 3 });
    expect([s.packets, s.stoppedEarly]).toEqual([5, true]);
  });

  it('a truncated file: the packets before the cut, then a DecodeError naming its offset', () => {
    const src = readFileSync(shared('pcap', 'zeek__tcp.pcap'));
    const cut = join(dir, 'cut.pcap');
    writeFileSync(cut, src.subarray(0, src.length - 10));
    const seen: number[] = [];
    let err: unknown;
    try {
      forEachPacket(cut, (rec) => void seen.push(rec.number), { chunkSize: 100 });
    } catch (e) {
      err = e;
    }
    expect(seen).toHaveLength(11);
    expect(err).toBeInstanceOf(DecodeError);
    expect((err as DecodeError).message).toMatch(/^pcap: record at offset \d+: cut short/);
  });

  it('pump() pauses and resumes across the read buffer, rewind() starts over', () => {
    const file = shared('pcap', 'pcapplusplus__sll.pcap');
    const numbers: number[] = [];
    let budget = 0;
    const r = new CaptureFileReader(file, { packet: (rec) => (numbers.push(rec.number), --budget > 0) }, { chunkSize: 1000 });
    const states: string[] = [];
    for (let i = 0; i < 1000 && !r.done; i++) {
      budget = 50;
      states.push(r.pump());
    }
    expect(numbers).toEqual(Array.from({ length: 518 }, (_, i) => i + 1));
    expect(states.at(-1)).toBe('eof');
    r.rewind();
    numbers.length = 0;
    budget = 1e9;
    expect(r.pump()).toBe('eof');
    expect(numbers).toHaveLength(518);
    r.close();
  });

  it('a missing file is a node:fs error (ENOENT)', () => {
    expect(() => forEachPacket(join(dir, 'nope.pcap'), () => {})).toThrow(/ENOENT/);
  });
});

describe('pcap writer', () => {
  it('encodes records any reader decodes back (at a non-zero offset, µs and ns, snaplen cut)', () => {
    for (const nanoseconds of [false, true]) {
      const enc = new PcapEncoder({ linkType: 1, snaplen: 40, nanoseconds });
      const a = udpFrame([1, 2, 3, 4], [5, 6, 7, 8], 1, 2);
      const buf = new Uint8Array(7 + enc.header.length + enc.recordLength(a.length) + enc.recordLength(20));
      buf.set(enc.header, 7);
      let o = 7 + enc.header.length;
      o = enc.encodeRecord(buf, o, a, 0, a.length, a.length, 1700000000, 123456789);
      o = enc.encodeRecord(buf, o, a, 0, 20, 20, 1, 5);
      expect(o).toBe(buf.length);
      const got: string[] = [];
      const r = new CaptureReader({ packet: (rec) => void got.push(`${rec.epochText()} ${rec.caplen} ${rec.origLen}`) });
      r.push(buf, 7);
      r.end();
      expect(got).toEqual([`1700000000.${nanoseconds ? '123456789' : '123456000'} 40 ${a.length}`, `1.${nanoseconds ? '000000005' : '000000000'} 20 20`]);
    }
    expect(() => new PcapEncoder({ snaplen: 0 })).toThrow(RangeError);
    expect(msToSecNsec(1500.25)).toEqual({ sec: 1, nsec: 500250000 });
  });

  it('the file sink writes a pcap of raw IP or Ethernet records that reads back identically', () => {
    const src = shared('pcap', 'pcapplusplus__raw_ip.pcap');
    const out = join(dir, 'copy.pcap');
    const sink = new PcapFileSink(out, { linkType: 101, bufferSize: 4096 });
    forEachPacket(src, (rec) => sink.write(rec.buf, rec.tsSec, rec.tsNsec, rec.origLen, rec.offset, rec.caplen));
    sink.close();
    expect(sink.packets).toBe(100);
    expect(inMemory(out)).toEqual(inMemory(src));
    expect(() => sink.write(new Uint8Array(1), 0, 0)).toThrow(/closed/);
  });
});

describe('the bundled capture', () => {
  it('chassis/assets/loopback-mix-20k.pcap: 20,000 packets, no parse error of any kind', () => {
    const parser = new PacketParser();
    const families = new Map<number, number>();
    forEachPacket(join(repoRoot, 'chassis', 'assets', 'loopback-mix-20k.pcap'), (rec) => {
      const v = parser.parseAt(rec.buf, rec.offset, rec.caplen, rec.linkType, rec.origLen);
      families.set(v.outer.family, (families.get(v.outer.family) ?? 0) + 1);
    });
    expect(Array.from(parser.counts)).toEqual([20000, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(families.get(0)).toBeUndefined();
    expect((families.get(4) ?? 0) + (families.get(6) ?? 0)).toBe(20000);
  });
});
