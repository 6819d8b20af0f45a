// The one parser for times given by a person: CLI options (--since, --until, --older-than) and service inputs.
// Logs' own timestamps are not parsed here: importers read them leniently and skip what they cannot read.
import { AppError } from '../../shared/errors';

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;
const RELATIVE = /^(\d+)\s*([smhdw])$/i;
const DAY_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/;
const HELP = 'use an ISO date like 2026-03-14, an ISO time like 2026-03-14T09:30:00Z, ms since epoch, or an age like 30m, 12h, 7d, 2w';

/**
 * A moment in ms since epoch, or undefined when no value was given. Accepts epoch ms (number or digits),
 * a YYYY-MM-DD day (UTC midnight), an ISO 8601 date-time (no zone = local time, as Date.parse reads it),
 * or an age back from `now` ("30m", "12h", "7d", "2w"). Anything else is an `Invalid` error naming `option`.
 */
export function parseTime(value: string | number | null | undefined, option: string, now: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) throw new AppError('Invalid', `${option}: expected a time, got ${value} (${HELP})`);
    return Math.floor(value);
  }
  const text = value.trim();
  if (text === '') return undefined;
  if (/^\d+$/.test(text)) return Number(text);
  const rel = RELATIVE.exec(text);
  if (rel) return now - Number(rel[1]) * UNIT_MS[(rel[2] ?? '').toLowerCase() as keyof typeof UNIT_MS]; // RELATIVE captures amount and unit
  if (DAY_ONLY.test(text) || DATE_TIME.test(text)) {
    const ms = Date.parse(DAY_ONLY.test(text) ? `${text}T00:00:00Z` : text);
    if (Number.isFinite(ms) && ms >= 0) return ms;
  }
  throw new AppError('Invalid', `${option}: "${text}" is not a time (${HELP})`);
}

/** Both ends of a range, checked to be in order; either may be open. */
export function parseTimeRange(
  range: { since?: string | number | null; until?: string | number | null },
  now: number,
  names: { since: string; until: string } = { since: 'since', until: 'until' },
): { since: number | undefined; until: number | undefined } {
  const since = parseTime(range.since, names.since, now);
  const until = parseTime(range.until, names.until, now);
  if (since !== undefined && until !== undefined && since >= until)
    throw new AppError('Invalid', `${names.since}: must be before ${names.until}`);
  return { since, until };
}
