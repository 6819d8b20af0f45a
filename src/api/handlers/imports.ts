// Importers run as jobs (they stream and commit in batches); the report maps to the contract's ImportReport.
import path from 'node:path';
import type { ImportReport as ImportReportDto } from '../../shared/contract';
import {
  evalModelComparison,
  importDailyNotes,
  importEvals,
  importOpenClaw,
  importReflectionLogs,
  listDailyNotes,
  searchDailyNotes,
  type ImportReport,
} from '../../core/importers';
import type { Handlers } from '../registry';

function reportDto(source: ImportReportDto['source'], r: ImportReport): ImportReportDto {
  return {
    source,
    added: r.inserted,
    skipped: r.skippedCount,
    skips: r.skipped.map((s) => ({ file: s.file, line: s.line, reason: s.reason })),
    filesRead: r.files.length,
    elapsedMs: r.elapsedMs,
    summary: r.summary,
  };
}

export const importHandlers = {
  'import.reflectionLogs': async (input, ctx) => reportDto('reflection-logs', await importReflectionLogs(ctx, { source: path.resolve(input.path) })),
  'import.openclaw': async (input, ctx) => reportDto('openclaw', await importOpenClaw(ctx, { source: path.resolve(input.path) })),
  'import.evals': async (input, ctx) => reportDto('evals', await importEvals(ctx, { source: path.resolve(input.path) })),
  'import.dailyNotes': async (input, ctx) => reportDto('daily-notes', await importDailyNotes(ctx, { source: path.resolve(input.path) })),
  'stats.evalModels': (_input, env) => evalModelComparison(env.session.serviceContext()),
  'notes.list': (input, env) => listDailyNotes(env.session.serviceContext(), input.from, input.to),
  'notes.search': (input, env) => searchDailyNotes(env.session.serviceContext(), input.text, input.limit),
} satisfies Partial<Handlers>;
