// Conversation text can carry characters that draw nothing but change what the curator reads: bidi
// controls reorder a line ("approve" shown for "evorppa"), zero-width characters hide inside words.
// Every place that shows conversation text renders it through VisibleText: each such character is
// replaced by a visible, labelled marker. Text stays React text (never HTML).
import type { ReactNode } from 'react';

// Unicode format characters (Cf: bidi embeddings, overrides and isolates, zero-width space/joiners,
// word joiner, BOM, invisible operators, tag characters, soft hyphen) plus the fillers that are letters
// but render blank.
const INVISIBLE = /[\p{Cf}\u115F\u1160\u3164\uFFA0\u034F]/u;
const INVISIBLE_ALL = /[\p{Cf}\u115F\u1160\u3164\uFFA0\u034F]/gu;

const NAMES: Record<number, string> = {
  0x00ad: 'SHY soft hyphen',
  0x034f: 'CGJ combining grapheme joiner',
  0x061c: 'ALM Arabic letter mark',
  0x180e: 'MVS Mongolian vowel separator',
  0x200b: 'ZWSP zero-width space',
  0x200c: 'ZWNJ zero-width non-joiner',
  0x200d: 'ZWJ zero-width joiner',
  0x200e: 'LRM left-to-right mark',
  0x200f: 'RLM right-to-left mark',
  0x202a: 'LRE left-to-right embedding',
  0x202b: 'RLE right-to-left embedding',
  0x202c: 'PDF pop directional formatting',
  0x202d: 'LRO left-to-right override',
  0x202e: 'RLO right-to-left override',
  0x2060: 'WJ word joiner',
  0x2061: 'invisible function application',
  0x2062: 'invisible times',
  0x2063: 'invisible separator',
  0x2064: 'invisible plus',
  0x2066: 'LRI left-to-right isolate',
  0x2067: 'RLI right-to-left isolate',
  0x2068: 'FSI first strong isolate',
  0x2069: 'PDI pop directional isolate',
  0xfeff: 'BOM zero-width no-break space',
  0x115f: 'Hangul choseong filler',
  0x1160: 'Hangul jungseong filler',
  0x3164: 'Hangul filler',
  0xffa0: 'halfwidth Hangul filler',
};

const hex = (cp: number) => `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;

/** Short label shown in the marker and the full description in its tooltip. */
export function describeInvisible(ch: string): { label: string; title: string } {
  const cp = ch.codePointAt(0) ?? 0;
  const name = NAMES[cp];
  if (name) {
    const abbr = name.split(' ')[0] ?? '';
    return { label: /^[A-Z]{2,4}$/.test(abbr) ? abbr : hex(cp), title: `${hex(cp)} ${name} (invisible character)` };
  }
  if (cp >= 0xe0000 && cp <= 0xe007f) return { label: 'TAG', title: `${hex(cp)} tag character (invisible)` };
  return { label: hex(cp), title: `${hex(cp)} invisible format character` };
}

export function hasInvisible(text: string): boolean {
  return INVISIBLE.test(text);
}

/** The text with each invisible character replaced by a marker element. */
export function revealInvisible(text: string): ReactNode {
  if (!INVISIBLE.test(text)) return text;
  const out: ReactNode[] = [];
  let pos = 0;
  for (const m of text.matchAll(INVISIBLE_ALL)) {
    const at = m.index ?? 0;
    if (at > pos) out.push(text.slice(pos, at));
    const { label, title } = describeInvisible(m[0]);
    out.push(
      <span key={at} className="invisible-char" data-invisible={hex(m[0].codePointAt(0) ?? 0)} title={title} aria-label={title}>
        {label}
      </span>,
    );
    pos = at + m[0].length;
  }
  if (pos < text.length) out.push(text.slice(pos));
  return out;
}

/** Conversation text, shown as text with its invisible characters made visible. */
export function VisibleText({ text }: { text: string | null | undefined }) {
  return <>{text ? revealInvisible(text) : null}</>;
}
