/**
 * What the processor boards emit, written to a pcap file (`atcasim replay --out FILE.pcap`): an
 * EmitSink (board/processor/encap.ts) over the packet layer's buffered pcap file sink
 * (chassis/io/pcap-file-sink.ts, encoder board/packet/pcap-writer.ts): classic libpcap format,
 * little-endian, microsecond timestamps, snaplen 262144, link type 1 (EN10MB — the boards emit
 * Ethernet II frames), one fixed 1 MiB buffer so memory stays bounded.
 *
 * Each record's orig_len is the frame's wire length, which exceeds the captured length when the
 * inner packet was cut by the original capture's snaplen. Timestamps: the `timestampMs` the board
 * was given plus `offsetMs` (replay: the capture time of data time 0), clamped to the 32-bit
 * seconds field.
 *
 * Errors: node:fs errors (open, write) are thrown as they come (ENOENT, EACCES, ENOSPC…).
 */
import type { EmitSink } from '../../board/processor/encap.ts';
import { PcapFileSink } from './pcap-file-sink.ts';

/** Writes emitted frames to a pcap file; see the module header. */
export class PcapFileWriter implements EmitSink {
  /** Added to every timestamp, ms (replay sets it to the capture time of data time 0). */
  offsetMs = 0;
  private readonly sink: PcapFileSink;

  /**
   * Creates (truncates) the file and writes the global header.
   * @throws node:fs errors when the file cannot be created
   */
  constructor(readonly path: string) {
    this.sink = new PcapFileSink(path);
  }

  /** Frames written. */
  get frames(): number {
    return this.sink.packets;
  }

  /** EmitSink: appends one record (copies the bytes). */
  emit(bytes: Uint8Array, length: number, timestampMs: number, wireLength: number): void {
    const ts = timestampMs + this.offsetMs;
    let sec = Math.floor(ts / 1000);
    let nsec = Math.floor((ts - sec * 1000) * 1e6);
    if (!(sec >= 0)) {
      sec = 0;
      nsec = 0;
    } else if (sec > 0xffffffff) {
      sec = 0xffffffff;
      nsec = 0;
    }
    if (nsec > 999_999_999) nsec = 999_999_999;
    this.sink.write(bytes, sec, nsec, wireLength > length ? wireLength : length, 0, length);
  }

  /** Flushes and closes the file (idempotent). @throws node:fs write errors */
  close(): void {
    this.sink.close();
  }
}
