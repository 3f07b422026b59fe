/**
 * A pcap file written packet by packet (the processor boards' `--out FILE.pcap`): the pure
 * encoder of board/packet/pcap-writer.ts plus one fixed buffer (1 MiB by default) flushed with
 * fs.writeSync. Bounded memory whatever the packet count; call `close()` to flush the tail.
 *
 * Errors: node:fs errors from open/write (ENOENT for a missing directory, EACCES…); RangeError
 * for bad encoder options (see PcapEncoder).
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { PcapEncoder, msToSecNsec, type PcapEncoderOptions } from '../../board/packet/pcap-writer.ts';

export interface PcapFileSinkOptions extends PcapEncoderOptions {
  /** Write buffer, bytes (default 1 MiB). */
  bufferSize?: number;
}

export class PcapFileSink {
  readonly encoder: PcapEncoder;
  private fd: number;
  private readonly buf: Uint8Array;
  private used = 0;
  /** Records written. */
  packets = 0;
  /** Bytes written to the file so far (header included), flushed or buffered. */
  bytes = 0;

  /** Creates (or truncates) `path` and writes the file header. */
  constructor(
    readonly path: string,
    opts: PcapFileSinkOptions = {},
  ) {
    this.encoder = new PcapEncoder(opts);
    this.buf = new Uint8Array(Math.max(opts.bufferSize ?? 1 << 20, this.encoder.recordLength(this.encoder.snaplen)));
    this.fd = openSync(path, 'w');
    this.buf.set(this.encoder.header, 0);
    this.used = this.encoder.header.length;
    this.bytes = this.used;
  }

  /**
   * Appends one packet.
   * @param frame  the frame's bytes (frame[start, start + len))
   * @param tsSec  seconds since the epoch; @param tsNsec nanoseconds within the second
   * @param origLen length on the wire (default len)
   * @throws Error when the sink is closed; node:fs write errors
   */
  write(frame: Uint8Array, tsSec: number, tsNsec: number, origLen = frame.length, start = 0, len = frame.length - start): void {
    if (this.fd < 0) throw new Error(`pcap sink ${this.path} is closed`);
    const need = this.encoder.recordLength(len);
    if (this.used + need > this.buf.length) this.flush();
    this.used = this.encoder.encodeRecord(this.buf, this.used, frame, start, len, origLen, tsSec, tsNsec);
    this.packets++;
    this.bytes += need;
  }

  /** Appends one packet stamped with a millisecond time (a Clock reading). */
  writeAtMs(frame: Uint8Array, ms: number, origLen = frame.length): void {
    const t = msToSecNsec(ms);
    this.write(frame, t.sec, t.nsec, origLen);
  }

  /** Writes the buffered records to the file. */
  flush(): void {
    let off = 0;
    while (off < this.used) off += writeSync(this.fd, this.buf, off, this.used - off);
    this.used = 0;
  }

  /** Flushes and closes the file (idempotent). */
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
