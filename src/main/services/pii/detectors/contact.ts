import { findPhoneNumbersInText, isValidPhoneNumber, type CountryCode } from 'libphonenumber-js/max';
import type { PiiSpan } from '../types';
import { hasLookalikeContext, isAsciiWordAt, makeSpan } from '../util';

// Local part per RFC 5322 "atext" plus dots; domain labels incl. punycode; TLD of letters or xn--.
const EMAIL =
  /[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+(?:[A-Za-z]{2,63}|xn--[A-Za-z0-9-]{2,59})(?![A-Za-z0-9-])/g;

export function detectEmails(text: string): PiiSpan[] {
  const out: PiiSpan[] = [];
  for (const m of text.matchAll(EMAIL)) {
    let start = m.index;
    // Quotes and backticks are legal atext but in prose they wrap the address.
    while (start < m.index + m[0].length && /['`{|}]/.test(text[start])) start++;
    out.push(makeSpan(text, 'EMAIL', start, m.index + m[0].length, 0.9, 'pattern:email'));
  }
  return out;
}

/**
 * Regions tried as the default country. US first (most English national formats); the others only
 * count when the number is written nationally with its trunk prefix (0...), which keeps a random
 * digit run from being read as, say, a German number.
 */
const TRUNK_REGIONS: CountryCode[] = ['GB', 'DE', 'IL', 'IN', 'BR', 'JP', 'FR', 'IT', 'AU'];

const DIGITS_7 = /\d(?:[^\d\n]{0,3}\d){6}/;

export function detectPhones(text: string): PiiSpan[] {
  if (!DIGITS_7.test(text)) return [];
  const out: PiiSpan[] = [];
  const seen = new Set<string>();
  const add = (start: number, end: number, confidence: number, detector: string) => {
    const key = `${start}:${end}`;
    if (seen.has(key)) return;
    if (isAsciiWordAt(text, start - 1) || isAsciiWordAt(text, end)) return;
    if (hasLookalikeContext(text, start)) return;
    seen.add(key);
    out.push(makeSpan(text, 'PHONE', start, end, confidence, detector));
  };

  for (const f of findPhoneNumbersInText(text, { defaultCountry: 'US' })) {
    add(f.startsAt, f.endsAt, 0.75, 'libphonenumber');
  }
  // China: mobiles 1[3-9]x written nationally, landlines with their 0 area code, or international.
  for (const f of findPhoneNumbersInText(text, { defaultCountry: 'CN' })) {
    const raw = text.slice(f.startsAt, f.endsAt);
    const nationalMobile = /^1[3-9]\d/.test(raw);
    const trunk = /^\(?0/.test(raw);
    if (raw.startsWith('+') || nationalMobile || trunk) add(f.startsAt, f.endsAt, 0.75, 'libphonenumber');
  }
  if (/(?:^|[^\d])\(?0\d/.test(text)) {
    for (const region of TRUNK_REGIONS) {
      for (const f of findPhoneNumbersInText(text, { defaultCountry: region })) {
        const raw = text.slice(f.startsAt, f.endsAt);
        if (raw.startsWith('+') || /^\(?0/.test(raw)) add(f.startsAt, f.endsAt, 0.7, 'libphonenumber');
      }
    }
  }
  out.push(...detectChineseFallback(text, seen));
  return out;
}

// Mainland area codes: 010, 02x, then 0 + three digits not starting with 0/1/2.
const CN_LANDLINE = /(?<![\d])(?:\((0(?:10|2\d|[3-9]\d{2}))\)|(0(?:10|2\d|[3-9]\d{2})))[- ]?(\d{7,8})(?!\d)/g;
const CN_MOBILE = /(?<![\d+])(?:(?:\+|00)?86[- ]?)?(1[3-9]\d(?:[- ]?\d{4}){2})(?!\d)/g;

/** Formats libphonenumber rejects but people write (7-digit numbers behind a 4-digit area code). */
function detectChineseFallback(text: string, seen: Set<string>): PiiSpan[] {
  const out: PiiSpan[] = [];
  const push = (start: number, end: number, confidence: number, detector: string) => {
    if (seen.has(`${start}:${end}`)) return;
    if (isAsciiWordAt(text, start - 1) || isAsciiWordAt(text, end)) return;
    if (hasLookalikeContext(text, start)) return;
    out.push(makeSpan(text, 'PHONE', start, end, confidence, detector));
  };
  for (const m of text.matchAll(CN_LANDLINE)) push(m.index, m.index + m[0].length, 0.6, 'pattern:cn-landline');
  for (const m of text.matchAll(CN_MOBILE)) {
    const digits = m[1].replace(/\D/g, '');
    if (isValidPhoneNumber(digits, 'CN')) push(m.index, m.index + m[0].length, 0.7, 'pattern:cn-mobile');
  }
  return out;
}
