/**
 * Seeded pseudo-random numbers for the core (schedulers' tie-breaks, simulated RS, chaos
 * schedules, fuzzing). Nothing in the core calls Math.random: the composition root hands a
 * `Random` down through the Platform, so every simulated run reproduces from its seed.
 *
 * Algorithm: xoshiro128** (Blackman & Vigna, 2018) seeded through splitmix32; 32-bit state words.
 */
export interface Random {
  /** Uniform float in [0, 1). */
  next(): number;
  /** Uniform integer in [0, n) for 1 <= n <= 2^32. */
  int(n: number): number;
  /** Uniform 32-bit unsigned integer. */
  u32(): number;
}

export class SeededRandom implements Random {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;

  /** @param seed any integer; the same seed gives the same sequence on every platform. */
  constructor(seed: number) {
    let x = seed >>> 0;
    const sm = (): number => {
      x = (x + 0x9e3779b9) >>> 0;
      let z = x;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.s0 = sm();
    this.s1 = sm();
    this.s2 = sm();
    this.s3 = sm();
    if ((this.s0 | this.s1 | this.s2 | this.s3) === 0) this.s0 = 1;
  }

  u32(): number {
    const result = Math.imul(rotl(Math.imul(this.s1, 5) >>> 0, 7), 9) >>> 0;
    const t = (this.s1 << 9) >>> 0;
    this.s2 = (this.s2 ^ this.s0) >>> 0;
    this.s3 = (this.s3 ^ this.s1) >>> 0;
    this.s1 = (this.s1 ^ this.s2) >>> 0;
    this.s0 = (this.s0 ^ this.s3) >>> 0;
    this.s2 = (this.s2 ^ t) >>> 0;
    this.s3 = rotl(this.s3, 11);
    return result;
  }

  next(): number {
    return this.u32() / 4294967296;
  }

  int(n: number): number {
    return Math.floor(this.next() * n);
  }
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}
