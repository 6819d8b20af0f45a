// A detection view of a text: compatibility forms folded (NFKC: full-width digits and letters, ideographic
// space), invisible format characters removed, dashes unified, other scripts' digits made ASCII. Detectors run
// on the view; spans found there map back to the original offsets, so redaction removes the whole original value
// including any zero-width characters hidden inside it.

/**
 * Characters that render as nothing: Unicode format characters (Cf: soft hyphen, U+200B-U+200F, bidi
 * controls U+202A-U+202E and U+2066-U+2069, U+2060-U+2064, U+FEFF, tags) plus the invisible non-Cf ones
 * (combining grapheme joiner, variation selectors, Hangul fillers, the blank braille pattern, Mongolian free
 * variation selectors).
 */
export const INVISIBLE = /[\p{Cf}\u034F\u115F\u1160\u2800\u3164\uFFA0\u180B-\u180D\uFE00-\uFE0F\u{E0100}-\u{E01EF}]/u;
const INVISIBLE_ALL = new RegExp(INVISIBLE.source, 'gu');

// Combining marks stay with their base character so NFKC composes "e\u0301" to "é".
const CLUSTER = /[\s\S]\p{M}*/uy;
const DASH = /\p{Pd}/u;
const DIGIT = /\p{Nd}/u;
const NEEDS_VIEW =
  /(?![\x00-\x7F])[\p{Nd}\p{Pd}]|[\p{Cf}\p{M}\u00A0-\u00BF\u2000-\u206F\u2100-\u24FF\u2800\u3000-\u303F\u3164\uF900-\uFFEF\u{1D400}-\u{1D7FF}\u{E0100}-\u{E01EF}]/u;

/**
 * Characters NFKC leaves alone and that need no folding: ASCII, Latin-1 and Latin Extended-A letters, Greek
 * and Cyrillic letters, CJK punctuation and ideographs, kana, Hangul syllables. They are most of every text,
 * so they skip the per-cluster work.
 */
function isStable(c: number): boolean {
  return (
    c < 0x80 ||
    (c >= 0x4e00 && c <= 0x9fff) ||
    (c >= 0xc0 && c <= 0x131) ||
    (c >= 0x391 && c <= 0x3c9) ||
    (c >= 0x400 && c <= 0x482) ||
    (c >= 0x48a && c <= 0x4ff) ||
    (c >= 0x3001 && c <= 0x3035) ||
    (c >= 0x3041 && c <= 0x3096) ||
    (c >= 0x30a1 && c <= 0x30fa) ||
    (c >= 0xac00 && c <= 0xd7a3)
  );
}

/** A combining mark may follow (it composes with its base under NFKC): take the slow path. */
function isMark(c: number): boolean {
  return (
    c >= 0x300 &&
    (c <= 0x36f ||
      (c >= 0x1ab0 && c <= 0x1aff) ||
      (c >= 0x1dc0 && c <= 0x1dff) ||
      (c >= 0x20d0 && c <= 0x20ff) ||
      (c >= 0xfe20 && c <= 0xfe2f) ||
      c === 0x3099 ||
      c === 0x309a)
  );
}

export interface DetectionView {
  /** The text detectors see. */
  text: string;
  /** Original offset where view character i starts; one extra entry for the end of the text. */
  starts: Int32Array;
  /** Original offset where the source of view character i ends. */
  ends: Int32Array;
}

/** The ASCII digit of any decimal digit: Nd blocks are runs of ten starting at zero. */
function asciiDigit(ch: string): string {
  let cp = ch.codePointAt(0)!;
  let zero = cp;
  while (zero > 0 && DIGIT.test(String.fromCodePoint(zero - 1))) zero--;
  cp = (cp - zero) % 10;
  return String(cp);
}

function foldCluster(cluster: string): string {
  if (INVISIBLE.test(cluster)) cluster = cluster.replace(INVISIBLE_ALL, '');
  if (!cluster) return '';
  let out = cluster.normalize('NFKC');
  if (/[^\x00-\x7F]/.test(out)) {
    out = Array.from(out, (c) => (c > '\x7f' && DIGIT.test(c) ? asciiDigit(c) : c !== '-' && DASH.test(c) ? '-' : c)).join('');
  }
  return out;
}

/**
 * The detection view, or null when the text is already what detectors would see (pure ASCII, or nothing
 * to fold): the common case costs one regex test.
 */
export function detectionView(text: string): DetectionView | null {
  if (!/[^\x00-\x7F]/.test(text)) return null;
  if (!NEEDS_VIEW.test(text) && text.normalize('NFKC') === text) return null;
  const parts: string[] = [];
  let starts = new Int32Array(text.length + 16);
  let ends = new Int32Array(text.length + 16);
  let n = 0; // view length so far
  const reserve = (count: number) => {
    if (n + count + 1 <= starts.length) return;
    const size = (n + count + 1) * 2;
    const grow = (a: Int32Array) => {
      const b = new Int32Array(size);
      b.set(a.subarray(0, n));
      return b;
    };
    starts = grow(starts);
    ends = grow(ends);
  };
  const map = (from: number, to: number, count: number) => {
    reserve(count);
    starts.fill(from, n, n + count);
    ends.fill(to, n, n + count);
    n += count;
  };
  let i = 0;
  let run = 0; // start of the current run of characters that are their own view
  const flushRun = () => {
    if (run === i) return;
    parts.push(text.slice(run, i));
    reserve(i - run);
    for (let k = run; k < i; k++, n++) {
      starts[n] = k;
      ends[n] = k + 1;
    }
  };
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (isStable(code) && !isMark(text.charCodeAt(i + 1))) {
      i++;
      continue;
    }
    flushRun();
    CLUSTER.lastIndex = i;
    const cluster = CLUSTER.exec(text)![0];
    const folded = code >= 0xff01 && code <= 0xff5e && cluster.length === 1 ? String.fromCharCode(code - 0xfee0) : foldCluster(cluster);
    const end = i + cluster.length;
    map(i, end, folded.length);
    parts.push(folded);
    i = end;
    run = i;
  }
  flushRun();
  map(text.length, text.length, 1);
  const view = parts.join('');
  return view === text ? null : { text: view, starts: starts.subarray(0, n), ends: ends.subarray(0, n - 1) };
}

/** Original [start, end) of view range [start, end). */
export function toOriginal(view: DetectionView, start: number, end: number): [number, number] {
  // starts has one entry per view position and ends one per position but the last: both indexes are in range
  return [view.starts[start]!, end > start ? view.ends[end - 1]! : view.starts[start]!];
}

/** The value as detectors compare it: folded, invisible characters gone. */
export function foldValue(value: string): string {
  return detectionView(value)?.text ?? value;
}
