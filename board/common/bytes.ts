/**
 * Bounds-checked cursor over a Buffer, for control-plane codecs (IPMI, sync messages, config
 * blobs). Every read checks the bounds first and throws DecodeError(layer, field, offset) — never
 * reads outside the view. Packet hot paths do not use this class (they read at explicit offsets
 * into a reused result object, see board/packet); it allocates one object per message.
 * Endianness is in the method name: IPMI is little-endian, RMCP/ASF and IP are big-endian.
 */
import { DecodeError } from './errors.ts';

export class ByteReader {
  /** Current offset into `buf`. */
  pos: number;

  /**
   * @param buf   the bytes (not copied)
   * @param layer name used in DecodeError messages
   * @param start first byte to read (default 0)
   * @param end   one past the last readable byte (default buf.length)
   */
  constructor(
    readonly buf: Uint8Array,
    readonly layer: string,
    start = 0,
    readonly end = buf.length,
  ) {
    this.pos = start;
  }

  get remaining(): number {
    return this.end - this.pos;
  }

  /** @throws DecodeError when fewer than n bytes remain. */
  need(n: number, field: string): void {
    if (n < 0 || this.pos + n > this.end) {
      throw new DecodeError(this.layer, field, this.pos, `need ${n} bytes, have ${Math.max(0, this.end - this.pos)}`);
    }
  }

  u8(field: string): number {
    this.need(1, field);
    return this.buf[this.pos++]!;
  }

  u16le(field: string): number {
    this.need(2, field);
    const v = this.buf[this.pos]! | (this.buf[this.pos + 1]! << 8);
    this.pos += 2;
    return v;
  }

  u16be(field: string): number {
    this.need(2, field);
    const v = (this.buf[this.pos]! << 8) | this.buf[this.pos + 1]!;
    this.pos += 2;
    return v;
  }

  u32le(field: string): number {
    this.need(4, field);
    const b = this.buf;
    const p = this.pos;
    this.pos += 4;
    return (b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16) | (b[p + 3]! << 24)) >>> 0;
  }

  u32be(field: string): number {
    this.need(4, field);
    const b = this.buf;
    const p = this.pos;
    this.pos += 4;
    return ((b[p]! << 24) | (b[p + 1]! << 16) | (b[p + 2]! << 8) | b[p + 3]!) >>> 0;
  }

  /** A view (no copy) of the next n bytes. */
  bytes(n: number, field: string): Uint8Array {
    this.need(n, field);
    const v = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return v;
  }

  /** A view of everything left. */
  rest(): Uint8Array {
    const v = this.buf.subarray(this.pos, this.end);
    this.pos = this.end;
    return v;
  }
}

/** Growable writer for control-plane messages. */
export class ByteWriter {
  private buf: Buffer;
  length = 0;

  constructor(initial = 64) {
    this.buf = Buffer.alloc(initial);
  }

  private room(n: number): void {
    if (this.length + n <= this.buf.length) return;
    const next = Buffer.alloc(Math.max(this.buf.length * 2, this.length + n));
    this.buf.copy(next, 0, 0, this.length);
    this.buf = next;
  }

  u8(v: number): this {
    this.room(1);
    this.buf[this.length++] = v & 0xff;
    return this;
  }

  u16le(v: number): this {
    this.room(2);
    this.buf.writeUInt16LE(v & 0xffff, this.length);
    this.length += 2;
    return this;
  }

  u16be(v: number): this {
    this.room(2);
    this.buf.writeUInt16BE(v & 0xffff, this.length);
    this.length += 2;
    return this;
  }

  u32le(v: number): this {
    this.room(4);
    this.buf.writeUInt32LE(v >>> 0, this.length);
    this.length += 4;
    return this;
  }

  u32be(v: number): this {
    this.room(4);
    this.buf.writeUInt32BE(v >>> 0, this.length);
    this.length += 4;
    return this;
  }

  bytes(b: Uint8Array): this {
    this.room(b.length);
    this.buf.set(b, this.length);
    this.length += b.length;
    return this;
  }

  /** A copy of what was written. */
  toBuffer(): Buffer {
    return Buffer.from(this.buf.subarray(0, this.length));
  }
}
