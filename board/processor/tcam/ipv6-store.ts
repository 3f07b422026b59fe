/**
 * The session table's IPv6 side store (board/processor/tcam/session-table.ts): the two 16-byte
 * addresses of an IPv6 key, as 8 words (A then B, big-endian), in a slot whose number the
 * entry's A word holds. Slots are grown in chunks of 4096 as IPv6 sessions appear (IPv4-only
 * traffic never allocates any) and reused through a free stack. 36 bytes per IPv6 entry.
 */

const V6_CHUNK_BITS = 12;
const V6_CHUNK = 1 << V6_CHUNK_BITS;

/** Address pairs of IPv6 keys, 8 int32 words per slot. */
export class Ipv6Store {
  private readonly chunks: Int32Array[] = [];
  private free = new Int32Array(0);
  private freeCount = 0;
  private top = 0;

  /** A slot for a new IPv6 key (a freed one first). */
  alloc(): number {
    if (this.freeCount > 0) return this.free[--this.freeCount]!;
    if (this.top === this.chunks.length * V6_CHUNK) {
      this.chunks.push(new Int32Array(V6_CHUNK * 8));
      const grown = new Int32Array(this.chunks.length * V6_CHUNK);
      grown.set(this.free.subarray(0, this.freeCount));
      this.free = grown;
    }
    return this.top++;
  }

  /** Returns a slot to the free stack. */
  release(slot: number): void {
    this.free[this.freeCount++] = slot;
  }

  /** Stores the 8 key words `kw` in `slot`. */
  write(slot: number, kw: Int32Array): void {
    this.chunks[slot >>> V6_CHUNK_BITS]!.set(kw, (slot & (V6_CHUNK - 1)) << 3);
  }

  /** True when `slot` holds exactly the 8 key words `kw`. */
  equals(slot: number, kw: Int32Array): boolean {
    const c = this.chunks[slot >>> V6_CHUNK_BITS]!;
    const o = (slot & (V6_CHUNK - 1)) << 3;
    for (let i = 0; i < 8; i++) if (c[o + i] !== kw[i]) return false;
    return true;
  }

  /** Word i (0 … 7: A's four words, then B's) of `slot`. */
  word(slot: number, i: number): number {
    return this.chunks[slot >>> V6_CHUNK_BITS]![((slot & (V6_CHUNK - 1)) << 3) + i]!;
  }

  /** Bytes of the store (chunks and free stack). */
  bytes(): number {
    let b = this.free.byteLength;
    for (const c of this.chunks) b += c.byteLength;
    return b;
  }
}
