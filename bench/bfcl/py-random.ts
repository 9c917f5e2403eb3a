// CPython's `random.Random(int)`: MT19937 seeded through init_by_array, with the
// `getrandbits`, `randint` (via `randbelow`), `random` and `uniform` that the BFCL
// environments use. Written from the algorithm's published description; checked against
// values printed by CPython 3.11 (test/bench/bfcl.test.ts).
const N = 624;
const M = 397;

export class PyRandom {
  private readonly mt = new Uint32Array(N);
  private index = N + 1;

  constructor(seed: number) {
    // An int seed: its absolute value as 32-bit words, least significant first.
    let rest = BigInt(Math.abs(Math.trunc(seed)));
    const key: number[] = [];
    while (rest > 0n) {
      key.push(Number(rest & 0xffffffffn));
      rest >>= 32n;
    }
    if (key.length === 0) key.push(0);
    this.initByArray(key);
  }

  private initGenrand(s: number): void {
    const mt = this.mt;
    const g = (i: number): number => mt[i] ?? 0;
    mt[0] = s >>> 0;
    for (let i = 1; i < N; i++) {
      const prev = g(i - 1) ^ (g(i - 1) >>> 30);
      mt[i] = (Math.imul(1812433253, prev) + i) >>> 0;
    }
    this.index = N;
  }

  private initByArray(key: readonly number[]): void {
    const mt = this.mt;
    const g = (i: number): number => mt[i] ?? 0;
    this.initGenrand(19650218);
    let i = 1;
    let j = 0;
    for (let k = Math.max(N, key.length); k > 0; k--) {
      const prev = g(i - 1) ^ (g(i - 1) >>> 30);
      mt[i] = ((g(i) ^ Math.imul(prev, 1664525)) + (key[j] ?? 0) + j) >>> 0;
      i++;
      j++;
      if (i >= N) {
        mt[0] = g(N - 1);
        i = 1;
      }
      if (j >= key.length) j = 0;
    }
    for (let k = N - 1; k > 0; k--) {
      const prev = g(i - 1) ^ (g(i - 1) >>> 30);
      mt[i] = ((g(i) ^ Math.imul(prev, 1566083941)) - i) >>> 0;
      i++;
      if (i >= N) {
        mt[0] = g(N - 1);
        i = 1;
      }
    }
    mt[0] = 0x80000000;
  }

  /** The next 32-bit output. */
  next32(): number {
    const mt = this.mt;
    const g = (i: number): number => mt[i] ?? 0;
    if (this.index >= N) {
      for (let k = 0; k < N; k++) {
        const y = (g(k) & 0x80000000) | (g((k + 1) % N) & 0x7fffffff);
        mt[k] = g((k + M) % N) ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      this.index = 0;
    }
    let y = g(this.index++);
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  getrandbits(k: number): bigint {
    if (k <= 0) return 0n;
    if (k <= 32) return BigInt(this.next32() >>> (32 - k));
    let result = 0n;
    let shift = 0n;
    for (let left = k; left > 0; left -= 32) {
      let word = this.next32();
      if (left < 32) word >>>= 32 - left;
      result |= BigInt(word) << shift;
      shift += 32n;
    }
    return result;
  }

  private randbelow(n: bigint): bigint {
    const k = n.toString(2).length;
    let r = this.getrandbits(k);
    while (r >= n) r = this.getrandbits(k);
    return r;
  }

  /** `randint(a, b)`, both ends included. */
  randint(a: number, b: number): number {
    return a + Number(this.randbelow(BigInt(b - a + 1)));
  }

  /** `random()`: 53 random bits in [0, 1). */
  random(): number {
    const a = this.next32() >>> 5;
    const b = this.next32() >>> 6;
    return (a * 67108864 + b) / 9007199254740992;
  }

  uniform(a: number, b: number): number {
    return a + (b - a) * this.random();
  }
}
