// The rows a default Parquet export would write, one by one, for exports that are not one workspace's
// folder (the fleet dataset). Same rules as a single export, because it is the same code: the plan's
// selection (approved and auto-approved at or above the minimum quality, one representative per
// near-duplicate cluster), per-value PII decisions, redaction, and session-wide value hiding.
import type { ParquetRow } from '../parquet/writer';
import { loadSettings } from '../lifecycle/settings';
import type { ServiceContext } from '../context';
import { exportPages } from './export';
import { planExport, resolveExport } from './exportPlan';
import type { ExportedSample } from './exportRecords';

export interface ExportableRow {
  sample: ExportedSample;
  /** The Parquet training row (trainingRows.ts); its split column is the caller's to set. */
  row: ParquetRow;
}

export async function* exportableRows(ctx: ServiceContext, opts: { includePii?: boolean } = {}): AsyncGenerator<ExportableRow> {
  const config = loadSettings(ctx.workspaceDir).settings.datasetCollection;
  const r = resolveExport({ format: 'parquet', includePii: opts.includePii, config });
  const plan = planExport(ctx, r);
  for await (const items of exportPages(ctx, r, plan)) {
    for (const it of items) for (const rec of it.records) yield { sample: it.sample, row: rec as ParquetRow };
  }
}
