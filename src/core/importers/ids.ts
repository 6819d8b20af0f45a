import { createHash, hash } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

export function hashOf(...parts: Array<string | number>): string {
  const h = createHash('sha256');
  for (const p of parts) h.update(String(p)).update('\u0000');
  return h.digest('hex');
}

/**
 * A ULID whose time part is the event time and whose random part is a hash of where the event
 * came from: importing the same line twice yields the same id, and ids still sort by time like
 * the recorder's own.
 */
export function sourceUlid(time: number, ...source: Array<string | number>): string {
  let t = Math.max(0, Math.min(Math.floor(time), 2 ** 48 - 1));
  let timePart = '';
  for (let i = 0; i < 10; i++) {
    timePart = CROCKFORD[t % 32] + timePart;
    t = Math.floor(t / 32);
  }
  // One-shot: a Hash object per turn cost more than the digest itself.
  const digest = hash('sha256', source.map(String).join('\u0000'), 'buffer');
  let randomPart = '';
  for (let i = 0; i < 16; i++) randomPart += CROCKFORD[digest[i]! % 32]; // a SHA-256 digest has 32 bytes
  return timePart + randomPart;
}

export function parseTime(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return Math.floor(value);
  if (typeof value === 'string' && value) {
    const t = Date.parse(value);
    if (Number.isFinite(t) && t >= 0) return t;
  }
  return undefined;
}
