// `reflection fleet export`: the curated samples of many workspaces (one per agent) as one
// hive-partitioned Parquet dataset, `agent=<id>/split=<train|validation>/part-<run>.parquet`.
// Same rules as a single export (default contents, redaction), one split for the whole fleet grouped
// by session, records two agents share kept once, and incremental: a run adds only what is new.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ulid } from 'ulid';
import type { DataSplit } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import { fileSha256 } from '../files/checksum';
import { exportableRows } from '../dataset/exportable';
import { ParquetTable } from '../parquet/writer';
import { EXPORTER_VERSION, LINEAGE_COLUMNS, TRAINING_COLUMNS } from '../parquet/trainingRows';
import { commitRun, openFleetState, sweepUncommittedParts, type FleetState } from './state';
import { assignAgentIds, discoverWorkspaces, isSkipped, openMember, type FleetMember, type SkippedWorkspace } from './workspaces';
import { writeFleetCard, writeManifest, type ManifestFile, type ManifestRun } from './manifest';

export interface FleetExportOptions {
  /** Every workspace found below this folder. */
  root?: string;
  /** Or an explicit list of workspace folders. */
  workspaces?: readonly string[];
  outDir: string;
  /** Share of sessions' samples in train; a session's split, once given, never changes. Default 0.8. */
  trainSplit?: number;
  includePii?: boolean;
  rowGroupRows?: number;
  now?: () => number;
}

export interface FleetMemberResult {
  agent: string;
  dir: string;
  added: number;
  train: number;
  validation: number;
  /** Samples whose record another agent (or an earlier run) already holds. */
  folded: number;
}

export interface FleetExportResult {
  runId: string;
  outDir: string;
  members: FleetMemberResult[];
  skipped: SkippedWorkspace[];
  files: ManifestFile[];
  added: number;
  sweptParts: number;
}

const COLUMNS = [...LINEAGE_COLUMNS, ...TRAINING_COLUMNS];
/** Rows per row group: each row holds its record three ways, so groups stay smaller than a plain table's. */
const FLEET_ROW_GROUP = 5_000;

/**
 * A session's split comes from a hash of its key alone: stable across runs and when agents join, and
 * the same key in two agents lands on the same side. The state keeps it, so a changed ratio never moves it.
 */
export function fleetSplitOf(state: FleetState, sessionId: string, trainSplit: number): DataSplit {
  const known = state.splitOf(sessionId);
  if (known) return known;
  const h = createHash('sha256').update(sessionId).digest().readUInt32BE(0) / 0x1_0000_0000;
  return h < trainSplit ? 'train' : 'validation';
}

function membersOf(opts: FleetExportOptions): FleetMember[] {
  const dirs = [...(opts.root ? discoverWorkspaces(opts.root) : []), ...(opts.workspaces ?? []).map((w) => path.resolve(w))];
  const unique = [...new Set(dirs)].sort();
  if (!unique.length) throw new AppError('Invalid', 'fleet export: no workspaces given or found (pass --root DIR or workspace folders)');
  return assignAgentIds(unique);
}

interface RunContext {
  runId: string;
  opts: FleetExportOptions;
  trainSplit: number;
  state: FleetState;
  files: ManifestFile[];
}

async function exportMember(run: RunContext, member: FleetMember): Promise<FleetMemberResult | SkippedWorkspace> {
  const opened = openMember(member.dir);
  if (isSkipped(opened)) return opened;
  const result: FleetMemberResult = { agent: member.agent, dir: member.dir, added: 0, train: 0, validation: 0, folded: 0 };
  const tables = new Map<DataSplit, ParquetTable>();
  const tableFor = (split: DataSplit): ParquetTable => {
    let t = tables.get(split);
    if (!t) {
      const file = path.join(run.opts.outDir, `agent=${member.agent}`, `split=${split}`, `part-${run.runId}.parquet`);
      t = new ParquetTable(file, COLUMNS, {
        rowGroupRows: run.opts.rowGroupRows ?? FLEET_ROW_GROUP,
        metadata: { export_id: run.runId, exporter: EXPORTER_VERSION },
      });
      tables.set(split, t);
    }
    return t;
  };
  try {
    const ctx = { db: opened.db, workspaceDir: member.dir };
    for await (const { sample, row } of exportableRows(ctx, { includePii: run.opts.includePii })) {
      if (run.state.isExported(member.agent, sample.id)) continue;
      const split = fleetSplitOf(run.state, sample.sessionId, run.trainSplit);
      const hash = row.record_hash as string;
      const folded = run.state.holderOf(hash) !== undefined;
      run.state.take(run.runId, { agent: member.agent, sampleId: sample.id, recordHash: hash, folded, sessionId: sample.sessionId, split });
      if (folded) {
        result.folded++;
        continue;
      }
      tableFor(split).append({
        ...row,
        split,
        agent: member.agent,
        workspace: member.dir,
        export_id: run.runId,
        exporter_version: EXPORTER_VERSION,
      });
      result.added++;
      result[split]++;
    }
    for (const [split, t] of tables) {
      const written = t.close();
      run.files.push({
        path: path.relative(run.opts.outDir, written.file),
        agent: member.agent,
        split,
        rows: written.rows,
        ...fileSha256(written.file),
      });
    }
    return result;
  } catch (e) {
    for (const t of tables.values()) t.abort();
    throw e;
  } finally {
    opened.db.close();
  }
}

export async function fleetExport(opts: FleetExportOptions): Promise<FleetExportResult> {
  const trainSplit = opts.trainSplit ?? 0.8;
  if (!(trainSplit > 0 && trainSplit <= 1)) throw new AppError('Invalid', 'fleet export: trainSplit must be above 0 and at most 1');
  const members = membersOf(opts);
  const outDir = path.resolve(opts.outDir);
  fs.mkdirSync(outDir, { recursive: true });
  const state = openFleetState(outDir);
  const now = opts.now?.() ?? Date.now();
  const run: RunContext = { runId: ulid(now), opts: { ...opts, outDir }, trainSplit, state, files: [] };
  try {
    const swept = sweepUncommittedParts(state, outDir);
    const done: FleetMemberResult[] = [];
    const skipped: SkippedWorkspace[] = [];
    for (const m of members) {
      const r = await state.inTransaction(() => exportMember(run, m));
      if ('kind' in r) skipped.push(r);
      else done.push(r);
    }
    commitRun(state, { id: run.runId, at: now, exporter: EXPORTER_VERSION });
    const manifestRun: ManifestRun = {
      id: run.runId,
      at: new Date(now).toISOString(),
      exporter: EXPORTER_VERSION,
      members: done,
      skipped,
      files: run.files,
    };
    writeManifest(outDir, manifestRun);
    writeFleetCard(outDir);
    return {
      runId: run.runId,
      outDir,
      members: done,
      skipped,
      files: run.files,
      added: done.reduce((n, m) => n + m.added, 0),
      sweptParts: swept.length,
    };
  } finally {
    state.close();
  }
}
