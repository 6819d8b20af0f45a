// One sample -> the lines an export writes for it, and what the export summary reports about them:
// label balance, token counts with the target model's tokenizer, languages, duplicates dropped.
import { hash } from 'node:crypto';
import { DigestSet } from '../text/digestSet';
import type { LabelBalance, TokenReport } from '../../shared/contract';
import type { ExportFormat } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import {
  alpacaRecord,
  csvRow,
  ktoRecords,
  openaiDpoRecord,
  openaiRecord,
  rankingRecord,
  rawRecord,
  sharegptRecord,
  type CsvRowSample,
  type RawRecordSample,
  type StoredJson,
  taskOf,
  type Task,
} from './formats';
import type { DatasetSample, SampleContent } from './types';
import { trainingRow, type TrainingRowSample } from '../parquet/trainingRows';

/** CSV cells that a spreadsheet would run as a formula: = + - @, and a leading tab or carriage return. */
export const CSV_FORMULA = /^[=+\-@\t\r]/;
/** Excel's cell limit; longer cells are cut with a marker that says so (the raw export keeps everything). */
export const EXCEL_CELL_LIMIT = 32_767;
const CUT_MARKER = (n: number) => `…[truncated ${n} characters; the raw export has the full text]`;

/** What the tally counts of what a sample teaches: its step and label (taskOf's, without its texts). */
export type TaughtLabel = Pick<Task, 'step' | 'label'>;

const isTask = (t: Task | TaughtLabel): t is Task => 'instruction' in t;

const GUARDIAN_LABEL = { written: 'write', refused: 'refuse', skipped: 'skip' } as const;

/**
 * taskOf(content)'s step and label without building its prompt and answer texts (a transcript and an
 * answer per sample, about 1.6 µs): the raw export writes the content, and its tally needs only these.
 * Annotated turns have none here (the tally does not count them).
 */
export function taughtLabel(c: SampleContent): TaughtLabel | null {
  switch (c.type) {
    case 'memory_gate_positive':
    case 'memory_gate_negative':
      return { step: 'memory_gate', label: c.correctDecision === 'NO_WRITE' ? 'no_write' : 'write' };
    case 'write_guardian_decision':
      return { step: 'write_guardian', label: GUARDIAN_LABEL[c.userCorrection ? c.userCorrection.correctedDecision : c.decision] };
    case 'annotated_turn':
      return null;
  }
}

/** What the write loop and the tally read of a sample. */
export type ExportedSample = Pick<DatasetSample, 'id' | 'sampleType' | 'sessionId' | 'annotationStatus' | 'qualityScore'>;
/** A sample with the fields the raw, csv and parquet records read. */
export type RecordSample = ExportedSample & RawRecordSample & CsvRowSample & TrainingRowSample;

function withRecordFields(s: ExportedSample | RecordSample, format: ExportFormat): RecordSample {
  if (!('createdAt' in s)) throw new AppError('Internal', `export: a ${format} record needs the sample's lineage columns`);
  return s;
}

/**
 * The records a sample becomes in a format (KTO: one or two; preference formats: none without a pair).
 * task: taskOf(content) when the caller has it (the tally needs it too), so it is built once per sample.
 */
export function recordsOf(
  format: ExportFormat,
  s: ExportedSample | RecordSample,
  content: SampleContent,
  sessionId: string,
  task?: Task | null,
  json: StoredJson | null = null,
): unknown[] {
  const t = task ?? undefined;
  switch (format) {
    case 'alpaca':
      return [alpacaRecord(content, t)];
    case 'sharegpt':
      return [sharegptRecord(content, t)];
    case 'openai':
      return [openaiRecord(content, t)];
    case 'openai-dpo': {
      const rec = openaiDpoRecord(content, t);
      return rec ? [rec] : [];
    }
    case 'ranking': {
      const rec = rankingRecord(content, t);
      return rec ? [rec] : [];
    }
    case 'kto':
      return ktoRecords(content, t);
    case 'parquet':
      // the split column is set when the row is written
      return [trainingRow(withRecordFields(s, format), content, 'train', sessionId, t)];
    case 'raw':
      return [rawRecord(withRecordFields(s, format), content, sessionId)];
    case 'csv':
      return [csvRow(withRecordFields(s, format), content, sessionId, t, json)];
  }
}

/** `"key":` for each key a record has written (a handful of names). */
const keyPrefixes = new Map<string, string>();
const keyPrefix = (k: string): string => {
  let p = keyPrefixes.get(k);
  if (p === undefined) keyPrefixes.set(k, (p = `${JSON.stringify(k)}:`));
  return p;
};

/**
 * JSON.stringify(record), with the values of `texts` keys written as those texts (each one exactly what
 * JSON.stringify writes for that value). Properties are walked as JSON.stringify walks a plain object:
 * own enumerable keys in order, an undefined value left out.
 */
function stringifyWith(record: Record<string, unknown>, texts: Record<string, string | null>): string {
  let out = '';
  for (const k in record) {
    const v = record[k];
    if (v === undefined) continue;
    const text = texts[k] ?? (JSON.stringify(v) as string | undefined);
    if (text === undefined) continue;
    out += out ? `,${keyPrefix(k)}${text}` : `{${keyPrefix(k)}${text}`;
  }
  return out ? `${out}}` : '{}';
}

/** Stand-ins for the stored texts in a raw record, each found again as `"key":"<its JSON escape>"`. */
const STAND_IN = { content: '\u0000content', qualityFactors: '\u0000qualityFactors', labels: '\u0000labels' } as const;
const STAND_IN_KEYS = ['content', 'qualityFactors', 'labels'] as const;
const STAND_IN_TEXT = STAND_IN_KEYS.map((k) => `${JSON.stringify(k)}:${JSON.stringify(STAND_IN[k])}`);

/**
 * The raw export's line for a sample: JSON.stringify(rawRecord(...)) without serializing its stored texts
 * again. With all three texts known, the record is serialized with stand-ins for them, which are then
 * replaced: an unescaped quote in the output only delimits a string, so `"content":"\u0000content"` can
 * only be that key and value, and the values before each stand-in are scalars or stand-ins, so the first
 * match is the record's own. Otherwise the record is serialized key by key (stringifyWith).
 */
export function rawLine(s: RecordSample, content: SampleContent, sessionId: string, json: StoredJson): string {
  const record = rawRecord(withRecordFields(s, 'raw'), content, sessionId);
  const texts = { content: json.content, labels: json.labels, qualityFactors: json.qualityFactors };
  if (json.content === null || json.labels === null || json.qualityFactors === null) return stringifyWith(record, texts);
  record.content = STAND_IN.content;
  record.qualityFactors = STAND_IN.qualityFactors;
  record.labels = STAND_IN.labels;
  const line = JSON.stringify(record);
  let out = '';
  let from = 0;
  for (let k = 0; k < STAND_IN_KEYS.length; k++) {
    const at = line.indexOf(STAND_IN_TEXT[k]!, from);
    // never expected: the serializer wrote the record differently; the key-by-key form is exact
    if (at < 0) return stringifyWith(record, texts);
    const key = STAND_IN_KEYS[k]!;
    out += `${line.slice(from, at)}${keyPrefix(key)}${json[key]}`;
    from = at + STAND_IN_TEXT[k]!.length;
  }
  return out + line.slice(from);
}

/** Cuts cells over Excel's limit (counting the quote Papa Parse may add before a formula). */
export function fitCells(row: (string | number | null)[]): { row: (string | number | null)[]; cut: number } {
  let cut = 0;
  // the row itself when no cell is over the limit (nearly always): no copy per row
  let out = row;
  for (let i = 0; i < row.length; i++) {
    const cell = row[i];
    if (typeof cell !== 'string' || cell.length <= EXCEL_CELL_LIMIT - 1) continue;
    cut++;
    const marker = CUT_MARKER(0);
    const keep = EXCEL_CELL_LIMIT - 1 - marker.length - 8;
    if (out === row) out = row.slice();
    out[i] = cell.slice(0, keep) + CUT_MARKER(cell.length - keep);
  }
  return { row: out, cut };
}

/** What a CSV cell must be quoted for besides a quote: a line break, the delimiter, a byte order mark. */
const CSV_QUOTED = /[\r\n,\ufeff]/;

/** CSV_FORMULA.test(text) by the first character's code: a regular expression run per cell cost more. */
function startsFormula(text: string): boolean {
  const c = text.charCodeAt(0);
  // = + - @ tab carriage return
  return c === 0x3d || c === 0x2b || c === 0x2d || c === 0x40 || c === 0x09 || c === 0x0d;
}

/** One CSV cell exactly as Papa Parse's unparse writes it with escapeFormulae CSV_FORMULA (papaparse 5, `safe`). */
function csvCell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  // a number's text holds nothing that is quoted or escaped
  if (typeof value !== 'string') return String(value);
  let text = value;
  let quote = false;
  if (startsFormula(text)) {
    text = `'${text}`;
    quote = true;
  }
  if (text.includes('"')) return `"${text.replace(/"/g, '""')}"`;
  if (quote || CSV_QUOTED.test(text) || text.charCodeAt(0) === 32 || text.charCodeAt(text.length - 1) === 32) return `"${text}"`;
  return text;
}

/** One CSV row without its line break: Papa.unparse([row], { header: false, escapeFormulae: CSV_FORMULA }), without its per-call setup. */
export function csvLine(row: readonly (string | number | null)[]): string {
  let line = '';
  for (let i = 0; i < row.length; i++) line += i ? `,${csvCell(row[i])}` : csvCell(row[i]);
  return line;
}

/** The exact text written for one record (JSON line or CSV row), without the line break. */
export function recordText(format: ExportFormat, record: unknown): string {
  if (format === 'csv') return csvLine(record as (string | number | null)[]);
  // a Parquet row carries ids; what it trains is its Alpaca triple, which the record hash stands for
  if (format === 'parquet') return (record as { record_hash: string }).record_hash;
  return JSON.stringify(record);
}

export type Counter = (text: string) => number;

/** OpenAI's count for a chat example: 3 tokens per message plus its content, plus 3 to prime the reply. */
function chatTokens(count: Counter, contents: string[]): number {
  return contents.reduce((n, c) => n + 3 + count(c), 3);
}

/**
 * A chat example's token bound and estimate. A byte-level BPE token covers at least one UTF-8 byte, so
 * the bytes bound the count from above: an example whose bound is within the limit cannot be over it,
 * and needs no tokenizer. The estimate takes about four ASCII characters per token and one per other
 * character, counting those from the byte length (a CJK character is three bytes).
 */
function chatBoundAndEstimate(contents: string[]): { bound: number; estimate: number } {
  let bound = 3;
  let estimate = 3;
  for (const c of contents) {
    const bytes = Buffer.byteLength(c, 'utf8');
    const other = (bytes - c.length) / 2;
    bound += 3 + bytes;
    estimate += 3 + Math.ceil((c.length - other) / 4) + Math.ceil(other);
  }
  return { bound, estimate };
}

/** The texts a record trains on, as chat messages (prompt parts and the longest answer). */
function exampleContents(task: Task, record: unknown): string[] {
  const r = record as Record<string, unknown>;
  if (typeof r.chosen === 'string' && typeof r.rejected === 'string')
    return [task.instruction, task.input, r.chosen.length > r.rejected.length ? r.chosen : r.rejected];
  if (typeof r.completion === 'string') return [task.instruction, task.input, r.completion];
  return [task.instruction, task.input, task.output];
}

/** Languages by script, in the order ties are broken (the earlier wins). */
const LANGS = ['zh', 'ja', 'ko', 'ru', 'en'] as const;
/** The scripts of zh, ja, ko and ru; a code point belongs to at most one. Latin (en) is tested on its own. */
const SCRIPTS = [/\p{Script=Han}/u, /[\p{Script=Hiragana}\p{Script=Katakana}]/u, /\p{Script=Hangul}/u, /\p{Script=Cyrillic}/u];
const LATIN = /\p{Script=Latin}/u;
const EN = 4;
const ASCII_RUNS = /[\x00-\x7f]+/g;
/** Enumerations and ids, not language (matched against the field's own key). */
const NOT_TEXT_NAMES = [
  'type',
  'correctDecision',
  'incorrectDecision',
  'decision',
  'label',
  'targetFile',
  'correctedTargetFile',
  'role',
  'status',
  'conversationId',
];
const NOT_TEXT = new RegExp(`(^|\\.)(${NOT_TEXT_NAMES.join('|')})$`);
const NOT_TEXT_KEYS = new Set(NOT_TEXT_NAMES);
/** NOT_TEXT.test(key); a key without a dot matches it exactly when it is one of the names: a set lookup, no regex run. */
const notText = (key: string): boolean => (key.includes('.') ? NOT_TEXT.test(key) : NOT_TEXT_KEYS.has(key));

/**
 * The script of a non-ASCII code point, each tested once by its regular expression and then remembered:
 * a text is counted in one pass instead of a match array per script. Bits: 1 known, 2 Latin, 4..: script + 1.
 */
const bmpScripts = new Uint8Array(0x10000);
const astralScripts = new Map<number, number>();

function scriptBits(cp: number): number {
  // the first test of a code point is a function of its own: its closure over the character made V8 allocate
  // a context on every call here, remembered or not (about 1 KB per sample of Chinese text)
  return (cp < 0x10000 ? bmpScripts[cp]! : (astralScripts.get(cp) ?? 0)) || testScript(cp);
}

/** scriptBits of a code point not seen before, remembered. */
function testScript(cp: number): number {
  const ch = String.fromCodePoint(cp);
  let bits = 1 | (LATIN.test(ch) ? 2 : 0);
  const script = SCRIPTS.findIndex((re) => re.test(ch));
  if (script >= 0) bits |= (script + 1) << 2;
  if (cp < 0x10000) bmpScripts[cp] = bits;
  else astralScripts.set(cp, bits);
  return bits;
}

/** The code point at i (a surrogate pair as one, as a /u regular expression reads it) and its length. */
function codePointAt(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
    const d = text.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return (c - 0xd800) * 0x400 + (d - 0xdc00) + 0x10000;
  }
  return c;
}

/** Adds one text's letters per script to counts (indexes of LANGS). */
function countScripts(text: string, counts: number[]): void {
  // most texts are ASCII: their Latin letters are counted in a local, and the rest is walked only after a non-ASCII character
  let en = 0;
  let i = 0;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) break;
    const lower = c | 0x20;
    if (lower >= 0x61 && lower <= 0x7a) en++;
  }
  counts[EN]! += en;
  if (i < text.length) countScriptsFrom(text, i, counts);
}

/** countScripts from the first non-ASCII character at start on. */
function countScriptsFrom(text: string, start: number, counts: number[]): void {
  let nonAscii = false;
  let lone = false;
  // letters per script of SCRIPTS, in locals rather than an array per text
  let han = 0;
  let kana = 0;
  let hangul = 0;
  let cyrillic = 0;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) {
      const lower = c | 0x20;
      if (lower >= 0x61 && lower <= 0x7a) counts[EN]!++;
      continue;
    }
    nonAscii = true;
    const cp = codePointAt(text, i);
    if (cp > 0xffff) i++;
    else if (cp >= 0xd800 && cp <= 0xdfff) lone = true;
    const bits = scriptBits(cp);
    if (bits & 2) counts[EN]!++;
    const script = bits >> 2;
    if (script === 1) han++;
    else if (script === 2) kana++;
    else if (script === 3) hangul++;
    else if (script === 4) cyrillic++;
  }
  if (!nonAscii) return;
  // Han, kana, Hangul and Cyrillic are counted in the text without its ASCII runs, as they always were:
  // those are the non-ASCII characters counted above, unless removing a run joins two lone surrogates
  // into one character, so only a text with a lone surrogate is walked again
  if (!lone) {
    counts[0]! += han;
    counts[1]! += kana;
    counts[2]! += hangul;
    counts[3]! += cyrillic;
    return;
  }
  const other = text.replace(ASCII_RUNS, '');
  for (let i = 0; i < other.length; i++) {
    const cp = codePointAt(other, i);
    if (cp > 0xffff) i++;
    const script = scriptBits(cp) >> 2;
    if (script) counts[script - 1]!++;
  }
}

/**
 * Every string in content that is text (not an enumeration or id): its own key names what it holds. The
 * same strings as walkTexts with NOT_TEXT tested on lastKey, without a key path per string: an array
 * index (a string's key inside an array) never matches NOT_TEXT, so only object keys are tested.
 */
function forEachProse(value: unknown, fn: (text: string) => void, prose = true): void {
  if (typeof value === 'string') {
    if (prose) fn(value);
  } else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) forEachProse(value[i], fn);
  } else if (value && typeof value === 'object') {
    // for-in reads a parsed object's own keys in Object.keys order without an array per object
    for (const k in value) {
      const v = (value as Record<string, unknown>)[k];
      forEachProse(v, fn, typeof v !== 'string' || !notText(k));
    }
  }
}

/** What scanAscii found in a sample's texts: all of them ASCII, and a letter among them. */
let proseAscii = true;
let proseLetter = false;
const ASCII_LETTER = /[A-Za-z]/;

function scanAscii(text: string): void {
  if (!proseAscii) return;
  // a text is ASCII exactly when its UTF-8 is as long as it is: counted natively, a third of a loop's time
  if (Buffer.byteLength(text, 'utf8') !== text.length) proseAscii = false;
  else if (!proseLetter) proseLetter = ASCII_LETTER.test(text);
}

/**
 * The language of a sample: the script with the most letters in its texts (kana before Han, since
 * Japanese mixes both). Latin script is reported as English, the only Latin language the plugin targets.
 */
export function sampleLanguage(content: unknown): string | null {
  // most samples are ASCII: no script but Latin, so English exactly when a text has a letter
  proseAscii = true;
  proseLetter = false;
  forEachProse(content, scanAscii);
  if (proseAscii) return proseLetter ? 'en' : null;
  // every script from the start, in LANGS order: ties go to the earlier one
  const counts = [0, 0, 0, 0, 0];
  forEachProse(content, (text) => countScripts(text, counts));
  const [zh = 0, ja = 0] = counts;
  if (ja > 0 && ja * 5 >= zh) counts[1] = ja + zh;
  let best: string | null = null;
  let n = 0;
  for (let i = 0; i < LANGS.length; i++) {
    // CJK characters carry a word each; Latin needs ~5 letters for one
    const weight = i === EN || LANGS[i] === 'ru' ? counts[i]! / 5 : counts[i]!;
    if (weight > n) {
      best = LANGS[i]!;
      n = weight;
    }
  }
  return best;
}

/** Characters of record texts a tally keeps before it keeps their digests instead (16 MB of ASCII). */
const KEPT_TEXT_CHARS = 16 << 20;

export class ExportTally {
  readonly balance: LabelBalance = { memory_gate: { write: 0, no_write: 0 }, write_guardian: { write: 0, refuse: 0, skip: 0 } };
  readonly languages = new Map<string, number>();
  readonly tokens: TokenReport;
  duplicatesDropped = 0;
  readonly duplicateSampleIds: string[] = [];
  cutCells = 0;
  /** Digests of the records written (once the texts below are given up). */
  private readonly seen = new DigestSet();
  /**
   * The records written, as their texts, until they hold KEPT_TEXT_CHARS: a set lookup costs far less than
   * a SHA-256 (about 1.5 µs warm, 4 µs cold, a tenth of a small export like ranking). JSON lines hold no
   * lone surrogate, so two texts are the same string exactly when their UTF-8 bytes are the same.
   */
  private texts: Set<string> | null = new Set<string>();
  private textChars = 0;
  private count: Counter | null = null;
  /** Examples that could be over the limit, waiting for the tokenizer (countPending). */
  private pending: { sampleId: string; contents: string[] }[] = [];

  /** loadCounter: the target model's tokenizer, imported only when an example could reach the limit. */
  constructor(
    private readonly format: ExportFormat,
    target: { model: string; encoding: string; limit: number },
    private readonly loadCounter: (() => Promise<Counter>) | null,
    private readonly keptTextChars = KEPT_TEXT_CHARS,
  ) {
    this.tokens = { ...target, total: 0, max: 0, overLimit: 0, sampleIds: [] };
    if (format === 'kto') this.balance.kto = { desirable: 0, undesirable: 0 };
  }

  /**
   * False when an identical record (byte for byte, after redaction) was already written. digest: the text is
   * already a SHA-256 of the record (a Parquet row's record_hash), so it is the key as it is.
   */
  firstTime(text: string, sampleId: string, digest = false): boolean {
    if (!digest && this.texts) {
      if (this.texts.has(text)) return this.dropped(sampleId);
      this.texts.add(text);
      this.textChars += text.length;
      if (this.textChars > this.keptTextChars) {
        for (const t of this.texts) this.seen.addBytes(hash('sha256', t, 'buffer'));
        this.texts = null;
      }
      return true;
    }
    const added = digest ? this.seen.addHex(text) : this.seen.addBytes(hash('sha256', text, 'buffer'));
    return added || this.dropped(sampleId);
  }

  private dropped(sampleId: string): false {
    this.duplicatesDropped++;
    if (this.duplicateSampleIds.length < 50) this.duplicateSampleIds.push(sampleId);
    return false;
  }

  /**
   * Counts one written sample (its labels, language and tokens of each of its records); task: taskOf(content),
   * or for raw and csv, which count no tokens, its taughtLabel.
   */
  add(s: ExportedSample, content: SampleContent, records: unknown[], taught?: Task | TaughtLabel | null): void {
    const lang = sampleLanguage(content);
    if (lang) this.languages.set(lang, (this.languages.get(lang) ?? 0) + 1);
    if (s.sampleType === 'annotated_turn') return;
    const task = taught ?? taskOf(content);
    if (this.format === 'kto') {
      for (const rec of records) (rec as { label: boolean }).label ? this.balance.kto!.desirable++ : this.balance.kto!.undesirable++;
    }
    if (task.step === 'memory_gate') this.balance.memory_gate[task.label === 'no_write' ? 'no_write' : 'write']++;
    else this.balance.write_guardian[task.label === 'refuse' ? 'refuse' : task.label === 'skip' ? 'skip' : 'write']++;
    if (!this.loadCounter || this.format === 'raw' || this.format === 'csv') return;
    const full = isTask(task) ? task : taskOf(content);
    for (const rec of records) {
      const contents = exampleContents(full, rec);
      const { bound, estimate } = chatBoundAndEstimate(contents);
      if (bound <= this.tokens.limit) {
        this.tokens.estimated = true;
        this.countExample(s.id, estimate);
      } else if (this.count) this.countExample(s.id, chatTokens(this.count, contents));
      else this.pending.push({ sampleId: s.id, contents });
    }
  }

  /** Whether add() left examples that only the tokenizer can count: call countPending() before the next add(). */
  get hasPending(): boolean {
    return this.pending.length > 0;
  }

  /** Loads the tokenizer (once) and counts the examples that could be over the limit. */
  async countPending(): Promise<void> {
    if (!this.pending.length || !this.loadCounter) return;
    this.count ??= await this.loadCounter();
    for (const p of this.pending.splice(0)) this.countExample(p.sampleId, chatTokens(this.count, p.contents));
  }

  private countExample(sampleId: string, n: number): void {
    this.tokens.total += n;
    if (n > this.tokens.max) this.tokens.max = n;
    if (n > this.tokens.limit) {
      this.tokens.overLimit++;
      if (this.tokens.sampleIds.length < 20) this.tokens.sampleIds.push(sampleId);
    }
  }

  /** Languages that are the main language of at least one exported sample, most frequent first. */
  languageList(): string[] {
    return [...this.languages.entries()].sort((a, b) => b[1] - a[1]).map(([l]) => l);
  }
}
