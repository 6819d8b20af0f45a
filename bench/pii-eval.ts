// Scoring the PII detector against labelled data. Shared by `npm run bench:pii` and tests/pii.
import fs from 'node:fs';
import path from 'node:path';
import { detectPii, foldValue, redact, type DetectOptions, type PiiSpan, type PiiType } from '../src/core/pii/index';

export interface GoldSpan {
  start: number;
  end: number;
}

export interface Tally {
  tp: number;
  fp: number;
  fn: number;
  exact: number;
}

export const emptyTally = (): Tally => ({ tp: 0, fp: 0, fn: 0, exact: 0 });
export const precision = (t: Tally) => (t.tp + t.fp ? t.tp / (t.tp + t.fp) : NaN);
export const recall = (t: Tally) => (t.tp + t.fn ? t.tp / (t.tp + t.fn) : NaN);

/** Converts code-point offsets (Python) to UTF-16 offsets (JavaScript). */
export function codePointToUtf16(text: string): (cp: number) => number {
  const map: number[] = [];
  let u = 0;
  for (const ch of text) {
    map.push(u);
    u += ch.length;
  }
  map.push(u);
  return (cp) => map[Math.min(cp, map.length - 1)]!; // map ends with the text's length, so it is never empty
}

/**
 * One-to-one matching by overlap: a predicted span counts for at most one gold span.
 * `exact` counts matches whose boundaries agree exactly.
 */
export function score(gold: GoldSpan[], predicted: GoldSpan[], into: Tally = emptyTally()): Tally {
  const used = new Set<number>();
  for (const g of gold) {
    const i = predicted.findIndex((p, k) => !used.has(k) && p.start < g.end && g.start < p.end);
    if (i < 0) {
      into.fn++;
      continue;
    }
    used.add(i);
    into.tp++;
    const p = predicted[i]!; // findIndex found it
    if (p.start === g.start && p.end === g.end) into.exact++;
  }
  into.fp += predicted.length - used.size;
  return into;
}

export const SECRET_TYPES: PiiType[] = ['API_KEY', 'PASSWORD', 'PRIVATE_KEY', 'URL_CREDENTIALS'];
export const CARD_TYPES: PiiType[] = ['CREDIT_CARD', 'BANK_CARD'];

const readJsonl = (file: string) =>
  fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/** Which of our types answer which presidio test file. */
export const PRESIDIO_TARGETS: Record<string, { label: string; types: PiiType[] }> = {
  email: { label: 'email', types: ['EMAIL'] },
  phone: { label: 'phone', types: ['PHONE'] },
  credit_card: { label: 'credit card', types: CARD_TYPES },
  ip: { label: 'IP address', types: ['IP_ADDRESS'] },
  // presidio's URL cases carry no credentials: every row is a negative for URL-with-credentials.
  url: { label: 'URL with credentials (negatives only)', types: ['URL_CREDENTIALS'] },
  // Beyond the brief's list, but we detect it: reported, no aim.
  iban: { label: 'IBAN (extra, no aim)', types: ['IBAN'] },
};

export interface PresidioResult {
  file: string;
  label: string;
  rows: number;
  skipped: number;
  tally: Tally;
  misses: string[];
  falsePositives: string[];
}

/**
 * Scores one presidio-tests file. Phone rows that test a non-default leniency are skipped (presidio's
 * default is VALID, leniency 1, which is what libphonenumber-js finds); they are counted in `skipped`.
 */
export function scorePresidioFile(dir: string, name: string, opts: DetectOptions = {}): PresidioResult {
  const target = PRESIDIO_TARGETS[name];
  if (!target) throw new Error(`no presidio target for ${name}`);
  const rows = readJsonl(path.join(dir, `test_${name}_recognizer.jsonl`));
  const tally = emptyTally();
  const misses: string[] = [];
  const falsePositives: string[] = [];
  const cases = presidioCases(dir, name);
  for (const c of cases) {
    const predicted = detectPii(c.text, opts).filter((s) => target.types.includes(s.type));
    const before = { ...tally };
    score(c.gold, predicted, tally);
    if (tally.fn > before.fn) misses.push(c.text);
    if (tally.fp > before.fp) falsePositives.push(`${c.text} -> ${predicted.map((p) => p.value).join(' | ')}`);
  }
  return { file: name, label: target.label, rows: rows.length, skipped: rows.length - cases.length, tally, misses, falsePositives };
}

/** Rows of the files we do not target on which we flag something anyway (informational). */
export function scoreUntargetedFile(dir: string, file: string): { rows: number; flagged: number; examples: string[] } {
  const rows = readJsonl(path.join(dir, file));
  const examples: string[] = [];
  let flagged = 0;
  for (const row of rows) {
    const spans = detectPii(String(row.text));
    if (spans.length) {
      flagged++;
      if (examples.length < 3) examples.push(`${String(row.text).slice(0, 60)} -> ${spans.map((s) => s.type).join(',')}`);
    }
  }
  return { rows: rows.length, flagged, examples };
}

export const SYNTH_MAP: Record<string, PiiType[]> = {
  EMAIL_ADDRESS: ['EMAIL'],
  PHONE_NUMBER: ['PHONE'],
  CREDIT_CARD: CARD_TYPES,
  IP_ADDRESS: ['IP_ADDRESS'],
  PERSON: ['PERSON'],
  IBAN_CODE: ['IBAN'],
};

interface SynthSample {
  full_text: string;
  spans: { entity_type: string; entity_value: string; start_position: number; end_position: number }[];
}

export function scoreSynth(file: string): {
  perType: Record<string, Tally>;
  untargeted: Record<string, number>;
  misses: Record<string, string[]>;
} {
  const samples = JSON.parse(fs.readFileSync(file, 'utf8')) as SynthSample[];
  const perType: Record<string, Tally> = {};
  const misses: Record<string, string[]> = {};
  const untargeted: Record<string, number> = {};
  for (const s of samples) {
    const predicted = detectPii(s.full_text, { names: true });
    const toU16 = codePointToUtf16(s.full_text);
    for (const span of s.spans) if (!SYNTH_MAP[span.entity_type]) untargeted[span.entity_type] = (untargeted[span.entity_type] ?? 0) + 1;
    for (const [entity, types] of Object.entries(SYNTH_MAP)) {
      const gold = s.spans
        .filter((g) => g.entity_type === entity)
        .map((g) => ({ start: toU16(g.start_position), end: toU16(g.end_position), value: g.entity_value }));
      const pred = predicted.filter((p) => types.includes(p.type));
      const t = (perType[entity] ??= emptyTally());
      const before = t.fn;
      score(gold, pred, t);
      if (t.fn > before)
        (misses[entity] ??= []).push(...gold.filter((g) => !pred.some((p) => p.start < g.end && g.start < p.end)).map((g) => g.value));
    }
  }
  return { perType, untargeted, misses };
}

export function scoreGitleaks(file: string): {
  secretRows: number;
  found: number;
  negativeRows: number;
  flagged: number;
  flaggedTexts: string[];
  missedTexts: string[];
} {
  const rows = readJsonl(file);
  let secretRows = 0;
  let found = 0;
  let negativeRows = 0;
  let flagged = 0;
  const flaggedTexts: string[] = [];
  const missedTexts: string[] = [];
  for (const row of rows) {
    const text = String(row.text);
    const hit = detectPii(text).filter((s) => SECRET_TYPES.includes(s.type));
    if (row.label === 'secret') {
      secretRows++;
      if (hit.length) found++;
      else missedTexts.push(text);
    } else {
      negativeRows++;
      if (hit.length) {
        flagged++;
        flaggedTexts.push(`${text.slice(0, 80)} -> ${hit.map((h) => h.value).join(' | ')}`);
      }
    }
  }
  return { secretRows, found, negativeRows, flagged, flaggedTexts, missedTexts };
}

/**
 * The secrets we expect in detect-secrets' test_data files (the library's own tests assert these
 * lines). Lines marked "pragma: allowlist secret" still hold secrets for our purpose: conversation
 * text has no pragma, so they count as expected.
 */
export const DETECT_SECRETS_EXPECTED: Record<string, string[]> = {
  'config.env.txt': ['gX69YO4CvBsVjzAwYxdGyDd30t5+9ez31gKATtj4'],
  'config.ini.txt': ['123456789a1234', '23456789a1', '12345678901234', 'vh987tyw9ehy8ghis7vwyhiwbwitefy7w3ASDGYDGUASDG'],
  'config.md.txt': ['ToCynx5Se4e2PtoZxEhW7lUJcOX15c54'],
  'config.yaml.txt': ['AKIATESTTESTTESTTEST', 'ToCynx5Se4e2PtoZxEhW7lUJcOX15c54', 'MjNjcnh1IDJieXJpdXYyeXJpaTJidnl1MnI4OXkyb3UwMg=='],
  'each_secret.py.txt': [
    'YW1pYWx3YXlzZ2VuZXJhdGluZ3BheWxvYWRzd2hlbmltaHVuZ3J5b3JhbWlhbHdheXNodW5ncnk',
    'c2VjcmV0IG1lc3NhZ2Ugc28geW91J2xsIG5ldmVyIGd1ZXNzIG15IHBhc3N3b3Jk',
    '8b1118b376c313ed420e5133ba91307817ed52c2',
    'whywouldyouusehttpforpasswords',
    'AKIAIOSFODNN7EXAMPLE',
    'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  ],
  'files_file_with_no_secrets.py.txt': [],
  'files_file_with_secrets.py.txt': ['c3VwZXIgbG9uZyBzdHJpbmcgc2hvdWxkIGNhdXNlIGVub3VnaCBlbnRyb3B5', 'f6CGV4aMM9zedoh3OUNbSakBymo7yplB'],
  'files_private_key.txt': ['somethingSuperRandomAndSecretHereThatShouldNeverBeShared'],
  'sample.diff.txt': ['2b00042f7481c7b056c4b410d28f33cf', '2b00042f7481c7b056c4b410d28f33cf', 'a2480a72004fc40d124495fd59f5b482034fbadd'],
};

/** First occurrence of value from `from` that is not part of a longer alphanumeric run. */
export function indexOfToken(text: string, value: string, from: number): number {
  for (let at = text.indexOf(value, from); at >= 0; at = text.indexOf(value, at + 1)) {
    if (!/[A-Za-z0-9]/.test(text[at - 1] ?? '') && !/[A-Za-z0-9]/.test(text[at + value.length] ?? '')) return at;
  }
  return -1;
}

export function scoreDetectSecrets(dir: string): {
  perFile: { file: string; expected: number; found: number; extra: string[]; missed: string[] }[];
  expected: number;
  found: number;
} {
  const perFile = [];
  let expected = 0;
  let found = 0;
  for (const [file, values] of Object.entries(DETECT_SECRETS_EXPECTED)) {
    const text = fs.readFileSync(path.join(dir, file), 'utf8');
    const spans = detectPii(text).filter((s) => SECRET_TYPES.includes(s.type));
    const gold: GoldSpan[] = [];
    const seen = new Map<string, number>();
    for (const v of values) {
      const at = indexOfToken(text, v, seen.get(v) ?? 0);
      if (at < 0) throw new Error(`expected secret not in ${file}: ${v}`);
      seen.set(v, at + v.length);
      gold.push({ start: at, end: at + v.length });
    }
    const t = score(gold, spans);
    const matched = spans.filter((s) => gold.some((g) => s.start < g.end && g.start < s.end));
    perFile.push({
      file,
      expected: values.length,
      found: t.tp,
      extra: spans.filter((s) => !matched.includes(s)).map((s) => s.value.slice(0, 60)),
      missed: gold.filter((g) => !spans.some((s) => s.start < g.end && g.start < s.end)).map((g) => text.slice(g.start, g.end)),
    });
    expected += values.length;
    found += t.tp;
  }
  return { perFile, expected, found };
}

export interface FixtureRow {
  text: string;
  expected: { type: PiiType; value: string }[];
  note?: string;
}

/** Invisible characters a value can hide behind: zero-width, joiners, word joiner, BOM, soft hyphen, bidi and tag characters. */
export const INVISIBLES = [
  '\u200B',
  '\u200C',
  '\u200D',
  '\u2060',
  '\uFEFF',
  '\u00AD',
  '\u202C',
  '\u2062',
  '\u180E',
  '\u{E0020}',
  '\u200E',
  '\u2066',
];

export interface LabelledText {
  text: string;
  gold: (GoldSpan & { type: string })[];
}

/**
 * The same case with an invisible character inside every gold value (past its middle, never splitting a
 * surrogate pair), or, when there is no gold, inside every run of five or more letters and digits: a hard
 * negative must stay negative. Deterministic: the character cycles with `seed`.
 */
export function withInvisible(c: LabelledText, seed: number): LabelledText {
  const inserts: number[] = [];
  if (c.gold.length) {
    for (const g of c.gold) {
      let at = g.start + Math.ceil((g.end - g.start) / 2);
      if (/[\uDC00-\uDFFF]/.test(c.text[at] ?? '')) at++;
      if (at > g.start && at < g.end) inserts.push(at);
    }
  } else {
    for (const m of c.text.matchAll(/[\p{L}\p{N}]{5,}/gu)) inserts.push(m.index + 2);
  }
  const uniq = [...new Set(inserts)].sort((a, b) => a - b);
  let text = '';
  let from = 0;
  const shift: { at: number; by: number }[] = [];
  let total = 0;
  uniq.forEach((at, k) => {
    const ch = INVISIBLES[(seed + k) % INVISIBLES.length]!;
    text += c.text.slice(from, at) + ch;
    from = at;
    total += ch.length;
    shift.push({ at, by: total });
  });
  text += c.text.slice(from);
  const moved = (pos: number, isEnd: boolean) => pos + (shift.filter((s) => (isEnd ? s.at < pos : s.at <= pos)).pop()?.by ?? 0);
  return { text, gold: c.gold.map((g) => ({ ...g, start: moved(g.start, false), end: moved(g.end, true) })) };
}

/** Score family: credit and bank cards are one family (which one is a reading of context, not of the digits). */
export const family = (t: string) => (CARD_TYPES.includes(t as PiiType) ? 'CARD' : t);

export interface FixtureScore {
  perType: Record<string, Tally>;
  /** Gold values still readable (folded, digits compared) in the redacted text, per type. */
  leaks: Record<string, number>;
  failures: string[];
  rows: number;
}

/** Reads one of our sets: expected spans are given by value (first unused occurrence). */
export function readFixture(file: string): LabelledText[] {
  const rows = readJsonl(file) as unknown as FixtureRow[];
  return rows.map((row) => {
    const cursor = new Map<string, number>();
    const gold = row.expected.map((e) => {
      const at = indexOfToken(row.text, e.value, cursor.get(e.value) ?? 0);
      if (at < 0) throw new Error(`fixture value not in text: ${e.value}`);
      cursor.set(e.value, at + e.value.length);
      return { type: family(e.type), start: at, end: at + e.value.length };
    });
    return { text: row.text, gold };
  });
}

const foldForLeak = (s: string) => foldValue(s).toLowerCase().replace(/[\s-]/g, '');

/** Scores labelled texts per type family, and checks that redaction leaves no gold value readable. */
export function scoreLabelled(cases: LabelledText[], opts: DetectOptions = {}, only?: string[]): FixtureScore {
  const perType: Record<string, Tally> = {};
  const leaks: Record<string, number> = {};
  const failures: string[] = [];
  for (const c of cases) {
    const predicted = detectPii(c.text, opts);
    const fams = new Set([...c.gold.map((g) => g.type), ...predicted.map((p) => family(p.type))].filter((f) => !only || only.includes(f)));
    let ok = true;
    for (const f of fams) {
      const t = (perType[f] ??= emptyTally());
      const before = { ...t };
      score(
        c.gold.filter((g) => g.type === f),
        predicted.filter((p) => family(p.type) === f),
        t,
      );
      if (t.fp > before.fp || t.fn > before.fn) ok = false;
    }
    const out = foldForLeak(redact(c.text, predicted).text);
    for (const g of c.gold) {
      if (only && !only.includes(g.type)) continue;
      const value = foldForLeak(c.text.slice(g.start, g.end));
      if (value.length >= 3 && out.includes(value)) leaks[g.type] = (leaks[g.type] ?? 0) + 1;
    }
    if (!ok)
      failures.push(
        `${JSON.stringify(c.text)} => ${predicted.map((p: PiiSpan) => `${p.type}(${JSON.stringify(p.value)})`).join(' ') || 'nothing'}`,
      );
  }
  return { perType, leaks, failures, rows: cases.length };
}

/** Our own hand-written sets, as written or with the invisible-character variant of every case. */
export function scoreFixture(file: string, opts: DetectOptions = {}, variant: 'plain' | 'invisible' = 'plain'): FixtureScore {
  const cases = readFixture(file);
  return scoreLabelled(variant === 'plain' ? cases : cases.map((c, i) => withInvisible(c, i)), opts);
}

/**
 * A presidio test file as labelled texts. Phone rows that test a non-default leniency are left out (presidio's
 * default is VALID, leniency 1, which is what libphonenumber-js finds).
 */
export function presidioCases(dir: string, name: string): LabelledText[] {
  const target = PRESIDIO_TARGETS[name];
  if (!target) throw new Error(`no presidio target for ${name}`);
  const type = family(target.types[0]!); // every target names at least one type
  return readJsonl(path.join(dir, `test_${name}_recognizer.jsonl`))
    .filter((row) => row.leniency === undefined || row.leniency === 1)
    .map((row) => {
      const text = String(row.text);
      const toU16 = codePointToUtf16(text);
      const positions = (name === 'url' ? [] : ((row.expected_positions ?? row.expected_res ?? []) as number[][])) ?? [];
      return { text, gold: positions.map(([s = 0, e = 0]) => ({ type, start: toU16(s), end: toU16(e) })) };
    });
}

/** The synth dataset as labelled texts, typed with our families. */
export function synthCases(file: string): LabelledText[] {
  const samples = JSON.parse(fs.readFileSync(file, 'utf8')) as SynthSample[];
  return samples.map((s) => {
    const toU16 = codePointToUtf16(s.full_text);
    const gold = s.spans.flatMap((g) => {
      const type = SYNTH_MAP[g.entity_type]?.[0];
      return type ? [{ type: family(type), start: toU16(g.start_position), end: toU16(g.end_position) }] : [];
    });
    return { text: s.full_text, gold };
  });
}
