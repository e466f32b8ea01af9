/**
 * A small seeded pseudo-random generator (mulberry32) with the picks randomized tests need. The
 * same seed gives the same sequence, so a failing run replays exactly from its seed.
 */
export class SeededRandom {
  private state: number;

  readonly seed: number;

  constructor(seed: number) {
    this.seed = seed;
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** An integer in [min, max]. */
  between(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  /** A child generator with its own sequence (for work that runs concurrently). */
  fork(): SeededRandom {
    return new SeededRandom(this.int(2 ** 32));
  }
}
