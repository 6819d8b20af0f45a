import type { PiiSpan, PiiType } from './types';

export function makeSpan(text: string, type: PiiType, start: number, end: number, confidence: number, detector: string): PiiSpan {
  return { id: `${type}:${start}:${end}`, type, start, end, value: text.slice(start, end), confidence, detector };
}

export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return false;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/** Shannon entropy in bits per character. */
export function shannonEntropy(s: string): number {
  if (!s) return 0;
  const counts = new Map<string, number>();
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let h = 0;
  for (const c of counts.values()) {
    const p = c / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}

/** Share of adjacent character pairs that step by one code point ("abcdef", "0123"): alphabets, not secrets. */
export function sequentialShare(s: string): number {
  if (s.length < 2) return 0;
  let steps = 0;
  for (let i = 1; i < s.length; i++) if (s.charCodeAt(i) - s.charCodeAt(i - 1) === 1) steps++;
  return steps / (s.length - 1);
}

const WORD_CHAR = /[\p{L}\p{N}_]/u;
const ASCII_ALNUM = /[A-Za-z0-9_]/;

/** True when the character at index i is a letter, digit or underscore (any script). */
export function isWordCharAt(text: string, i: number): boolean {
  return WORD_CHAR.test(text.charAt(i)); // '' outside the text
}

/** True when the character at index i is an ASCII letter, digit or underscore (CJK text glues to numbers). */
export function isAsciiWordAt(text: string, i: number): boolean {
  return ASCII_ALNUM.test(text.charAt(i)); // '' outside the text
}

/** Words that, right before a number, say it is an order/reference number, an amount or a time, not PII. */
const LOOKALIKE_CONTEXT =
  /(?:订单|单号|编号|流水号|交易号|快递|运单|工单|发票|批次|批号|货号|型号|库存|编码|序列号|序号|车次|航班|金额|价格|价钱|售价|总价|时间戳|时间|日期|版本|票号|order|invoice|tracking|ticket|ref(?:erence)?|sku|serial|build|version|amount|price|total|timestamp|epoch|txn|transaction|ssn|social security|passport|licen[cs]e|\bu?id|account id|user id|驾照|驾驶证|身份证|会员号|学号|工号|快递单|商品|条码|条形码|barcode|ean|upc|isbn|gtin)(?:\s*(?:no\.?|number|num|id|#|号码|号|码))?(?:\s+(?:is|was|=))?\s*[:：#=]?\s*$/i;

/** "2202 Rissik St": a house number, not a phone number. */
export function followedByStreet(text: string, end: number): boolean {
  return /^\s+(?:[A-Z][\w'-]*\s+){1,3}(?:St|Street|Ave|Avenue|Rd|Road|Blvd|Lane|Ln|Dr|Drive|Way|Ct|Court|Pl|Place|Sq|Square|Hwy)\b/.test(
    text.slice(end, end + 60),
  );
}

export function hasLookalikeContext(text: string, start: number): boolean {
  const before = text.slice(Math.max(0, start - 24), start);
  return LOOKALIKE_CONTEXT.test(before) || /[¥￥$€£#]\s*$/.test(before);
}

/**
 * Every match of a global regex, as `[...text.matchAll(re)]` gives them, without the copy of the regex that
 * matchAll makes on each call (it was most of a short text's detection time). The regex's lastIndex is left at 0.
 */
export function allMatches(re: RegExp, text: string): RegExpExecArray[] {
  if (!re.global) throw new TypeError('allMatches needs a global regex');
  const out: RegExpExecArray[] = [];
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    out.push(m);
    // an empty match would be found again at the same place: step over one character, as matchAll does
    if (m[0] === '') re.lastIndex = advance(text, re.lastIndex, /[uv]/.test(re.flags));
  }
  re.lastIndex = 0;
  return out;
}

function advance(text: string, index: number, fullUnicode: boolean): number {
  if (!fullUnicode || index + 1 >= text.length) return index + 1;
  const c = text.charCodeAt(index);
  const d = text.charCodeAt(index + 1);
  return c >= 0xd800 && c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff ? index + 2 : index + 1;
}

// detectPii asks up to five detectors whether one text holds n digits; most texts hold few, so each asked
// for a scan of the whole text. The text's digits are counted once and kept for the next question.
let countedText: string | null = null;
let countedDigits = 0;

/** True when the text holds at least `n` ASCII digits (what `\d` matches): the prefilter of the number detectors. */
export function hasDigits(text: string, n: number): boolean {
  if (text !== countedText) {
    let count = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c >= 48 && c <= 57) count++;
    }
    countedText = text;
    countedDigits = count;
  }
  return countedDigits >= n;
}
