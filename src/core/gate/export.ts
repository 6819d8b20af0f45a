// Streams decisions out as JSON, CSV (papaparse, RFC 4180) or a Markdown table, one row at a time.
import fs from 'node:fs';
import type { Writable } from 'node:stream';
import Papa from 'papaparse';
import { AppError } from '../../shared/errors';
import type { ServiceContext } from '../context';
import { createRedactor, detectPii } from '../pii';
import type { GateDecisionRow } from '../../shared/contract/records';
import { iterateDecisionsForExport } from '../db/repositories/decisions';
import { decisionQuery, type DecisionFilters } from './list';

export const DECISION_EXPORT_FORMATS = ['json', 'csv', 'markdown'] as const;
export type DecisionExportFormat = (typeof DECISION_EXPORT_FORMATS)[number];

export interface ExportDecisionsInput extends DecisionFilters {
  format?: DecisionExportFormat;
  /** Write here; when absent, `output` must be given. */
  file?: string;
  output?: Writable;
  /** CSV only: start with a UTF-8 byte order mark so Excel shows Chinese correctly. */
  bom?: boolean;
  /** Export personal data and secrets as recorded. By default they are replaced with typed placeholders. */
  includePii?: boolean;
}

export interface ExportDecisionsResult {
  format: DecisionExportFormat;
  rows: number;
  file?: string;
}

const CSV_FIELDS = [
  'id',
  'created_at',
  'session_id',
  'turn_id',
  'turn_number',
  'decision',
  'reason',
  'candidate_fact',
  'llm_model',
  'llm_latency_ms',
  'prompt_tokens',
  'completion_tokens',
  'write_status',
  'user_message',
  'agent_reply',
] as const;

function csvRecord(d: GateDecisionRow): unknown[] {
  return [
    d.id,
    new Date(d.createdAt).toISOString(),
    d.sessionId,
    d.turnId,
    d.turnNumber,
    d.decision,
    d.reason,
    d.candidateFact ?? '',
    d.model,
    d.latencyMs ?? '',
    d.promptTokens ?? '',
    d.completionTokens ?? '',
    d.writeStatus ?? '',
    d.userMessage ?? '',
    d.agentReply ?? '',
  ];
}

const mdCell = (v: unknown) =>
  String(v ?? '')
    .replace(/\\/g, '\\\\')
    .replace(/\|/g, '\\|')
    .replace(/\r?\n/g, ' ');

async function write(out: Writable, chunk: string): Promise<void> {
  if (!out.write(chunk)) await new Promise<void>((resolve) => out.once('drain', resolve));
}

export async function exportDecisions(ctx: ServiceContext, input: ExportDecisionsInput): Promise<ExportDecisionsResult> {
  const format = input.format ?? 'json';
  if (!DECISION_EXPORT_FORMATS.includes(format))
    throw new AppError('Invalid', `format: expected one of ${DECISION_EXPORT_FORMATS.join(', ')}, got ${format}`);
  if (!input.file && !input.output) throw new AppError('Invalid', 'file: give a file to write or an output stream');
  // Opted-out sessions never leave the workspace (cross-area agreement): the repository skips them.
  const decisions = iterateDecisionsForExport(ctx.db, decisionQuery(ctx, input));

  const out = input.output ?? fs.createWriteStream(input.file!, { encoding: 'utf8' });
  let rows = 0;
  try {
    if (format === 'csv') {
      await write(out, `${input.bom ? '\uFEFF' : ''}${Papa.unparse([[...CSV_FIELDS]], { newline: '\r\n' })}\r\n`);
    } else if (format === 'markdown') {
      await write(out, `| ${CSV_FIELDS.join(' | ')} |\n|${CSV_FIELDS.map(() => ' --- ').join('|')}|\n`);
    } else {
      await write(out, '[');
    }
    for (const row of decisions) {
      const d = input.includePii ? row : redactDecision(row);
      if (format === 'csv') {
        // escapeFormulae prefixes cells starting with = + - @ (and tab, CR) with ', so a spreadsheet never runs them.
        await write(out, `${Papa.unparse([csvRecord(d)], { header: false, newline: '\r\n', escapeFormulae: true })}\r\n`);
      } else if (format === 'markdown') {
        await write(out, `| ${csvRecord(d).map(mdCell).join(' | ')} |\n`);
      } else {
        await write(out, `${rows ? ',' : ''}\n${JSON.stringify(d)}`);
      }
      rows++;
      if (ctx.signal?.aborted) throw new AppError('Cancelled', 'export cancelled');
      if (rows % 10_000 === 0) ctx.progress?.(rows, null, 'decisions');
    }
    if (format === 'json') await write(out, rows ? '\n]\n' : ']\n');
  } finally {
    if (!input.output)
      await new Promise<void>((resolve, reject) => (out as fs.WriteStream).end((e?: Error | null) => (e ? reject(e) : resolve())));
  }
  return { format, rows, file: input.file };
}

/** One numbering per decision: the same address is the same placeholder in its messages, reason and fact. */
function redactDecision(d: GateDecisionRow): GateDecisionRow {
  const redactor = createRedactor();
  const clean = (t: string) => redactor.redact(t, detectPii(t)).text;
  return {
    ...d,
    userMessage: clean(d.userMessage ?? ''),
    agentReply: clean(d.agentReply ?? ''),
    reason: clean(d.reason),
    candidateFact: d.candidateFact == null ? d.candidateFact : clean(d.candidateFact),
  };
}
