// How good is the writer the curator is judging (issue 12, "Beyond"): memory_gate precision and recall
// per decision type, write_guardian accuracy per action, the over-write rate, churn per memory file and
// the weekly trend, all from the curator's labels. One truth per decision, strongest evidence first:
// a missed-write correction, a behaviour correction, a rollback, then an approved sample.
import { GATE_DECISIONS, MEMORY_FILES, decisionForFile, type GateDecision } from '../../shared/domain';
import type { FileChurn, GuardianActionQuality, WriterQuality } from '../../shared/contract';
import type { ServiceContext } from '../context';
import {
  countWritesPerFile,
  listGateCorrectionsOfWrites,
  listGateVerdictsFromCorrections,
  listGateVerdictsFromRollbacks,
  listGateVerdictsFromSamples,
  listGuardianVerdicts,
} from '../db/repositories/sampleReports';

interface Judged {
  pred: GateDecision;
  truth: GateDecision;
  at: number;
}

const ratio = (n: number, d: number) => (d ? Math.round((n / d) * 1000) / 1000 : null);

/** ISO 8601 week of a time, "2026-W09": the week holding that week's Thursday. */
export function isoWeek(ms: number): string {
  const d = new Date(ms);
  const thursday = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 4 - (d.getUTCDay() || 7)));
  const yearStart = Date.UTC(thursday.getUTCFullYear(), 0, 1);
  const week = Math.ceil(((thursday.getTime() - yearStart) / 86_400_000 + 1) / 7);
  return `${thursday.getUTCFullYear()}-W${String(week).padStart(2, '0')}`;
}

/** The gate's judged decisions; weaker evidence never replaces stronger (sources are read strongest last). */
function gateTruths(ctx: ServiceContext): Map<string, Judged> {
  const db = ctx.db;
  const judged = new Map<string, Judged>();
  const put = (rows: { id: string; pred: GateDecision; truth: GateDecision | null; at: number }[]) => {
    for (const r of rows) if (r.truth && GATE_DECISIONS.includes(r.truth)) judged.set(r.id, { pred: r.pred, truth: r.truth, at: r.at });
  };
  put(listGateVerdictsFromSamples(db));
  put(listGateVerdictsFromRollbacks(db));
  const corrections = listGateCorrectionsOfWrites(db);
  put(corrections.map((c) => ({ ...c, truth: c.status === 'refused' ? 'NO_WRITE' : decisionForFile(c.file) })));
  put(listGateVerdictsFromCorrections(db));
  return judged;
}

const ACTION: Record<string, 'write' | 'refuse' | 'skip'> = { written: 'write', rolled_back: 'write', refused: 'refuse', skipped: 'skip' };

/** write_guardian: what it did against what the curator says it should have done. */
function guardianQuality(ctx: ServiceContext): GuardianActionQuality[] {
  const truths = new Map<string, { did: string; should: string }>();
  const rows = listGuardianVerdicts(ctx.db);
  for (const r of rows) truths.set(r.id, r);
  const out = (['write', 'refuse', 'skip'] as const).map((action) => ({ action, judged: 0, correct: 0, accuracy: null as number | null }));
  for (const t of truths.values()) {
    const did = ACTION[t.did];
    const row = out.find((x) => x.action === did);
    if (!row) continue;
    row.judged++;
    if (ACTION[t.should] === did) row.correct++;
  }
  for (const row of out) row.accuracy = ratio(row.correct, row.judged);
  return out;
}

function fileChurn(ctx: ServiceContext): FileChurn[] {
  const rows = countWritesPerFile(ctx.db);
  return MEMORY_FILES.map((file) => {
    const r = rows.find((x) => x.file === file) ?? { file, writes: 0, rollbacks: 0, corrections: 0 };
    return {
      file,
      writes: r.writes ?? 0,
      rollbacks: r.rollbacks,
      corrections: r.corrections,
      churn: ratio(r.rollbacks + r.corrections, r.writes ?? 0),
    };
  });
}

export function writerQuality(ctx: ServiceContext): WriterQuality {
  const judged = [...gateTruths(ctx).values()];
  const gate = GATE_DECISIONS.map((decision) => {
    const predicted = judged.filter((j) => j.pred === decision);
    const support = judged.filter((j) => j.truth === decision);
    const hits = predicted.filter((j) => j.truth === decision).length;
    return {
      decision,
      predicted: predicted.length,
      support: support.length,
      precision: ratio(hits, predicted.length),
      recall: ratio(hits, support.length),
    };
  });
  const writes = judged.filter((j) => j.pred !== 'NO_WRITE');
  const overWrites = writes.filter((j) => j.truth === 'NO_WRITE').length;
  const weeks = new Map<string, Judged[]>();
  for (const j of judged) weeks.set(isoWeek(j.at), [...(weeks.get(isoWeek(j.at)) ?? []), j]);
  const weekly = [...weeks.entries()]
    .sort((a, b) => a[0].localeCompare(b[0]))
    .map(([week, list]) => {
      const w = list.filter((j) => j.pred !== 'NO_WRITE');
      return {
        week,
        judged: list.length,
        accuracy: ratio(list.filter((j) => j.pred === j.truth).length, list.length),
        overWriteRate: ratio(w.filter((j) => j.truth === 'NO_WRITE').length, w.length),
      };
    });
  return {
    judgedDecisions: judged.length,
    gateAccuracy: ratio(judged.filter((j) => j.pred === j.truth).length, judged.length),
    gate,
    guardian: guardianQuality(ctx),
    overWriteRate: ratio(overWrites, writes.length),
    overWrites,
    judgedWrites: writes.length,
    churn: fileChurn(ctx),
    weekly,
  };
}
