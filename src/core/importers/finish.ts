import { writeTx } from '../db/connection';
import { nowOf, type ServiceContext } from '../context';
import { recordExternalChanges } from '../guardian/external';
import { recordRun } from './cursors';
import type { ImportReport } from '../../shared/contract';
import type { ReportBuilder } from './report';

/**
 * Ends every import the same way: the five memory files are compared with what the workbench last
 * saw (a first look stores them as the baseline later diffs start from; a difference becomes an
 * external audit), then the run is recorded in import_runs.
 */
export function finishImport(ctx: ServiceContext, report: ReportBuilder, options: { recordExternalChanges?: boolean } = {}): ImportReport {
  if (ctx.signal?.aborted) report.note('The import was stopped before the end; the next run continues where it stopped.');
  // Live capture looks at the memory files itself (with their modification times) and turns off this check.
  if (options.recordExternalChanges !== false)
    try {
      const changes = recordExternalChanges(ctx);
      if (changes.length) {
        report.count('write_guardian_audit', changes.length);
        report.note(
          `${changes.length} memory file${changes.length === 1 ? ' was' : 's were'} changed outside the workbench since it last looked; recorded as external changes.`,
        );
      }
    } catch (e) {
      report.note(`The memory files could not be snapshotted (${(e as Error).message}).`);
    }
  const r = report.finish(nowOf(ctx));
  // The live watcher calls importers on every change; runs that found nothing would only be noise.
  if (r.status !== 'nothing_new') writeTx(ctx.db, () => recordRun(ctx.db, r));
  return r;
}
