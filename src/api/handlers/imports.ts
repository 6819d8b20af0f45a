// Importers run as jobs (they stream and commit in batches); their report is the contract's ImportReport.
import path from 'node:path';
import {
  evalModelComparison,
  importDailyNotes,
  importEvals,
  importOpenClaw,
  importReflectionLogs,
  listDailyNotes,
  searchDailyNotes,
} from '../../core/importers';
import type { Handlers } from '../registry';

export const importHandlers = {
  'import.reflectionLogs': (input, ctx) => importReflectionLogs(ctx, { source: path.resolve(input.path) }),
  'import.openclaw': (input, ctx) => importOpenClaw(ctx, { source: path.resolve(input.path) }),
  'import.evals': (input, ctx) => importEvals(ctx, { source: path.resolve(input.path) }),
  'import.dailyNotes': (input, ctx) => importDailyNotes(ctx, { source: path.resolve(input.path) }),
  'stats.evalModels': (_input, env) => evalModelComparison(env.session.serviceContext()),
  'notes.list': (input, env) => listDailyNotes(env.session.serviceContext(), input.from, input.to),
  'notes.search': (input, env) => searchDailyNotes(env.session.serviceContext(), input.text, input.limit),
} satisfies Partial<Handlers>;
