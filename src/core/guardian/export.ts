// Streams audits as JSON, CSV (papaparse, with formula escaping for spreadsheet safety) or
// Markdown. Rows are read with a statement iterator and written with backpressure, so memory
// stays flat however many audits there are. Excluded sessions are never exported.
import Papa from 'papaparse';
import { AppError } from '../../shared/errors';
import { nowOf, type ServiceContext } from '../context';
import { createRedactor, detectPii } from '../pii';
import { checkFile } from './queries';
import { parseTime } from '../text/time';
import { AUDIT_COLUMNS, auditFromRow, type AuditRow } from './rows';

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

interface ExportRow extends AuditRow {
  before_content: string | null;
  after_content: string | null;
}

const CSV_FIELDS = ['id', 'createdAt', 'sessionId', 'turnId', 'decisionId', 'targetFile', 'candidateFact', 'status', 'source', 'reason',
  'relatedAuditId', 'linesAdded', 'linesRemoved', 'linesModified', 'llmModel', 'diff'];

function write(out: NodeJS.WritableStream, chunk: string): Promise<void> | void {
  if (!out.write(chunk)) return new Promise((resolve) => out.once('drain', () => resolve()));
}

const fenceFor = (text: string) => '`'.repeat(Math.max(3, ...(text.match(/`+/g) ?? []).map((m) => m.length + 1)));

export async function exportAudits(ctx: ServiceContext, input: ExportAuditsInput, out: NodeJS.WritableStream): Promise<{ count: number; format: AuditExportFormat }> {
  const format = input.format ?? 'json';
  if (!(AUDIT_EXPORT_FORMATS as readonly string[]).includes(format)) throw new AppError('Invalid', `format ${format}: expected one of ${AUDIT_EXPORT_FORMATS.join(', ')}`);
  const now = nowOf(ctx);
  const where = ['(a.session_id IS NULL OR a.session_id NOT IN (SELECT session_id FROM excluded_sessions))'];
  const params: unknown[] = [];
  if (input.sessionKey) { where.push('a.session_id = ?'); params.push(input.sessionKey); }
  const file = checkFile(input.file);
  if (file) { where.push('a.target_file = ?'); params.push(file); }
  if (input.status) { where.push('a.status = ?'); params.push(input.status); }
  const since = parseTime(input.since, 'since', now);
  const until = parseTime(input.until, 'until', now);
  if (since !== undefined) { where.push('a.created_at >= ?'); params.push(since); }
  if (until !== undefined) { where.push('a.created_at <= ?'); params.push(until); }
  const content = input.includeContent
    ? ', (SELECT content FROM file_snapshots WHERE id = a.before_snapshot_id) AS before_content, (SELECT content FROM file_snapshots WHERE id = a.after_snapshot_id) AS after_content'
    : ', NULL AS before_content, NULL AS after_content';
  const stmt = ctx.db.prepare(`SELECT ${AUDIT_COLUMNS}${content} FROM write_guardian_audit a WHERE ${where.join(' AND ')} ORDER BY a.created_at, a.rowid`);
  const fields = input.includeContent ? [...CSV_FIELDS, 'beforeContent', 'afterContent'] : CSV_FIELDS;
  let count = 0;
  if (format === 'json') await write(out, '[');
  if (format === 'csv') await write(out, `${Papa.unparse([fields])}\r\n`);
  if (format === 'markdown') await write(out, `# write_guardian audit export\n\nExported ${new Date(now).toISOString()}.\n`);
  for (const row of stmt.iterate(...params) as IterableIterator<ExportRow>) {
    const a = { ...auditFromRow(row, true), ...(input.includeContent ? { beforeContent: row.before_content, afterContent: row.after_content } : {}) };
    if (!input.includePii) {
      // One redactor per audit: the same address is the same placeholder in its fact, diff and content.
      const redactor = createRedactor();
      const clean = (t: string | null | undefined) => (t ? redactor.redact(t, detectPii(t)).text : t ?? null);
      a.candidateFact = clean(a.candidateFact);
      a.reason = clean(a.reason);
      a.diff = clean(a.diff);
      if (input.includeContent) Object.assign(a, { beforeContent: clean(row.before_content), afterContent: clean(row.after_content) });
    }
    if (format === 'json') {
      await write(out, `${count ? ',' : ''}\n${JSON.stringify(a)}`);
    } else if (format === 'csv') {
      const flat: Record<string, unknown> = { ...a, linesAdded: a.lines?.added ?? null, linesRemoved: a.lines?.removed ?? null, linesModified: a.lines?.modified ?? null };
      await write(out, `${Papa.unparse({ fields, data: [fields.map((f) => flat[f] ?? '')] }, { header: false, escapeFormulae: true })}\r\n`);
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
      if (input.includeContent && after) lines.push('', 'After:', '', `${fenceFor(after)}markdown`, after.replace(/\n$/, ''), fenceFor(after));
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
