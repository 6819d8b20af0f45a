// A detection view of a text: compatibility forms folded (NFKC: full-width digits and letters, ideographic
// space), invisible format characters removed, dashes unified, other scripts' digits made ASCII. Detectors run
// on the view; spans found there map back to the original offsets, so redaction removes the whole original value
// including any zero-width characters hidden inside it.

/**
 * Characters that render as nothing: Unicode format characters (Cf: soft hyphen, U+200B-U+200F, bidi
 * controls U+202A-U+202E and U+2066-U+2069, U+2060-U+2064, U+FEFF, tags) plus the invisible non-Cf ones
 * (combining grapheme joiner, variation selectors, Hangul fillers, Mongolian free variation selectors).
 */
export const INVISIBLE = /[\p{Cf}\u034F\u115F\u1160\u3164\uFFA0\u180B-\u180D\uFE00-\uFE0F\u{E0100}-\u{E01EF}]/u;
const INVISIBLE_ALL = new RegExp(INVISIBLE.source, 'gu');

// Combining marks stay with their base character so NFKC composes "e\u0301" to "é".
const CLUSTER = /[\s\S]\p{M}*/uy;
const DASH = /\p{Pd}/u;
const DIGIT = /\p{Nd}/u;
const NEEDS_VIEW = /[\p{Cf}\p{Pd}\p{Nd}\p{M}\u00A0-\u00BF\u2000-\u206F\u2100-\u24FF\u3000-\u303F\u3164\uF900-\uFFEF\u{1D400}-\u{1D7FF}\u{E0100}-\u{E01EF}]/u;

export interface DetectionView {
  /** The text detectors see. */
  text: string;
  /** Original offset where view character i starts; one extra entry for the end of the text. */
  starts: number[];
  /** Original offset where the source of view character i ends. */
  ends: number[];
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
  const starts: number[] = [];
  const ends: number[] = [];
  let i = 0;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    // ASCII and CJK ideographs are their own view; they are most of every text.
    if (code < 0x80 || (code >= 0x4e00 && code <= 0x9fff)) {
      parts.push(text[i]);
      starts.push(i);
      ends.push(i + 1);
      i++;
      continue;
    }
    CLUSTER.lastIndex = i;
    const cluster = CLUSTER.exec(text)![0];
    const folded = foldCluster(cluster);
    const end = i + cluster.length;
    for (let k = 0; k < folded.length; k++) {
      starts.push(i);
      ends.push(end);
    }
    parts.push(folded);
    i = end;
  }
  starts.push(text.length);
  const view = parts.join('');
  return view === text ? null : { text: view, starts, ends };
}

/** Original [start, end) of view range [start, end). */
export function toOriginal(view: DetectionView, start: number, end: number): [number, number] {
  return [view.starts[start], end > start ? view.ends[end - 1] : view.starts[start]];
}

/** The value as detectors compare it: folded, invisible characters gone. */
export function foldValue(value: string): string {
  return detectionView(value)?.text ?? value;
}
