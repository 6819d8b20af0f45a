// Whether a stored JSON text is exactly what JSON.stringify writes for the value it parses to, so an
// export can write the stored text instead of parsing and serializing it again (a sample's content,
// labels and quality factors are written whole by raw and csv; serializing them cost about as much as
// reading the row). The check is conservative: false means "not sure", and the caller serializes.
//
// JSON.stringify(JSON.parse(text)) === text when the text has no whitespace between tokens, escapes
// only what JSON.stringify escapes and as it does (\" \\ \b \f \n \r \t, other control characters as
// lowercase \u00xx, lone surrogates; every other character as itself), writes every number as
// String(number) does, and has no repeated key in an object (parse keeps the last value at the first
// place) and no key that starts with a digit (V8 lists array-index keys first, in numeric order).

/** Deeper nesting is left to the serializer rather than to this recursion. */
const MAX_DEPTH = 256;

/** Key positions of the objects open during a check: [start, end) pairs, flat, up to keyTop. */
const keyBounds: number[] = [];
let keyTop = 0;

export function isStringifyForm(text: string): boolean {
  keyTop = 0;
  return value(text, 0, 0) === text.length;
}

/** The index after the value that starts at i, or -1. */
function value(t: string, i: number, depth: number): number {
  const c = t.charCodeAt(i);
  if (c === 0x22) return string(t, i + 1);
  if (c === 0x7b) return depth < MAX_DEPTH ? object(t, i + 1, depth + 1) : -1;
  if (c === 0x5b) return depth < MAX_DEPTH ? array(t, i + 1, depth + 1) : -1;
  if (c === 0x74) return t.startsWith('true', i) ? i + 4 : -1;
  if (c === 0x66) return t.startsWith('false', i) ? i + 5 : -1;
  if (c === 0x6e) return t.startsWith('null', i) ? i + 4 : -1;
  if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return number(t, i);
  return -1;
}

/** Characters a string holds as they are: a run of them is skipped in one native step. */
const PLAIN = /[^"\\\x00-\x1f\ud800-\udfff]*/y;

/** A string's body from i (after its opening quote): the index after its closing quote, or -1. */
function string(t: string, i: number): number {
  PLAIN.lastIndex = i;
  PLAIN.test(t);
  i = PLAIN.lastIndex;
  for (;;) {
    const c = t.charCodeAt(i);
    if (c === 0x22) return i + 1;
    if (c === 0x5c) {
      const e = t.charCodeAt(i + 1);
      // \" \\ \b \f \n \r \t
      if (e === 0x22 || e === 0x5c || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) {
        i += 2;
        continue;
      }
      // \u00xx for a control character without a short escape, in lowercase hex
      if (e === 0x75 && t.startsWith('00', i + 2) && controlEscape(t.charCodeAt(i + 4), t.charCodeAt(i + 5))) {
        i += 6;
        continue;
      }
      return -1;
    }
    if (c >= 0x20 && (c < 0xd800 || c > 0xdfff)) {
      i++;
      continue;
    }
    // a surrogate pair stays as it is; a lone surrogate, a raw control character or the end of the text does not
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = t.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        i += 2;
        continue;
      }
    }
    return -1;
  }
}

/** Whether \u00 followed by these two hex digits is how JSON.stringify writes that control character. */
function controlEscape(h: number, l: number): boolean {
  const lo = l >= 0x30 && l <= 0x39 ? l - 0x30 : l >= 0x61 && l <= 0x66 ? l - 0x57 : -1;
  if (lo < 0) return false;
  if (h === 0x31) return true;
  // 0x08, 0x09, 0x0a, 0x0c and 0x0d have short escapes
  return h === 0x30 && lo !== 8 && lo !== 9 && lo !== 10 && lo !== 12 && lo !== 13;
}

/** - + . e E and digits: the characters a JSON number is written with. */
const numberChar = (c: number) => (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x65 || c === 0x45;

/** A number written as String(number) writes it (so -0, 1.0, 1e3 and 0.10 are not). */
function number(t: string, i: number): number {
  let j = i + 1;
  while (numberChar(t.charCodeAt(j))) j++;
  const token = t.slice(i, j);
  return String(Number(token)) === token ? j : -1;
}

function array(t: string, i: number, depth: number): number {
  if (t.charCodeAt(i) === 0x5d) return i + 1;
  for (;;) {
    i = value(t, i, depth);
    if (i < 0) return -1;
    const c = t.charCodeAt(i);
    if (c === 0x5d) return i + 1;
    if (c !== 0x2c) return -1;
    i++;
  }
}

function object(t: string, i: number, depth: number): number {
  if (t.charCodeAt(i) === 0x7d) return i + 1;
  const first = keyTop;
  for (;;) {
    if (t.charCodeAt(i) !== 0x22) return -1;
    const k = t.charCodeAt(i + 1);
    if (k >= 0x30 && k <= 0x39) return -1;
    const end = key(t, i + 1);
    if (end < 0 || t.charCodeAt(end) !== 0x3a || repeatedKey(t, first, i + 1, end - 1)) return -1;
    keyBounds[keyTop++] = i + 1;
    keyBounds[keyTop++] = end - 1;
    i = value(t, end + 1, depth);
    if (i < 0) return -1;
    const c = t.charCodeAt(i);
    if (c === 0x7d) {
      keyTop = first;
      return i + 1;
    }
    if (c !== 0x2c) return -1;
    i++;
  }
}

/** A key from i (after its opening quote), as string() reads it: keys are short, so without the regular expression's call. */
function key(t: string, i: number): number {
  for (;;) {
    const c = t.charCodeAt(i);
    if (c === 0x22) return i + 1;
    if (c < 0x20 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff) || c !== c) return string(t, i);
    i++;
  }
}

/** Whether the key at [start, end) repeats one of the object's earlier keys (escapes compare as written: each has one form). */
function repeatedKey(t: string, first: number, start: number, end: number): boolean {
  const n = end - start;
  for (let k = first; k < keyTop; k += 2) {
    const s = keyBounds[k]!;
    if (keyBounds[k + 1]! - s !== n) continue;
    let j = 0;
    while (j < n && t.charCodeAt(s + j) === t.charCodeAt(start + j)) j++;
    if (j === n) return true;
  }
  return false;
}
