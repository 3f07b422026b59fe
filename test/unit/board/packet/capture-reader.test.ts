/**
 * The push parser for capture files (board/packet/capture-reader.ts): pcap in both byte orders
 * and units, pcapng sections/IDBs/EPB/SPB/PB and skipped blocks, chunking, pause/resume,
 * refusals, truncation at every byte offset, and the shared captures' timestamps and interface
 * IDs against tshark's oracle.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { parse as parseCsv } from '../../../support/csv.ts';
import { DecodeError } from '../../../../board/common/errors.ts';
import { CaptureReader, type CaptureHandler } from '../../../../board/packet/capture-reader.ts';
import type { CaptureInterface } from '../../../../board/packet/capture-record.ts';
import { shared, sharedCaptures } from '../../../support/shared.ts';
import { cat, hex, pcapFile, PcapngBuilder, udpFrame } from '../../../support/packet-builders.ts';

interface Got {
  number: number;
  section: number;
  interfaceId: number;
  linkType: number;
  linkSupported: boolean;
  ts: string;
  caplen: number;
  origLen: number;
  data: string;
  fileOffset: number;
}

/** Reads `bytes` in chunks of `chunk` bytes; returns the records, interfaces and the error. */
function read(bytes: Uint8Array, chunk = bytes.length || 1): { recs: Got[]; ifaces: CaptureInterface[]; error: DecodeError | null; format: string | null } {
  const recs: Got[] = [];
  const ifaces: CaptureInterface[] = [];
  const handler: CaptureHandler = {
    packet: (r) => {
      recs.push({
        number: r.number,
        section: r.section,
        interfaceId: r.interfaceId,
        linkType: r.linkType,
        linkSupported: r.linkSupported,
        ts: r.epochText(),
        caplen: r.caplen,
        origLen: r.origLen,
        data: Buffer.from(r.data).toString('hex'),
        fileOffset: r.fileOffset,
      });
    },
    interface: (i) => ifaces.push(i),
  };
  const reader = new CaptureReader(handler);
  let error: DecodeError | null = null;
  try {
    for (let o = 0; o < bytes.length; o += chunk) reader.push(bytes, o, Math.min(bytes.length, o + chunk));
    reader.end();
  } catch (e) {
    if (!(e instanceof DecodeError)) throw e;
    error = e;
  }
  return { recs, ifaces, error, format: reader.format };
}

const frameA = udpFrame([10, 0, 0, 1], [10, 0, 0, 2], 1000, 53);
const frameB = udpFrame([10, 0, 0, 3], [10, 0, 0, 4], 2000, 123, 9);

describe('pcap', () => {
  it.each([
    ['little-endian µs', true, false, '1700000000.123456000'],
    ['big-endian µs', false, false, '1700000000.123456000'],
    ['little-endian ns', true, true, '1700000000.000123456'],
    ['big-endian ns', false, true, '1700000000.000123456'],
  ])('%s: records, timestamps, lengths', (_name, le, nano, ts) => {
    const file = pcapFile({ le, nano }, [
      { data: frameA, sec: 1700000000, frac: 123456 },
      { data: frameB.subarray(0, 30), sec: 1700000000, frac: 123456, origLen: frameB.length },
    ]);
    const { recs, error, format, ifaces } = read(file);
    expect(error).toBeNull();
    expect(format).toBe('pcap');
    expect(ifaces).toEqual([expect.objectContaining({ linkType: 1, linkSupported: true, interfaceId: 0, tsResolution: nano ? '1e9' : '1e6' })]);
    expect(recs.map((r) => [r.number, r.ts, r.caplen, r.origLen, r.fileOffset])).toEqual([
      [1, ts, frameA.length, frameA.length, 24],
      [2, ts, 30, frameB.length, 24 + 16 + frameA.length],
    ]);
    expect(recs[0]!.data).toBe(Buffer.from(frameA).toString('hex'));
  });

  it('ignores the FCS bits 26-31 of the link-type word (0x30000001 is Ethernet)', () => {
    const { recs, error } = read(pcapFile({ linkWord: 0x30000001 }, [{ data: frameA }]));
    expect(error).toBeNull();
    expect(recs[0]!.linkType).toBe(1);
  });

  it('refuses reserved link-type bits 16-25, as tshark does', () => {
    const { recs, error } = read(pcapFile({ linkWord: 0x00010001 }, [{ data: frameA }]));
    expect(recs).toHaveLength(0);
    expect(error?.message).toMatch(/^pcap: linktype at offset 20: reserved bits/);
  });

  it('refuses major version 1 like tshark refuses libpcap__pcap-invalid-version-1.pcap', () => {
    const { recs, error } = read(readFileSync(shared('pcap', 'libpcap__pcap-invalid-version-1.pcap')));
    expect(recs).toHaveLength(0);
    expect(error?.message).toBe('pcap: version_major at offset 4: major version 1 unsupported (file format version 1.4; only 2.x is defined)');
  });

  it('reads later versions (tshark reads 2.x with any minor, and 3.x)', () => {
    expect(read(pcapFile({ major: 2, minor: 9 }, [{ data: frameA }])).recs).toHaveLength(1);
    expect(read(pcapFile({ major: 3 }, [{ data: frameA }])).recs).toHaveLength(1);
  });

  it('delivers packets of an unknown link type flagged, without failing the file', () => {
    const { recs, error, ifaces } = read(pcapFile({ linkWord: 147 }, [{ data: frameA }, { data: frameB }]));
    expect(error).toBeNull();
    expect(ifaces[0]!.linkSupported).toBe(false);
    expect(recs.map((r) => [r.linkType, r.linkSupported])).toEqual([
      [147, false],
      [147, false],
    ]);
  });

  it('refuses a record longer than 262144 bytes as corrupt, after the good ones', () => {
    const good = pcapFile({}, [{ data: frameA }]);
    const bad = hex`00000000 00000000 01000400 01000400`; // caplen 0x40001 (LE)
    const { recs, error } = read(cat(good, bad));
    expect(recs).toHaveLength(1);
    expect(error).toBeInstanceOf(DecodeError);
    expect(error!.offset).toBe(good.length + 8);
    expect(error!.message).toMatch(/more than the maximum of 262144/);
  });
});

describe('not a capture', () => {
  it.each([
    ['text', new TextEncoder().encode('hello, this is not a capture\n'), /^capture: magic at offset 0: not a capture file \(magic 0x68656c6c/],
    ['empty', new Uint8Array(0), /^capture: magic at offset 0: empty file, not a capture$/],
    ['three bytes', hex`d4c3b2`, /file too short to be a capture \(3 bytes\)/],
  ])('%s → one clear DecodeError, no packets', (_n, bytes, msg) => {
    const { recs, error } = read(bytes);
    expect(recs).toHaveLength(0);
    expect(error?.message).toMatch(msg);
    expect(error?.message.split('\n')).toHaveLength(1);
  });

  it('detects the format by magic, not by name (pcapng files named .pcap)', () => {
    expect(read(readFileSync(shared('pcap', 'pcapplusplus__IcmpPackets.pcap'))).format).toBe('pcapng');
    expect(read(readFileSync(shared('pcap', 'tcpdump__isup.pcap'))).format).toBe('pcap');
  });
});

describe('pcapng', () => {
  it('several sections of either byte order, IDBs per section, EPB/SPB/PB, skipped blocks', () => {
    const f = new PcapngBuilder()
      .shb(false) // section 0, big-endian
      .idb(1, 0) // if 0: Ethernet, µs
      .idb(0, 64, 9) // if 1: NULL, ns, snaplen 64
      .epb(0, 1_700_000_000_123_456n, frameA)
      .block(0x00000bad, hex`00007ed9 01020304`) // custom block (copyable): not a packet
      .block(4, hex`0000 0000`) // NRB: skipped
      .epb(1, 1_700_000_000_000_000_001n, frameB)
      .block(5, hex`00000000 00000000 00000000`) // ISB: skipped
      .block(0x12345678, hex`aabbccdd`) // unknown: skipped
      .shb(true) // section 1, little-endian
      .idb(1, 20, 0x80 | 20) // 2^-20 s units, snaplen 20
      .spb(frameA.length, frameA) // SPB: no timestamp, caplen limited by snaplen 20
      .pb(0, 3n << 20n, frameB) // obsolete PB: 3 s
      .block(0x40000bad, hex`00007ed9`) // custom block (no-copy)
      .bytes();
    for (const chunk of [f.length, 1, 7, 64]) {
      const { recs, ifaces, error, format } = read(f, chunk);
      expect(error).toBeNull();
      expect(format).toBe('pcapng');
      expect(ifaces.map((i) => [i.section, i.interfaceId, i.linkType, i.snaplen, i.tsResolution])).toEqual([
        [0, 0, 1, 0, '1e6'],
        [0, 1, 0, 64, '1e9'],
        [1, 0, 1, 20, '2^20'],
      ]);
      expect(recs.map((r) => [r.number, r.section, r.interfaceId, r.linkType, r.ts, r.caplen, r.origLen])).toEqual([
        [1, 0, 0, 1, '1700000000.123456000', frameA.length, frameA.length],
        [2, 0, 1, 0, '1700000000.000000001', frameB.length, frameB.length],
        [3, 1, 0, 1, '', 20, frameA.length],
        [4, 1, 0, 1, '3.000000000', frameB.length, frameB.length],
      ]);
      expect(recs[2]!.data).toBe(Buffer.from(frameA.subarray(0, 20)).toString('hex'));
    }
  });

  it('applies if_tsoffset and keeps large 64-bit µs timestamps exact', () => {
    const f = new PcapngBuilder().shb(true).idb(1, 0, 6, 100).epb(0, 0xfffffffffffffffen, frameA).bytes();
    // 2^64 - 2 µs = 18446744073709.551614 s, + 100 s offset
    expect(read(f).recs[0]!.ts).toBe('18446744073809.551614000');
  });

  it('an IDB with an unknown link type flags its packets only', () => {
    const f = new PcapngBuilder().shb(true).idb(1, 0).idb(4242, 0).epb(1, 0n, frameA).epb(0, 0n, frameB).bytes();
    const { recs, error } = read(f);
    expect(error).toBeNull();
    expect(recs.map((r) => r.linkSupported)).toEqual([false, true]);
  });

  it.each([
    ['a packet names a missing interface', new PcapngBuilder().shb(true).idb(1, 0).epb(3, 0n, frameA).bytes(), /interface_id at offset \d+: packet names interface 3, but its section has 1 interface/],
    ['an SPB before any IDB', new PcapngBuilder().shb(true).spb(4, hex`01020304`).bytes(), /Simple Packet Block before any Interface Description Block/],
    ['an unknown SHB version', new PcapngBuilder().shb(true, 2, 0).bytes(), /^pcapng: version at offset 12: unknown Section Header Block version 2.0/],
  ])('refuses a file where %s', (_n, bytes, msg) => {
    expect(read(bytes).error?.message).toMatch(msg);
  });

  it('refuses mismatched and impossible block lengths with their offsets', () => {
    const good = new PcapngBuilder().shb(true).idb(1, 0).bytes();
    const lying = hex`06000000 20000000 00000000 00000000 00000000 00000000 00000000 1c000000`; // trailer 28 != 32
    expect(read(cat(good, lying)).error?.message).toBe(`pcapng: block_total_length at offset ${good.length + 28}: total length 28 at the end of the block differs from 32 at its start`);
    const odd = hex`06000000 1e000000 00000000`;
    expect(read(cat(good, odd)).error?.message).toBe(`pcapng: block_total_length at offset ${good.length + 4}: block total length 30 is not a multiple of 4`);
  });

  it('reads the shared multi-section big-endian test vector as tshark does (custom blocks not counted)', () => {
    const { recs, error } = read(readFileSync(shared('pcap', 'pcapngtestgen__be-test202.pcapng')));
    expect(error).toBeNull();
    expect(recs).toHaveLength(8);
    expect(recs.filter((r) => r.ts === '').map((r) => r.caplen)).toEqual([128, 128]);
  });
});

describe('streaming', () => {
  const file = pcapFile({}, [{ data: frameA }, { data: frameB }, { data: frameA }]);

  it('gives the same records for every chunk size (records straddling chunks)', () => {
    const whole = read(file).recs;
    for (let chunk = 1; chunk <= 70; chunk++) expect(read(file, chunk).recs).toEqual(whole);
  });

  it('pauses when the handler returns false and resumes where it stopped', () => {
    const seen: number[] = [];
    const reader = new CaptureReader({
      packet: (r) => {
        seen.push(r.number);
        return r.number !== 2;
      },
    });
    const at = reader.push(file);
    expect(seen).toEqual([1, 2]);
    expect(reader.isPaused).toBe(true);
    expect(at).toBe(24 + 2 * 16 + frameA.length + frameB.length);
    reader.resume();
    expect(reader.push(file, at)).toBe(file.length);
    reader.end();
    expect(seen).toEqual([1, 2, 3]);
  });

  it('stop() ends delivery for good and end() then reports nothing', () => {
    const seen: number[] = [];
    const reader = new CaptureReader({ packet: (r) => void seen.push(r.number) });
    reader.push(file, 0, 30);
    reader.stop();
    reader.push(file, 30);
    expect(() => reader.end()).not.toThrow();
    expect(seen).toEqual([]);
  });
});

describe('truncation at every byte offset', () => {
  it('pcap: every packet before the cut, then an error naming where the cut record starts', () => {
    const file = pcapFile({}, [{ data: frameA }, { data: frameB }, { data: hex`0102030405` }]);
    const starts = [24, 24 + 16 + frameA.length, 24 + 32 + frameA.length + frameB.length, file.length];
    for (let cut = 0; cut <= file.length; cut++) {
      for (const chunk of [cut || 1, 5]) {
        const { recs, error } = read(file.subarray(0, cut), chunk);
        const complete = starts.slice(1).filter((s) => s <= cut).length;
        expect(recs, `cut ${cut}`).toHaveLength(complete);
        if (cut === 0) expect(error?.message).toMatch(/empty file/);
        else if (cut < 4) expect(error?.message).toMatch(/too short to be a capture/);
        else if (cut < 24) expect(error?.message).toBe(`pcap: file header at offset 0: cut short: ${cut} of 24 bytes present`);
        else if (starts.includes(cut)) expect(error, `cut ${cut}`).toBeNull();
        else {
          const at = starts[complete]!;
          expect(error, `cut ${cut}`).toBeInstanceOf(DecodeError);
          expect(error!.offset, `cut ${cut}`).toBe(at);
          expect(error!.message).toMatch(new RegExp(`^pcap: record at offset ${at}: cut short`));
        }
      }
    }
  });

  it('pcapng: every packet before the cut, then an error naming the cut block', () => {
    const file = new PcapngBuilder().shb(true).idb(1, 0).epb(0, 1n, frameA).spb(5, hex`0102030405`).bytes();
    const shb = 28;
    const idb = 24; // 8-byte block header, link type/reserved/snaplen 8, opt_endofopt 4, trailer 4
    const epb = 32 + ((frameA.length + 3) & ~3);
    const starts = [0, shb, shb + idb, shb + idb + epb, file.length];
    for (let cut = 1; cut <= file.length; cut++) {
      const { recs, error } = read(file.subarray(0, cut), 3);
      const complete = starts.filter((s) => s <= cut).length - 1;
      const packets = Math.max(0, complete - 2);
      expect(recs, `cut ${cut}`).toHaveLength(packets);
      if (starts.includes(cut)) expect(error, `cut ${cut}`).toBeNull();
      else expect(error?.offset, `cut ${cut}`).toBe(cut < 4 ? 0 : starts[complete]);
    }
  });
});

describe('shared captures: timestamps and interface IDs equal tshark frame.time_epoch / frame.interface_id', () => {
  for (const file of sharedCaptures()) {
    if (file.includes('invalid-version')) continue;
    it(file.split('/').pop()!, () => {
      const oracle = parseCsv(readFileSync(`${file}.fields.csv`, 'utf8')).filter((r) => !(r['frame.protocols'] === 'data' && r['frame.interface_id'] === ''));
      const { recs, error } = read(readFileSync(file), 4096);
      expect(error).toBeNull();
      expect(recs.length).toBe(oracle.length);
      recs.forEach((r, i) => {
        expect(r.ts, `packet ${i + 1}`).toBe(oracle[i]!['frame.time_epoch']);
        if (oracle[i]!['frame.interface_id'] !== '') expect(String(r.interfaceId)).toBe(oracle[i]!['frame.interface_id']);
        expect(String(r.origLen)).toBe(oracle[i]!['frame.len']);
        expect(String(r.caplen)).toBe(oracle[i]!['frame.cap_len']);
      });
    });
  }
});
