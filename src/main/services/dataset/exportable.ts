// The samples a default export takes, one by one, with the content it would write: approved and
// auto-approved samples at or above the configured minimum quality, outside excluded sessions,
// redacted unless the curator asked for personal data. Exports that are not files of one format
// (Parquet, the fleet dataset) read through this so they follow the single export's rules.
import { loadSettings } from '../lifecycle/settings';
import type { ServiceContext } from '../context';
import { createHash } from 'node:crypto';
import { loadPiiDetector, redactContent, scanContent, type Detect } from './privacy';
import { loadValueRules, rowWithValueRules } from '../curation/piiValues';
import { SAMPLE_COLUMNS, sampleFromRow, type DatasetSample, type SampleContent, type SampleRow } from './types';

export interface ExportableSample {
  sample: DatasetSample;
  content: SampleContent;
  sessionLabel: string;
}

function exportableContent(s: DatasetSample, includePii: boolean, detect: Detect | null): SampleContent {
  if (includePii) return s.content;
  if (!s.privacyChecked && detect) {
    const spans = scanContent(s.content, detect, {});
    return spans.length ? (redactContent(s.content, spans).redacted as SampleContent) : s.content;
  }
  return s.piiRedactedContent ?? s.content;
}

function exportSessionLabel(s: DatasetSample, includePii: boolean, detect: Detect | null, cache: Map<string, string>): string {
  if (includePii || !detect) return s.sessionId;
  let label = cache.get(s.sessionId);
  if (label === undefined) {
    label = detect(s.sessionId.replace(/[:/]/g, ' '), {}).length ? `session-${createHash('sha256').update(s.sessionId).digest('hex').slice(0, 16)}` : s.sessionId;
    cache.set(s.sessionId, label);
  }
  return label;
}

export async function* exportableSamples(
  ctx: Pick<ServiceContext, 'db' | 'workspaceDir'>,
  opts: { includePii?: boolean; pageSize?: number } = {},
): AsyncGenerator<ExportableSample> {
  const minQuality = loadSettings(ctx.workspaceDir).settings.datasetCollection.positiveCriteria.minQualityScore;
  const detect = opts.includePii ? null : await loadPiiDetector();
  const page = ctx.db.prepare(
    `SELECT s.rowid AS _rowid, ${SAMPLE_COLUMNS} FROM dataset_samples s
     WHERE s.rowid > @after AND s.annotation_status IN ('approved', 'auto_approved') AND coalesce(s.quality_score, 0) >= @minQuality
       AND s.session_id NOT IN (SELECT session_id FROM excluded_sessions)
     ORDER BY s.rowid LIMIT @limit`,
  );
  const labels = new Map<string, string>();
  // Per-value PII decisions (curation/piiValues) also cover samples collected after they were made.
  const valueRules = opts.includePii ? [] : loadValueRules(ctx);
  let after = 0;
  for (;;) {
    const rows = page.all({ after, minQuality, limit: opts.pageSize ?? 1000 }) as (SampleRow & { _rowid: number })[];
    if (!rows.length) return;
    after = rows[rows.length - 1]!._rowid;
    for (const storedRow of rows) {
      const row = rowWithValueRules(storedRow, valueRules);
      const sample = sampleFromRow(row);
      yield { sample, content: exportableContent(sample, Boolean(opts.includePii), detect), sessionLabel: exportSessionLabel(sample, Boolean(opts.includePii), detect, labels) };
    }
  }
}
