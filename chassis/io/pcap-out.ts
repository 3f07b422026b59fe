/**
 * A pcap file writer for what the processor boards emit (`atcasim replay --out FILE.pcap`): an
 * EmitSink (board/processor/encap.ts) that appends classic libpcap records to a file through a
 * fixed 1 MiB buffer (fs.writeSync when it fills, and on close), so memory stays bounded.
 *
 * Format (libpcap savefile, as tcpdump writes it; pcap-savefile(5)): little-endian global header
 * with magic a1b2c3d4 (microsecond timestamps), version 2.4, thiszone 0, sigfigs 0, snaplen 262144,
 * link type 1 (EN10MB, the boards emit Ethernet II frames); then per frame a 16-byte record header
 * (ts_sec, ts_usec, incl_len, orig_len) and the captured bytes. orig_len is the frame's wire
 * length, which exceeds incl_len when the inner packet was cut by the original capture's snaplen.
 * Timestamps: the `timestampMs` the board was given plus `offsetMs` (replay: the capture time of
 * data time 0), clamped to the 32-bit seconds field.
 *
 * Errors: node:fs errors (open, write) are thrown as they come (ENOENT, EACCES, ENOSPC…).
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import type { EmitSink } from '../../board/processor/encap.ts';

/** Snapshot length written into the header (libpcap's MAXIMUM_SNAPLEN). */
export const PCAP_OUT_SNAPLEN = 262144;
const BUF = 1 << 20;

/** Writes emitted frames to a pcap file; see the module header. */
export class PcapFileWriter implements EmitSink {
  /** Frames written. */
  frames = 0;
  /** Added to every timestamp, ms (replay sets it to the capture time of data time 0). */
  offsetMs = 0;
  /** Bytes written to the file so far (header included; buffered bytes count once flushed). */
  bytesWritten = 0;
  private fd: number;
  private readonly buf = new Uint8Array(BUF);
  private readonly view = new DataView(this.buf.buffer);
  private len = 0;

  /**
   * Creates (truncates) the file and writes the global header.
   * @throws node:fs errors when the file cannot be created
   */
  constructor(readonly path: string) {
    this.fd = openSync(path, 'w');
    const v = this.view;
    v.setUint32(0, 0xa1b2c3d4, true);
    v.setUint16(4, 2, true);
    v.setUint16(6, 4, true);
    v.setInt32(8, 0, true);
    v.setUint32(12, 0, true);
    v.setUint32(16, PCAP_OUT_SNAPLEN, true);
    v.setUint32(20, 1, true);
    this.len = 24;
  }

  /** EmitSink: appends one record (copies the bytes). */
  emit(bytes: Uint8Array, length: number, timestampMs: number, wireLength: number): void {
    if (this.fd < 0) return;
    const n = length > PCAP_OUT_SNAPLEN ? PCAP_OUT_SNAPLEN : length;
    if (this.len + 16 + n > BUF) this.flush();
    const ts = timestampMs + this.offsetMs;
    let sec = Math.floor(ts / 1000);
    let usec = Math.floor((ts - sec * 1000) * 1000);
    if (!(sec >= 0)) {
      sec = 0;
      usec = 0;
    } else if (sec > 0xffffffff) {
      sec = 0xffffffff;
      usec = 0;
    }
    if (usec > 999_999) usec = 999_999;
    const v = this.view;
    const o = this.len;
    v.setUint32(o, sec, true);
    v.setUint32(o + 4, usec, true);
    v.setUint32(o + 8, n, true);
    v.setUint32(o + 12, wireLength > n ? wireLength : n, true);
    if (n > BUF - 16) {
      // a frame larger than the buffer (never for n ≤ 256 KiB with a 1 MiB buffer): write it through
      this.len += 16;
      this.flush();
      this.bytesWritten += writeSync(this.fd, bytes, 0, n);
    } else {
      this.buf.set(bytes.subarray(0, n), o + 16);
      this.len = o + 16 + n;
    }
    this.frames++;
  }

  /** Writes the buffered bytes. @throws node:fs write errors */
  flush(): void {
    let off = 0;
    while (off < this.len) off += writeSync(this.fd, this.buf, off, this.len - off);
    this.bytesWritten += this.len;
    this.len = 0;
  }

  /** Flushes and closes the file (idempotent). @throws node:fs write errors */
  close(): void {
    if (this.fd < 0) return;
    try {
      this.flush();
    } finally {
      closeSync(this.fd);
      this.fd = -1;
    }
  }
}
