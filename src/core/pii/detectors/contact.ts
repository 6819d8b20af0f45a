import { findPhoneNumbersInText, isValidPhoneNumber, type CountryCode } from 'libphonenumber-js/max';
import type { PiiSpan } from '../types';
import { allMatches, followedByStreet, hasDigits, hasLookalikeContext, isAsciiWordAt, makeSpan } from '../util';

// Local part per RFC 5322 "atext" plus dots; domain labels incl. punycode; TLD of letters or xn--.
// Matching starts from each "@" so that long runs without one cost linear time.
const LOCAL_CHAR = /[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]/;
const DOMAIN = /(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.){1,10}(?:[A-Za-z]{2,63}|xn--[A-Za-z0-9-]{2,59})(?![A-Za-z0-9-])/y;

export function detectEmails(text: string): PiiSpan[] {
  const out: PiiSpan[] = [];
  let lastEnd = 0;
  for (let at = text.indexOf('@'); at >= 0; at = text.indexOf('@', at + 1)) {
    let start = at;
    while (start > lastEnd && at - start < 64 && LOCAL_CHAR.test(text[start - 1] ?? '')) start--;
    // Dots may not lead; quotes, braces and pipes are legal atext but in prose they wrap the address.
    while (start < at && /[.'`{|}]/.test(text[start] ?? '')) start++;
    if (start === at || text[at - 1] === '.' || text.slice(start, at).includes('..')) continue;
    DOMAIN.lastIndex = at + 1;
    const m = DOMAIN.exec(text);
    if (!m) continue;
    if (!/[A-Za-z0-9]/.test(text.slice(start, at))) continue; // "****@example.com" is a masked URL password
    const end = at + 1 + m[0].length;
    out.push(makeSpan(text, 'EMAIL', start, end, 0.9, 'pattern:email'));
    lastEnd = end;
  }
  return out;
}

/**
 * Regions tried as the default country. US first (most English national formats); the others only
 * count when the number is written nationally with its trunk prefix (0...), which keeps a random
 * digit run from being read as, say, a German number.
 */
const TRUNK_REGIONS: CountryCode[] = ['GB', 'DE', 'IL', 'IN', 'BR', 'JP', 'FR', 'IT', 'AU'];

// US social security (123-45-6789) and Korean resident numbers (123456-1234567) have phone-like digits.
const NOT_PHONE_SHAPES = /^(?:\d{3}-\d{2}-\d{4}|\d{6}-\d{7})$/;

/** Rejects numbers glued to letters, continuing with more groups (MAC addresses), or introduced as something else. */
function plausiblePhoneSpan(text: string, start: number, end: number): boolean {
  if (isAsciiWordAt(text, start - 1) || isAsciiWordAt(text, end)) return false;
  if (
    /^[-.:][0-9A-Fa-f]{1,4}\b/.test(text.slice(end, end + 6)) ||
    /\b[0-9A-Fa-f]{1,4}[-.:]$/.test(text.slice(Math.max(0, start - 6), start))
  )
    return false;
  if (NOT_PHONE_SHAPES.test(text.slice(start, end))) return false;
  // Inside a URL path or query ("/item/4155550132", "?id=...") or a key ("telegram:direct:7192195698") a number
  // is an identifier, unless the key says phone ("tel:", "phone=").
  const before = text.slice(Math.max(0, start - 12), start);
  if ((/[/=?&#]$/.test(before) || /\w:$/.test(before)) && !/(?:tel|phone|mobile|cell|fax|电话|手机)\s*[=:]$/i.test(before)) return false;
  return !hasLookalikeContext(text, start) && !followedByStreet(text, end);
}

// Runs of digits and the punctuation phone numbers are written with.
const NUMBER_RUN = /[+(（]?\d(?:[\d \t().\-–/]|x(?=\d)|ext\.?\s?(?=\d)){5,}/gi;
const WINDOW_MARGIN = 24;

interface NumberWindow {
  start: number;
  end: number;
  /** Some run inside starts with a trunk 0: worth asking the regions that write numbers that way. */
  trunk: boolean;
  /** Where the digits of each run inside start and end. */
  runs: { start: number; end: number }[];
}

/**
 * libphonenumber scans the whole text and slows down quadratically on long digit runs; feeding it
 * small windows around each plausible run keeps detection linear. A run longer than any phone number
 * (a table of digits) is left to the context detector.
 */
function numberWindows(text: string): NumberWindow[] {
  const windows: NumberWindow[] = [];
  for (const m of allMatches(NUMBER_RUN, text)) {
    if (m[0].length > 48 || (m[0].match(/\d/g)?.length ?? 0) < 7) continue;
    const start = Math.max(0, m.index - WINDOW_MARGIN);
    const end = Math.min(text.length, m.index + m[0].length + WINDOW_MARGIN);
    const trunk = /^[(（]?0/.test(m[0]);
    const firstDigit = m.index + m[0].search(/\d/);
    const run = { start: firstDigit, end: m.index + m[0].replace(/\D+$/, '').length };
    const last = windows[windows.length - 1];
    if (last && start <= last.end) {
      last.end = Math.max(last.end, end);
      last.trunk ||= trunk;
      last.runs.push(run);
    } else windows.push({ start, end, trunk, runs: [run] });
  }
  return windows;
}

function findInWindows(text: string, windows: NumberWindow[], region: CountryCode): { startsAt: number; endsAt: number }[] {
  const out: { startsAt: number; endsAt: number }[] = [];
  for (const w of windows) {
    for (const f of findPhoneNumbersInText(text.slice(w.start, w.end), { defaultCountry: region })) {
      out.push({ startsAt: w.start + f.startsAt, endsAt: w.start + f.endsAt });
    }
  }
  return out;
}

const DIGITS_7 = /\d(?:[^\d\n]{0,3}\d){6}/;

export function detectPhones(text: string): PiiSpan[] {
  // DIGITS_7 needs seven digits: counting them first is cheaper than the regex on most texts
  if (!hasDigits(text, 7) || !DIGITS_7.test(text)) return [];
  const out: PiiSpan[] = [];
  const seen = new Set<string>();
  const add = (start: number, end: number, confidence: number, detector: string) => {
    // libphonenumber accepts brackets as punctuation; "[7192195698" is a list, not a phone format.
    while (/[[\]]/.test(text[start] ?? '') && start < end) start++;
    while (/[[\]]/.test(text[end - 1] ?? '') && end > start) end--;
    const key = `${start}:${end}`;
    if (seen.has(key) || !plausiblePhoneSpan(text, start, end)) return;
    const raw = text.slice(start, end);
    if (raw.includes('/') || (raw.match(/\(/g)?.length ?? 0) !== (raw.match(/\)/g)?.length ?? 0)) return;
    // Ten bare digits are as often a hash, a chat id or a constant; a Chinese mobile written bare is specific enough.
    if (/^\d+$/.test(raw) && !/^1[3-9]\d{9}$/.test(raw) && !hasPhoneWordNear(text, start, end)) return;
    seen.add(key);
    out.push(makeSpan(text, 'PHONE', start, end, confidence, detector));
  };

  const windows = numberWindows(text);
  // China: mobiles 1[3-9]x written nationally, landlines with their 0 area code, or international.
  const china = findInWindows(text, windows, 'CN').filter((f) => {
    const raw = text.slice(f.startsAt, f.endsAt);
    return raw.startsWith('+') || /^1[3-9]\d/.test(raw) || /^\(?0/.test(raw);
  });
  // The US pass is the slow one; a window whose every run is already a Chinese number has nothing left for it.
  const covered = (r: { start: number; end: number }) => china.some((f) => f.startsAt <= r.start && f.endsAt >= r.end);
  for (const f of findInWindows(
    text,
    windows.filter((w) => !w.runs.every(covered)),
    'US',
  )) {
    add(f.startsAt, f.endsAt, 0.75, 'libphonenumber');
  }
  for (const f of china) add(f.startsAt, f.endsAt, 0.75, 'libphonenumber');
  const trunkWindows = windows.filter((w) => w.trunk);
  if (trunkWindows.length) {
    for (const region of TRUNK_REGIONS) {
      for (const f of findInWindows(text, trunkWindows, region)) {
        const raw = text.slice(f.startsAt, f.endsAt);
        // A bare run like 078051121 is as likely an account or ID number; want the grouping people type.
        if (raw.startsWith('+') || (/^\(?0/.test(raw) && /[\s().-]/.test(raw))) add(f.startsAt, f.endsAt, 0.7, 'libphonenumber');
      }
    }
  }
  out.push(...detectChineseFallback(text, seen));
  out.push(...detectPhonesByContext(text, seen));
  return out;
}

// Words that announce a phone number before it ("Phone:", "call me on", "电话") or after it ("... office").
const PHONE_BEFORE =
  /(?:phone|tel|telephone|mobile|cell|cellphone|fax|desk|office|home|work|call(?:\s+me)?(?:\s+(?:on|at))?|text(?:\s+me)?|whatsapp|sms|answering(?:\s+at)?|reach(?:\s+me)?(?:\s+at)?|contact|registered|messages\s+to|电话|手机|手机号|座机|联系方式|联系|致电|传真|号码)[^\n\d]{0,12}\n?[^\n\d]{0,3}$/i;
const PHONE_AFTER = /^\s*[-–(]?\s*(?:office|fax|mobile|cell|home|work|desk)\b/i;
// A run of 7-15 digits with the separators people type, optionally an extension.
const LOCAL_NUMBER = /(?<![\w+.\-/])\+?\(?\d[\d().\- ]{5,22}\d(?:\s?(?:x|ext\.?)\s?\d{1,5})?(?![\w/])/g;

function hasPhoneWordNear(text: string, start: number, end: number): boolean {
  return PHONE_BEFORE.test(text.slice(Math.max(0, start - 30), start)) || PHONE_AFTER.test(text.slice(end, end + 12));
}

/**
 * Local numbers libphonenumber cannot place without a region ("Phone: 451 5986"). Only with a phone
 * word right before or after, and never something shaped like a date, time or amount.
 */
function detectPhonesByContext(text: string, seen: Set<string>): PiiSpan[] {
  const out: PiiSpan[] = [];
  for (const m of allMatches(LOCAL_NUMBER, text)) {
    const raw = m[0].replace(/[\s(.\-]+$/, '');
    const digits = raw.replace(/x.*$|ext.*$/i, '').replace(/\D/g, '');
    if (digits.length < 7 || digits.length > 15) continue;
    if (/\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}:\d{2}|\d\.\d{2}$/.test(raw) && !/^\+/.test(raw)) continue;
    if (/[ .\-]{2,}/.test(raw.replace(/\) /g, ')'))) continue;
    const start = m.index;
    const end = start + raw.length;
    if (seen.has(`${start}:${end}`)) continue;
    if (!hasPhoneWordNear(text, start, end)) continue;
    if (!plausiblePhoneSpan(text, start, end)) continue;
    out.push(makeSpan(text, 'PHONE', start, end, 0.55, 'context:phone'));
  }
  return out;
}

// Mainland area codes: 010, 02x, then 0 + three digits not starting with 0/1/2.
const CN_LANDLINE = /(?<![\d])(?:\((0(?:10|2\d|[3-9]\d{2}))\)|(0(?:10|2\d|[3-9]\d{2})))[- ]?(\d{7,8})(?!\d)/g;
const CN_MOBILE = /(?<![\d+])(?:(?:\+|00)?86[- ]?)?(1[3-9]\d(?:[- ]?\d{4}){2})(?!\d)/g;

/** Formats libphonenumber rejects but people write (7-digit numbers behind a 4-digit area code). */
function detectChineseFallback(text: string, seen: Set<string>): PiiSpan[] {
  const out: PiiSpan[] = [];
  const push = (start: number, end: number, confidence: number, detector: string) => {
    if (seen.has(`${start}:${end}`) || !plausiblePhoneSpan(text, start, end)) return;
    out.push(makeSpan(text, 'PHONE', start, end, confidence, detector));
  };
  for (const m of allMatches(CN_LANDLINE, text)) push(m.index, m.index + m[0].length, 0.6, 'pattern:cn-landline');
  for (const m of allMatches(CN_MOBILE, text)) {
    const digits = (m[1] ?? '').replace(/\D/g, '');
    if (isValidPhoneNumber(digits, 'CN')) push(m.index, m.index + m[0].length, 0.7, 'pattern:cn-mobile');
  }
  return out;
}
