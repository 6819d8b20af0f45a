// Select → records: the planned samples read page by page in rowid order, each turned into what the
// export writes for it (redacted content, a pseudonymous session label when the key holds PII, the
// format's records). Shared by the export, its preview, the eval export and the fleet dataset.
import { createHash } from 'node:crypto';
import { listPlannedSamplePage } from '../db/repositories/exportSamples';
import type { ServiceContext } from '../context';
import { loadValueRules, rowWithValueRules } from '../curation/piiValues';
import { recordsOf } from './exportRecords';
import { selectionOf, type ExportPlan, type Resolved } from './exportPlan';
import { loadPiiDetector, redactContent, scanContent, type Detect } from './privacy';
import { SessionValues, hideSessionValues } from './sessionPrivacy';
import { SAMPLE_COLUMNS, sampleFromRow, type DatasetSample, type SampleContent, type StoredSampleRow } from './types';
import type { DataSplit } from '../../shared/domain';

export interface PageItem {
  split: DataSplit;
  sample: DatasetSample;
  content: SampleContent;
  records: unknown[];
}

/** SAMPLE_COLUMNS with the alias the selection's WHERE clause uses. */
const ALIASED_COLUMNS = SAMPLE_COLUMNS.split(',')
  .map((c) => `s.${c.trim()}`)
  .join(', ');

/** The content an export writes: redacted unless includePii, scanned now if it never was. */
export function exportContent(s: DatasetSample, r: Pick<Resolved, 'includePii'>, detect: Detect | null): SampleContent {
  if (r.includePii) return s.content;
  if (!s.privacyChecked && detect) {
    // never checked (collected without a detector): check now rather than export raw text
    const spans = scanContent(s.content, detect, {});
    return spans.length ? (redactContent(s.content, spans).redacted as SampleContent) : s.content;
  }
  return s.piiRedactedContent ?? s.content;
}

/**
 * Session keys can carry personal data (a WhatsApp target is a phone number): without includePii a
 * key in which the detector finds anything is exported as a stable pseudonym.
 */
function sessionLabel(s: DatasetSample, r: Resolved, detect: Detect | null, cache: Map<string, string>): string {
  if (r.includePii || !detect) return s.sessionId;
  let label = cache.get(s.sessionId);
  if (label === undefined) {
    label = detect(s.sessionId.replace(/[:/]/g, ' '), {}).length
      ? `session-${createHash('sha256').update(s.sessionId).digest('hex').slice(0, 16)}`
      : s.sessionId;
    cache.set(s.sessionId, label);
  }
  return label;
}

/** Yields the planned samples page by page, in rowid order, with their records (reading only planned rows). */
export async function* exportPages(ctx: ServiceContext, r: Resolved, plan: ExportPlan): AsyncGenerator<PageItem[]> {
  const selection = selectionOf(r);
  const detect = r.includePii ? null : await loadPiiDetector();
  const labels = new Map<string, string>();
  // Per-value PII decisions (curation/piiValues) also cover samples collected after they were made.
  const valueRules = r.includePii ? [] : loadValueRules(ctx);
  const sessionValues = new SessionValues(ctx.db, valueRules);
  for (let at = 0; at < plan.rowids.length; at += r.pageSize) {
    const rows = listPlannedSamplePage<StoredSampleRow>(ctx.db, selection, ALIASED_COLUMNS, plan.rowids.slice(at, at + r.pageSize));
    const items: PageItem[] = [];
    for (const storedRow of rows) {
      const split = plan.split.get(storedRow.id);
      if (!split) continue;
      const sample = sampleFromRow(rowWithValueRules(storedRow, valueRules));
      const content = r.includePii
        ? sample.content
        : hideSessionValues(exportContent(sample, r, detect), sessionValues.of(sample.sessionId));
      const records = recordsOf(r.format, sample, content, sessionLabel(sample, r, detect, labels));
      if (records.length) items.push({ split, sample, content, records });
    }
    yield items;
  }
}
