import type { PiiSpan } from '../types';
import { allMatches, hasDigits, hasLookalikeContext, isAsciiWordAt, luhnValid, makeSpan } from '../util';

/** Issuer prefixes and lengths; a Luhn-valid run without a known issuer is more often an ID or order number. */
function cardIssuer(d: string): string | null {
  const n = d.length;
  if (/^4/.test(d) && (n === 13 || n === 16 || n === 19)) return 'visa';
  if (/^(5[1-5]|2(2[2-9]|[3-6]\d|7[01]|720))/.test(d) && n === 16) return 'mastercard';
  if (/^3[47]/.test(d) && n === 15) return 'amex';
  if (/^3(0[0-5]|[689])/.test(d) && n >= 14 && n <= 19) return 'diners';
  if (/^(6011|65|64[4-9])/.test(d) && n >= 16 && n <= 19) return 'discover';
  if (/^35/.test(d) && n >= 16 && n <= 19) return 'jcb';
  if (/^(2131|1800)/.test(d) && n === 15) return 'jcb';
  if (/^62/.test(d) && n >= 16 && n <= 19) return 'unionpay';
  if (/^(5[06-9]|6\d|0604)/.test(d) && n >= 12 && n <= 19) return 'maestro';
  if (/^1/.test(d) && n === 15) return 'uatp';
  return null;
}

const CARD_CONTEXT = /(银行卡|卡号|信用卡|储蓄卡|借记卡|账号|帐号|card|account|acct|bank|\bcc)[^\n]{0,14}$/i;

// Groups of digits joined by single spaces or hyphens.
const DIGIT_RUN = /\d+(?:[ -]\d+)*/g;

/** The prefilter of detectCards: a card's digits are at least 12 (cardIssuer's shortest length). */
export const CARD_MIN_DIGITS = 12;

export function detectCards(text: string, prefilter = true): PiiSpan[] {
  const out: PiiSpan[] = [];
  if (prefilter && !hasDigits(text, CARD_MIN_DIGITS)) return out;
  for (const m of allMatches(DIGIT_RUN, text)) {
    if (isAsciiWordAt(text, m.index - 1) || text[m.index - 1] === '.') continue;
    const groups: { start: number; end: number }[] = [];
    for (const g of m[0].matchAll(/\d+/g)) groups.push({ start: m.index + g.index, end: m.index + g.index + g[0].length });
    let i = 0;
    while (i < groups.length) {
      let best: PiiSpan | null = null;
      let bestJ = i;
      let digits = '';
      for (let j = i; j < groups.length; j++) {
        const group = groups[j]!; // j < groups.length
        digits += text.slice(group.start, group.end);
        if (digits.length > 19) break;
        if (digits.length < 12) continue;
        const start = groups[i]!.start; // i <= j
        const end = group.end;
        if (isAsciiWordAt(text, end) || (text[end] === '.' && /\d/.test(text[end + 1] ?? ''))) continue;
        const span = classifyCard(text, digits, start, end);
        if (span) {
          best = span;
          bestJ = j;
        }
      }
      if (best) {
        out.push(best);
        i = bestJ + 1;
      } else i++;
    }
  }
  return out;
}

function classifyCard(text: string, digits: string, start: number, end: number): PiiSpan | null {
  const issuer = cardIssuer(digits);
  if (!issuer) return null;
  const before = text.slice(Math.max(0, start - 30), start);
  const cardContext = CARD_CONTEXT.test(before);
  // "card # 4111..." names a card; "order # 4111..." does not.
  if (!cardContext && hasLookalikeContext(text, start)) return null;
  const luhn = luhnValid(digits);
  const credit = /信用卡|credit/i.test(before);
  if (issuer === 'unionpay') {
    if (luhn) return makeSpan(text, credit ? 'CREDIT_CARD' : 'BANK_CARD', start, end, 0.9, 'luhn:unionpay');
    // Some UnionPay debit cards carry no Luhn digit; accept those only when the text says "card".
    if (cardContext) {
      return makeSpan(text, 'BANK_CARD', start, end, 0.6, 'context:unionpay');
    }
    return null;
  }
  if (!luhn) return null;
  // A 13-digit product barcode (EAN-13) can pass Luhn too; without a card word it is a product code.
  if (digits.length === 13 && !cardContext && isValidEan13(digits)) return null;
  // 银行卡/储蓄卡/借记卡 name a bank (debit) card; 信用卡 is a credit card in any language.
  const cn = cardContext && /[\u4e00-\u9fff]/.test(before) && !credit;
  return makeSpan(text, cn ? 'BANK_CARD' : 'CREDIT_CARD', start, end, 0.9, `luhn:${issuer}`);
}

function isValidEan13(d: string): boolean {
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += (d.charCodeAt(i) - 48) * (i % 2 ? 3 : 1);
  return (10 - (sum % 10)) % 10 === d.charCodeAt(12) - 48;
}

const ID_WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
const ID_CHECK = '10X98765432';
const PROVINCES = new Set([
  '11',
  '12',
  '13',
  '14',
  '15',
  '21',
  '22',
  '23',
  '31',
  '32',
  '33',
  '34',
  '35',
  '36',
  '37',
  '41',
  '42',
  '43',
  '44',
  '45',
  '46',
  '50',
  '51',
  '52',
  '53',
  '54',
  '61',
  '62',
  '63',
  '64',
  '65',
  '71',
  '81',
  '82',
  '83',
]);

/** Foreign permanent residents' IDs since 2023: 9, then the first digit of the province code. */
const FOREIGN_RESIDENT = /^9[1-8]/;

/** GB 11643-1999: province code, a real birth date, and the ISO 7064 MOD 11-2 check character. */
export function isValidChineseId(id: string, now = new Date()): boolean {
  if (!/^\d{17}[\dXx]$/.test(id)) return false;
  if (!PROVINCES.has(id.slice(0, 2)) && !FOREIGN_RESIDENT.test(id)) return false;
  const y = Number(id.slice(6, 10));
  const mo = Number(id.slice(10, 12));
  const d = Number(id.slice(12, 14));
  const birth = new Date(Date.UTC(y, mo - 1, d));
  // The checksum is the real test; any birth year from 1800 on is plausible (old records, the deceased).
  if (y < 1800 || birth.getUTCFullYear() !== y || birth.getUTCMonth() !== mo - 1 || birth.getUTCDate() !== d) return false;
  if (birth.getTime() > now.getTime()) return false;
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += (id.charCodeAt(i) - 48) * ID_WEIGHTS[i]!; // 17 weights
  return ID_CHECK.charAt(sum % 11) === id.charAt(17).toUpperCase();
}

// Digit groups joined by single spaces or hyphens, the last one possibly ending in the X check character.
const ID_RUN = /(?<![0-9A-Za-z])\d+(?:[ -]\d+)*(?:[ -]?[Xx])?(?![0-9A-Za-z])/g;

/** 18-character IDs however their digits are grouped ("110101 19491231 002X", "1101-0519-..."). */
function detectGroupedIds(text: string, out: PiiSpan[]): void {
  for (const m of allMatches(ID_RUN, text)) {
    if (m[0].length < 18) continue;
    const groups = [...m[0].matchAll(/\d+[Xx]?|[Xx]/g)].map((g) => ({
      start: m.index + g.index,
      end: m.index + g.index + g[0].length,
      chars: g[0],
    }));
    for (let i = 0; i < groups.length; i++) {
      let id = '';
      for (let j = i; j < groups.length && id.length < 18; j++) {
        const group = groups[j]!; // j < groups.length
        id += group.chars;
        if (id.length === 18 && isValidChineseId(id)) {
          out.push(makeSpan(text, 'CN_ID', groups[i]!.start, group.end, 0.95, 'checksum:gb11643'));
          i = j;
        }
      }
    }
  }
}

// First-generation IDs (before 1999): 15 digits, two-digit year, no check digit.
const CN_ID_15 = /(?<![0-9A-Za-z])\d{6}\d{2}[01]\d[0-3]\d\d{3}(?![0-9A-Za-z])/g;
const ID_CONTEXT = /(身份证|证件|id\s*card|identity)[^\n]{0,10}$/i;

function validOldId(id: string): boolean {
  if (!PROVINCES.has(id.slice(0, 2))) return false;
  const y = 1900 + Number(id.slice(6, 8));
  const mo = Number(id.slice(8, 10));
  const d = Number(id.slice(10, 12));
  const birth = new Date(Date.UTC(y, mo - 1, d));
  return birth.getUTCMonth() === mo - 1 && birth.getUTCDate() === d;
}

/** The prefilter of detectChineseIds: an 18-character ID has 17 digits before its check character, an old one 15. */
const CN_ID_MIN_DIGITS = 15;

export function detectChineseIds(text: string, prefilter = true): PiiSpan[] {
  const out: PiiSpan[] = [];
  if (prefilter && !hasDigits(text, CN_ID_MIN_DIGITS)) return out;
  detectGroupedIds(text, out);
  // Without a check digit only the words before it make a 15-digit run an ID.
  for (const m of allMatches(CN_ID_15, text)) {
    if (validOldId(m[0]) && ID_CONTEXT.test(text.slice(Math.max(0, m.index - 16), m.index))) {
      out.push(makeSpan(text, 'CN_ID', m.index, m.index + m[0].length, 0.92, 'context:cn-id-15'));
    }
  }
  return out;
}

// IBAN: country, check digits, then up to 30 alphanumerics, optionally in groups of four.
const IBAN = /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b/g;
const IBAN_LOWER = /\b[a-z]{2}\d{2}(?: ?[a-z0-9]{4}){2,7}(?: ?[a-z0-9]{1,3})?\b/g;
// Countries that issue IBANs: a lowercase candidate ("gb42nawi…", typed in chat) must start with one.
const IBAN_COUNTRIES = new Set(
  'AD AE AL AO AT AZ BA BE BF BG BH BI BJ BR BY CF CG CH CI CM CR CV CY CZ DE DJ DK DO DZ EE EG ES FI FK FO FR GA GB GE GI GL GQ GR GT GW HN HR HU IE IL IQ IR IS IT JO KM KW KZ LB LC LI LT LU LV LY MC MD ME MG MK ML MN MR MT MU MZ NE NI NL NO OM PK PL PS PT QA RO RS RU SA SC SD SE SI SK SM SN SO ST SV TD TG TL TN TR UA VA VG XK YE'.split(
    ' ',
  ),
);

/** ISO 13616 mod-97 check on the rearranged IBAN. */
export function isValidIban(raw: string): boolean {
  const s = raw.replace(/ /g, '');
  if (s.length < 15 || s.length > 34) return false;
  const rearranged = s.slice(4) + s.slice(0, 4);
  let rem = 0;
  for (const ch of rearranged) {
    const v = /\d/.test(ch) ? ch : String(ch.charCodeAt(0) - 55);
    for (const d of v) rem = (rem * 10 + Number(d)) % 97;
  }
  return rem === 1;
}

/** Bank account numbers in IBAN form. */
/** The prefilter of detectIbans: IBAN and IBAN_LOWER both start with two ASCII letters and two digits. */
const IBAN_START = /[A-Za-z]{2}\d\d/;

export function detectIbans(text: string, prefilter = true): PiiSpan[] {
  const out: PiiSpan[] = [];
  if (prefilter && !IBAN_START.test(text)) return out;
  for (const m of [...allMatches(IBAN, text), ...allMatches(IBAN_LOWER, text)]) {
    const upper = m[0].toUpperCase();
    if (upper !== m[0] && !IBAN_COUNTRIES.has(upper.slice(0, 2))) continue;
    if (isValidIban(upper)) out.push(makeSpan(text, 'IBAN', m.index, m.index + m[0].length, 0.85, 'mod97:iban'));
  }
  return out;
}
