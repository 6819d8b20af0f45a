import { describe, expect, it } from 'vitest';
import { parseTime, parseTimeRange } from '../../src/core/text/time';
import { AppError } from '../../src/shared/errors';

const now = Date.UTC(2026, 2, 14, 12, 0, 0);

describe('parseTime', () => {
  it('reads ages back from now', () => {
    expect(parseTime('30m', '--since', now)).toBe(now - 30 * 60_000);
    expect(parseTime('12h', '--since', now)).toBe(now - 12 * 3_600_000);
    expect(parseTime('7d', '--since', now)).toBe(now - 7 * 86_400_000);
    expect(parseTime('2w', '--since', now)).toBe(now - 14 * 86_400_000);
    expect(parseTime(' 7D ', '--since', now)).toBe(now - 7 * 86_400_000);
  });

  it('reads a day as UTC midnight and ISO date-times with their zone', () => {
    expect(parseTime('2026-03-01', '--until', now)).toBe(Date.UTC(2026, 2, 1));
    expect(parseTime('2026-03-01T09:30:00Z', '--until', now)).toBe(Date.UTC(2026, 2, 1, 9, 30));
    expect(parseTime('2026-03-01T09:30:00+02:00', '--until', now)).toBe(Date.UTC(2026, 2, 1, 7, 30));
  });

  it('reads epoch ms as digits or a number', () => {
    expect(parseTime('1773489600000', 'since', now)).toBe(1773489600000);
    expect(parseTime(1773489600000.7, 'since', now)).toBe(1773489600000);
    expect(parseTime(0, 'since', now)).toBe(0);
  });

  it('gives undefined for no value', () => {
    expect(parseTime(undefined, 'since', now)).toBeUndefined();
    expect(parseTime(null, 'since', now)).toBeUndefined();
    expect(parseTime('  ', 'since', now)).toBeUndefined();
  });

  it('refuses anything else with an Invalid error naming the option', () => {
    for (const bad of ['yesterday', '7 days', '7y', '2026-13-45', 'March 3', '-5']) {
      let err: unknown;
      try {
        parseTime(bad, '--older-than', now);
      } catch (e) {
        err = e;
      }
      expect(err, bad).toBeInstanceOf(AppError);
      expect((err as AppError).kind).toBe('Invalid');
      expect((err as AppError).message).toMatch(/^--older-than: /);
    }
    expect(() => parseTime(-1, 'since', now)).toThrow(/since: expected a time/);
    expect(() => parseTime(Number.NaN, 'since', now)).toThrow(/since/);
  });
});

describe('parseTimeRange', () => {
  it('parses both ends and refuses a range that ends before it starts', () => {
    expect(parseTimeRange({ since: '7d', until: '2026-03-14' }, now)).toEqual({
      since: now - 7 * 86_400_000,
      until: Date.UTC(2026, 2, 14),
    });
    expect(parseTimeRange({}, now)).toEqual({ since: undefined, until: undefined });
    expect(() => parseTimeRange({ since: '1d', until: '2d' }, now, { since: '--since', until: '--until' })).toThrow(
      /--since: must be before --until/,
    );
  });
});
