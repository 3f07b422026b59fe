/**
 * Capture files from disk, streamed with bounded memory: one fixed read buffer (1 MiB by default)
 * filled with fs.readSync and fed to the pure push parser (board/packet/capture-reader.ts);
 * records straddling two reads are assembled by the reader's carry buffer. Files of any size,
 * never a whole-file read. Synchronous, so a replay loop can run millions of packets per second.
 *
 * Two shapes:
 * - `forEachPacket(path, onPacket, opts)`: the whole file (optionally N times), stop early by
 *   returning false from `onPacket`.
 * - `CaptureFileReader`: a resumable pump for paced replay (`pump()` runs until the handler
 *   pauses or the file ends; `rewind()` starts over for looping).
 *
 * Errors: fs errors (ENOENT, EACCES, EISDIR…) as thrown by node:fs; DecodeError for a file that
 * is not a capture, is refused, is corrupt or is cut short — thrown after every packet before
 * the problem was delivered (the message names the byte offset).
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { CaptureReader, type CaptureFormat, type CaptureHandler } from '../../board/packet/capture-reader.ts';
import type { CaptureInterface, CaptureRecord } from '../../board/packet/capture-record.ts';

/** Default read size, bytes. */
export const DEFAULT_CHUNK_SIZE = 1 << 20;

export interface CaptureFileOptions {
  /** Read buffer size in bytes (default 1 MiB; minimum 64). */
  chunkSize?: number;
  /** Called for the pcap header / each pcapng IDB, before its packets. */
  onInterface?: (iface: CaptureInterface) => void;
  /** Called once the format is recognised and its first header accepted. */
  onStart?: (format: CaptureFormat) => void;
}

/** Pull-style reader over one capture file (for paced replay and looping). */
export class CaptureFileReader {
  private fd: number;
  private readonly buf: Uint8Array;
  private pos = 0;
  private len = 0;
  private reader!: CaptureReader;
  private eof = false;
  /** Bytes read from the file in the current pass. */
  bytesRead = 0;

  /**
   * @param path    capture file
   * @param handler receives the packets; `packet` may return false to pause `pump()`
   * @throws node:fs errors when the file cannot be opened
   */
  constructor(
    readonly path: string,
    private readonly handler: CaptureHandler,
    opts: Pick<CaptureFileOptions, 'chunkSize'> = {},
  ) {
    const size = Math.max(64, opts.chunkSize ?? DEFAULT_CHUNK_SIZE);
    this.buf = new Uint8Array(size);
    this.fd = openSync(path, 'r');
    this.reset();
  }

  private reset(): void {
    this.reader = new CaptureReader(this.handler);
    this.pos = 0;
    this.len = 0;
    this.eof = false;
    this.bytesRead = 0;
  }

  /** The push parser of the current pass (format, packet count, offset). */
  get capture(): CaptureReader {
    return this.reader;
  }

  /** True once the current pass reached the end of the file. */
  get done(): boolean {
    return this.eof;
  }

  /**
   * Delivers packets until the handler pauses (returns false) or the file ends.
   * @returns 'paused' (call again to go on) or 'eof'
   * @throws DecodeError for a refused, corrupt or cut-short file; node:fs read errors
   */
  pump(): 'paused' | 'eof' {
    if (this.eof) return 'eof';
    const r = this.reader;
    if (r.isPaused) r.resume();
    for (;;) {
      if (this.pos < this.len) {
        this.pos = r.push(this.buf, this.pos, this.len);
        if (r.isPaused) return 'paused';
        if (r.isStopped) {
          this.eof = true;
          return 'eof';
        }
      }
      const n = readSync(this.fd, this.buf, 0, this.buf.length, null);
      if (n === 0) {
        this.eof = true;
        r.end();
        return 'eof';
      }
      this.bytesRead += n;
      this.pos = 0;
      this.len = n;
    }
  }

  /** Starts the file over (next pass of a looping replay). */
  rewind(): void {
    closeSync(this.fd);
    this.fd = openSync(this.path, 'r');
    this.reset();
  }

  /** Closes the file descriptor. */
  close(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }
}

export interface ForEachOptions extends CaptureFileOptions {
  /** Passes over the file (default 1). */
  loops?: number;
}

export interface ForEachResult {
  /** Packets delivered, all passes. */
  packets: number;
  /** Passes started. */
  loops: number;
  /** True when `onPacket` returned false. */
  stoppedEarly: boolean;
  format: CaptureFormat | null;
}

/**
 * Calls `onPacket` for every packet of the file (`opts.loops` times). The record is reused and
 * its bytes (`rec.buf[rec.offset, rec.offset + rec.caplen)`) are valid during the call only.
 * Return false from `onPacket` to stop.
 * @param onPacket receives the record and the pass index (0-based)
 * @throws DecodeError / node:fs errors as described in the module comment (after delivering
 *   every packet before the problem)
 */
export function forEachPacket(path: string, onPacket: (rec: CaptureRecord, loop: number) => boolean | void, opts: ForEachOptions = {}): ForEachResult {
  const loops = Math.max(1, Math.floor(opts.loops ?? 1));
  let loop = 0;
  let packets = 0;
  let stopped = false;
  const handler: CaptureHandler = {
    packet: (rec) => {
      packets++;
      if (onPacket(rec, loop) === false) {
        stopped = true;
        return false;
      }
      return true;
    },
    interface: opts.onInterface,
    start: opts.onStart,
  };
  const file = new CaptureFileReader(path, handler, opts);
  let format: CaptureFormat | null = null;
  try {
    for (loop = 0; loop < loops; loop++) {
      if (loop > 0) file.rewind();
      file.pump();
      format = file.capture.format;
      if (stopped) return { packets, loops: loop + 1, stoppedEarly: true, format };
    }
    return { packets, loops, stoppedEarly: false, format };
  } finally {
    file.close();
  }
}
