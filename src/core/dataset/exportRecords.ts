// One sample -> the lines an export writes for it, and what the export summary reports about them:
// label balance, token counts with the target model's tokenizer, languages, duplicates dropped.
import { createHash } from 'node:crypto';
import Papa from 'papaparse';
import type { LabelBalance, TokenReport } from '../../shared/contract';
import type { ExportFormat } from '../../shared/domain';
import { forEachText } from './privacy';
import {
  alpacaRecord,
  csvRow,
  ktoRecords,
  openaiDpoRecord,
  openaiRecord,
  rankingRecord,
  rawRecord,
  sharegptRecord,
  taskOf,
  type Task,
} from './formats';
import type { DatasetSample, SampleContent } from './types';
import { trainingRow } from '../parquet/trainingRows';

/** CSV cells that a spreadsheet would run as a formula: = + - @, and a leading tab or carriage return. */
export const CSV_FORMULA = /^[=+\-@\t\r]/;
/** Excel's cell limit; longer cells are cut with a marker that says so (the raw export keeps everything). */
export const EXCEL_CELL_LIMIT = 32_767;
const CUT_MARKER = (n: number) => `…[truncated ${n} characters; the raw export has the full text]`;

/** The records a sample becomes in a format (KTO: one or two; preference formats: none without a pair). */
export function recordsOf(
  format: ExportFormat,
  s: DatasetSample,
  content: SampleContent,
  sessionId: string,
  contentJson?: string,
): unknown[] {
  switch (format) {
    case 'alpaca':
      return [alpacaRecord(content)];
    case 'sharegpt':
      return [sharegptRecord(content)];
    case 'openai':
      return [openaiRecord(content)];
    case 'openai-dpo':
      return [openaiDpoRecord(content)].filter(Boolean);
    case 'ranking':
      return [rankingRecord(content)].filter(Boolean);
    case 'kto':
      return ktoRecords(content);
    case 'parquet':
      // the split column is set when the row is written
      return [trainingRow(s, content, 'train', sessionId)];
    case 'raw':
      return [rawRecord(s, content, sessionId)];
    case 'csv':
      return [csvRow(s, content, sessionId, contentJson)];
  }
}

/** Cuts cells over Excel's limit (counting the quote Papa Parse may add before a formula). */
export function fitCells(row: (string | number | null)[]): { row: (string | number | null)[]; cut: number } {
  let cut = 0;
  const out = row.map((cell) => {
    if (typeof cell !== 'string' || cell.length <= EXCEL_CELL_LIMIT - 1) return cell;
    cut++;
    const marker = CUT_MARKER(0);
    const keep = EXCEL_CELL_LIMIT - 1 - marker.length - 8;
    return cell.slice(0, keep) + CUT_MARKER(cell.length - keep);
  });
  return { row: out, cut };
}

/** The exact text written for one record (JSON line or CSV row), without the line break. */
export function recordText(format: ExportFormat, record: unknown): string {
  if (format === 'csv') return Papa.unparse([record as unknown[]], { header: false, newline: '\r\n', escapeFormulae: CSV_FORMULA });
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

const SCRIPTS: [string, RegExp][] = [
  ['zh', /\p{Script=Han}/gu],
  ['ja', /[\p{Script=Hiragana}\p{Script=Katakana}]/gu],
  ['ko', /\p{Script=Hangul}/gu],
  ['ru', /\p{Script=Cyrillic}/gu],
  ['en', /\p{Script=Latin}/gu],
];
const ASCII_RUNS = /[\x00-\x7f]+/g;
/** Enumerations and ids, not language. */
const NOT_TEXT = /(^|\.)(type|correctDecision|incorrectDecision|decision|label|targetFile|correctedTargetFile|role|status|conversationId)$/;

/**
 * The language of a sample: the script with the most letters in its texts (kana before Han, since
 * Japanese mixes both). Latin script is reported as English, the only Latin language the plugin targets.
 */
export function sampleLanguage(content: unknown): string | null {
  // every script from the start, in SCRIPTS order: ties go to the earlier one
  const counts = new Map<string, number>(SCRIPTS.map(([lang]) => [lang, 0]));
  forEachText(content, (field, text) => {
    if (NOT_TEXT.test(field)) return;
    // Han, kana, Hangul and Cyrillic have no ASCII letters: they are counted in the text without its
    // ASCII runs (the same counts, on a much shorter string), Latin in the whole text
    const ascii = Buffer.byteLength(text, 'utf8') === text.length;
    const other = ascii ? '' : text.replace(ASCII_RUNS, '');
    for (const [lang, re] of SCRIPTS) {
      if (lang !== 'en' && !other) continue;
      counts.set(lang, (counts.get(lang) ?? 0) + ((lang === 'en' ? text : other).match(re)?.length ?? 0));
    }
  });
  if ((counts.get('ja') ?? 0) > 0 && (counts.get('ja') ?? 0) * 5 >= (counts.get('zh') ?? 0))
    counts.set('ja', (counts.get('ja') ?? 0) + (counts.get('zh') ?? 0));
  let best: string | null = null;
  let n = 0;
  for (const [lang, c] of counts) {
    // CJK characters carry a word each; Latin needs ~5 letters for one
    const weight = lang === 'en' || lang === 'ru' ? c / 5 : c;
    if (weight > n) {
      best = lang;
      n = weight;
    }
  }
  return best;
}

export class ExportTally {
  readonly balance: LabelBalance = { memory_gate: { write: 0, no_write: 0 }, write_guardian: { write: 0, refuse: 0, skip: 0 } };
  readonly languages = new Map<string, number>();
  readonly tokens: TokenReport;
  duplicatesDropped = 0;
  readonly duplicateSampleIds: string[] = [];
  cutCells = 0;
  private readonly seen = new Set<string>();
  private count: Counter | null = null;
  /** Examples that could be over the limit, waiting for the tokenizer (countPending). */
  private pending: { sampleId: string; contents: string[] }[] = [];

  /** loadCounter: the target model's tokenizer, imported only when an example could reach the limit. */
  constructor(
    private readonly format: ExportFormat,
    target: { model: string; encoding: string; limit: number },
    private readonly loadCounter: (() => Promise<Counter>) | null,
  ) {
    this.tokens = { ...target, total: 0, max: 0, overLimit: 0, sampleIds: [] };
    if (format === 'kto') this.balance.kto = { desirable: 0, undesirable: 0 };
  }

  /** False when an identical record (byte for byte, after redaction) was already written. */
  firstTime(text: string, sampleId: string): boolean {
    const key = createHash('sha256').update(text).digest('base64');
    if (this.seen.has(key)) {
      this.duplicatesDropped++;
      if (this.duplicateSampleIds.length < 50) this.duplicateSampleIds.push(sampleId);
      return false;
    }
    this.seen.add(key);
    return true;
  }

  /** Counts one written sample (its labels, language and tokens of each of its records). */
  add(s: DatasetSample, content: SampleContent, records: unknown[]): void {
    const lang = sampleLanguage(content);
    if (lang) this.languages.set(lang, (this.languages.get(lang) ?? 0) + 1);
    if (s.sampleType === 'annotated_turn') return;
    const task = taskOf(content);
    if (this.format === 'kto') {
      for (const rec of records) (rec as { label: boolean }).label ? this.balance.kto!.desirable++ : this.balance.kto!.undesirable++;
    }
    if (task.step === 'memory_gate') this.balance.memory_gate[task.label === 'no_write' ? 'no_write' : 'write']++;
    else this.balance.write_guardian[task.label === 'refuse' ? 'refuse' : task.label === 'skip' ? 'skip' : 'write']++;
    if (!this.loadCounter || this.format === 'raw' || this.format === 'csv') return;
    for (const rec of records) {
      const contents = exampleContents(task, rec);
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
