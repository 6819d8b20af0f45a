import { encodeTime } from 'ulid';

/** A small seeded PRNG (mulberry32): the demo must be byte-for-byte reproducible for a seed. */
export interface Rng {
  next(): number;
  int(maxExclusive: number): number;
  range(min: number, maxInclusive: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
}

function hashSeed(seed: string | number): number {
  const text = String(seed);
  let h = 2166136261 >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 16777619) >>> 0;
  }
  return h;
}

export function createRng(seed: string | number): Rng {
  let state = hashSeed(seed);
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n) => Math.floor(next() * n),
    range: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => items[Math.floor(next() * items.length)]!, // next() < 1; callers pick from non-empty lists
    chance: (p) => next() < p,
  };
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** ULIDs whose time part is the row's own time and whose random part comes from the seeded PRNG. */
export function seededUlidFactory(rng: Rng): (time: number) => string {
  return (time) => {
    let random = '';
    for (let i = 0; i < 16; i++) random += CROCKFORD[Math.floor(rng.next() * 32)];
    return encodeTime(time, 10) + random;
  };
}
