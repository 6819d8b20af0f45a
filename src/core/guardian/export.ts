// Streams audits as JSON, CSV (papaparse, with formula escaping for spreadsheet safety) or
// Markdown. Rows are read with a statement iterator and written with backpressure, so memory
// stays flat however many audits there are. Excluded sessions are never exported.
import Papa from 'papaparse';
import { AppError } from '../../shared/errors';
import { nowOf, type ServiceContext } from '../context';
import { createRedactor, detectPii } from '../pii';
import { checkFile } from './queries';
import { parseTime } from '../text/time';
import type { AuditStatus, LineChanges } from '../../shared/domain';
import { iterateAuditsForExport, type AuditDbRow } from '../db/repositories/audits';

export const AUDIT_EXPORT_FORMATS = ['json', 'csv', 'markdown'] as const;
export type AuditExportFormat = (typeof AUDIT_EXPORT_FORMATS)[number];

export interface ExportAuditsInput {
  format?: AuditExportFormat;
  includeContent?: boolean;
  /** Replace detected PII and secrets in facts, reasons, diffs and content with numbered placeholders. */
  /** Export personal data and secrets as recorded. By default they are replaced with typed placeholders. */
  includePii?: boolean;
  sessionKey?: string;
  file?: string;
  status?: string;
  since?: string | number;
  until?: string | number;
}

/** One audit in an export file (a file format: its field names stay as released). */
function exportRecordOf(r: AuditDbRow) {
  return {
    id: r.id,
    createdAt: r.created_at,
    sessionId: r.session_id,
    turnId: r.turn_id,
    decisionId: r.decision_id,
    targetFile: r.target_file,
    candidateFact: r.candidate_fact,
    status: r.status,
    source: r.source,
    reason: r.reason,
    relatedAuditId: r.related_audit_id,
    beforeSnapshotId: r.before_snapshot_id,
    afterSnapshotId: r.after_snapshot_id,
    lines:
      r.lines_added === null
        ? null
        : ({ added: r.lines_added, removed: r.lines_removed ?? 0, modified: r.lines_modified ?? 0 } as LineChanges),
    llmModel: r.llm_model,
    llmLatencyMs: r.llm_latency_ms,
    agentSteps: r.agent_steps,
    metadata: r.metadata ? (JSON.parse(r.metadata) as Record<string, unknown>) : null,
    contentKnown: r.diff !== null || (r.before_snapshot_id !== null && r.after_snapshot_id !== null),
    diff: r.diff,
  };
}

const CSV_FIELDS = [
  'id',
  'createdAt',
  'sessionId',
  'turnId',
  'decisionId',
  'targetFile',
  'candidateFact',
  'status',
  'source',
  'reason',
  'relatedAuditId',
  'linesAdded',
  'linesRemoved',
  'linesModified',
  'llmModel',
  'diff',
];

function write(out: NodeJS.WritableStream, chunk: string): Promise<void> | void {
  if (!out.write(chunk)) return new Promise((resolve) => out.once('drain', () => resolve()));
}

const fenceFor = (text: string) => '`'.repeat(Math.max(3, ...(text.match(/`+/g) ?? []).map((m) => m.length + 1)));

export async function exportAudits(
  ctx: ServiceContext,
  input: ExportAuditsInput,
  out: NodeJS.WritableStream,
): Promise<{ count: number; format: AuditExportFormat }> {
  const format = input.format ?? 'json';
  if (!(AUDIT_EXPORT_FORMATS as readonly string[]).includes(format))
    throw new AppError('Invalid', `format ${format}: expected one of ${AUDIT_EXPORT_FORMATS.join(', ')}`);
  const now = nowOf(ctx);
  const filter = {
    sessionId: input.sessionKey || undefined,
    file: checkFile(input.file),
    status: (input.status || undefined) as AuditStatus | undefined,
    since: parseTime(input.since, 'since', now),
    until: parseTime(input.until, 'until', now),
  };
  const fields = input.includeContent ? [...CSV_FIELDS, 'beforeContent', 'afterContent'] : CSV_FIELDS;
  let count = 0;
  if (format === 'json') await write(out, '[');
  if (format === 'csv') await write(out, `${Papa.unparse([fields])}\r\n`);
  if (format === 'markdown') await write(out, `# write_guardian audit export\n\nExported ${new Date(now).toISOString()}.\n`);
  for (const row of iterateAuditsForExport(ctx.db, filter, Boolean(input.includeContent))) {
    const a = {
      ...exportRecordOf(row),
      ...(input.includeContent ? { beforeContent: row.before_content, afterContent: row.after_content } : {}),
    };
    if (!input.includePii) {
      // One redactor per audit: the same address is the same placeholder in its fact, diff and content.
      const redactor = createRedactor();
      const clean = (t: string | null | undefined) => (t ? redactor.redact(t, detectPii(t)).text : (t ?? null));
      a.candidateFact = clean(a.candidateFact);
      a.reason = clean(a.reason);
      a.diff = clean(a.diff);
      if (input.includeContent) Object.assign(a, { beforeContent: clean(row.before_content), afterContent: clean(row.after_content) });
    }
    if (format === 'json') {
      await write(out, `${count ? ',' : ''}\n${JSON.stringify(a)}`);
    } else if (format === 'csv') {
      const flat: Record<string, unknown> = {
        ...a,
        linesAdded: a.lines?.added ?? null,
        linesRemoved: a.lines?.removed ?? null,
        linesModified: a.lines?.modified ?? null,
      };
      await write(
        out,
        `${Papa.unparse({ fields, data: [fields.map((f) => flat[f] ?? '')] }, { header: false, escapeFormulae: true })}\r\n`,
      );
    } else {
      const lines = [
        `\n## ${a.id}\n`,
        `- time: ${new Date(a.createdAt).toISOString()}`,
        `- file: ${a.targetFile} · status: ${a.status} · source: ${a.source}`,
        a.sessionId ? `- session: ${a.sessionId}` : '',
        a.candidateFact ? `- fact: ${a.candidateFact.replace(/\s+/g, ' ')}` : '',
        a.reason ? `- reason: ${a.reason.replace(/\s+/g, ' ')}` : '',
        a.relatedAuditId ? `- related: ${a.relatedAuditId}` : '',
      ].filter(Boolean);
      if (a.diff) lines.push('', `${fenceFor(a.diff)}diff`, a.diff.replace(/\n$/, ''), fenceFor(a.diff));
      const after = (a as { afterContent?: string | null }).afterContent;
      if (input.includeContent && after)
        lines.push('', 'After:', '', `${fenceFor(after)}markdown`, after.replace(/\n$/, ''), fenceFor(after));
      await write(out, `${lines.join('\n')}\n`);
    }
    count++;
    if (count % 1000 === 0) {
      ctx.progress?.(count, null, 'audits exported');
      if (ctx.signal?.aborted) throw new AppError('Cancelled', `export cancelled after ${count} audits`);
    }
  }
  if (format === 'json') await write(out, `${count ? '\n' : ''}]\n`);
  return { count, format };
}
