// `reflection export-tables`: the recorded tables as Parquet, one folder per table, partitioned by
// day (`<table>/day=YYYY-MM-DD/part-<agent>.parquet`), so DuckDB, Spark or Polars can query many
// agents at once. Free text is redacted unless the curator asks for it; metadata blobs are left out.
import fs from 'node:fs';
import path from 'node:path';
import type { DB } from '../db/connection';
import { iterateRowsOrderedBy, listTableColumns } from '../db/repositories/schema';
import { AppError } from '../../shared/errors';
import { createRedactor, detectPii } from '../pii';
import { ParquetTable, type ParquetColumn } from './writer';

export const ANALYTICS_TABLES = ['sessions', 'turns', 'decisions', 'writes', 'corrections', 'samples'] as const;
export type AnalyticsTable = (typeof ANALYTICS_TABLES)[number];

interface TableSpec {
  from: string;
  /** The time column the day partition comes from. */
  time: string;
  /** Free-text columns: redacted by default. */
  text: readonly string[];
  /** Columns never exported: raw blobs and PII the text redaction can't reach (stored span values). */
  omit: readonly string[];
}

const SPECS: Record<AnalyticsTable, TableSpec> = {
  sessions: { from: 'sessions', time: 'created_at', text: ['conversation_target', 'account_id'], omit: ['metadata'] },
  turns: {
    from: 'conversation_turns',
    time: 'created_at',
    text: ['user_message_content', 'agent_message_content', 'user_from'],
    omit: ['user_metadata', 'agent_metadata'],
  },
  decisions: { from: 'memory_gate_decisions', time: 'created_at', text: ['reason', 'candidate_fact'], omit: ['raw_response'] },
  writes: { from: 'write_guardian_audit', time: 'created_at', text: ['candidate_fact', 'diff', 'reason'], omit: ['metadata'] },
  corrections: {
    from: 'behavior_corrections',
    time: 'corrected_at',
    text: ['original_candidate_fact', 'corrected_candidate_fact', 'correction_reason', 'correction_pattern'],
    omit: [],
  },
  // The samples table carries labels and scores here; the training text is the dataset export's job.
  samples: {
    from: 'dataset_samples',
    time: 'created_at',
    text: ['annotation_notes'],
    omit: ['content', 'pii_redacted_content', 'pii_spans', 'feedback_signals'],
  },
};

export interface ExportTablesMember {
  db: DB;
  agent: string;
}

export interface ExportTablesOptions {
  outDir: string;
  tables?: readonly AnalyticsTable[];
  includePii?: boolean;
  rowGroupRows?: number;
  metadata?: Record<string, string>;
  /** Clock for the partition of an empty table (tests pin it). */
  now?: number;
}

export interface TableSummary {
  table: AnalyticsTable;
  rows: number;
  files: string[];
}

/** The table's columns as Parquet columns, read from the schema so new columns come along by themselves. */
function columnsOf(db: DB, spec: TableSpec): { sql: string[]; parquet: ParquetColumn[] } {
  const info = listTableColumns(db, spec.from);
  if (!info.length) throw new AppError('Internal', `table ${spec.from} does not exist`);
  const kept = info.filter((c) => !spec.omit.includes(c.name));
  const parquet: ParquetColumn[] = [{ name: 'agent', type: 'string', nullable: false }];
  for (const c of kept) {
    const t = c.type.toUpperCase();
    const type = t === 'INTEGER' ? (c.name.endsWith('_at') ? 'timestamp' : 'bigint') : t === 'REAL' ? 'double' : 'string';
    parquet.push({ name: c.name, type });
  }
  parquet.push({ name: 'day', type: 'string', nullable: false });
  return { sql: kept.map((c) => c.name), parquet };
}

const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

function redactRow(row: Record<string, unknown>, textColumns: readonly string[]): void {
  const redactor = createRedactor();
  for (const col of textColumns) {
    const v = row[col];
    if (typeof v !== 'string' || !v) continue;
    const spans = detectPii(v);
    if (spans.length) row[col] = redactor.redact(v, spans).text;
  }
}

/** Writes one table of one agent: rows come ordered by time, so one day's file is open at a time. */
function exportTable(member: ExportTablesMember, table: AnalyticsTable, opts: ExportTablesOptions): TableSummary {
  const spec = SPECS[table];
  const { sql, parquet } = columnsOf(member.db, spec);
  const files: string[] = [];
  let rows = 0;
  let open: { day: string; table: ParquetTable } | undefined;
  try {
    for (const raw of iterateRowsOrderedBy(member.db, spec.from, sql, spec.time)) {
      const day = dayOf(Number(raw[spec.time]));
      if (open?.day !== day) {
        if (open) files.push(open.table.close().file);
        const file = path.join(opts.outDir, table, `day=${day}`, `part-${member.agent}.parquet`);
        open = { day, table: new ParquetTable(file, parquet, { rowGroupRows: opts.rowGroupRows, metadata: opts.metadata }) };
      }
      if (!opts.includePii) redactRow(raw, spec.text);
      open.table.append({ ...raw, agent: member.agent, day });
      rows++;
    }
    if (open) files.push(open.table.close().file);
    // An agent with no rows still gets an empty file (today's partition), so a glob over the table
    // always matches and a query returns zero rows instead of failing on "no files found".
    if (!files.length) {
      const file = path.join(opts.outDir, table, `day=${dayOf(opts.now ?? Date.now())}`, `part-${member.agent}.parquet`);
      files.push(new ParquetTable(file, parquet, { metadata: opts.metadata }).close().file);
    }
  } catch (e) {
    open?.table.abort();
    throw e;
  }
  return { table, rows, files };
}

/** Refuses to mix a new export into an old one unless asked; with overwrite, the old table folders go first. */
export function prepareTablesDir(outDir: string, tables: readonly AnalyticsTable[], overwrite: boolean): void {
  const existing = tables.filter((t) => fs.existsSync(path.join(outDir, t)));
  if (existing.length && !overwrite) {
    throw new AppError('Conflict', `${outDir} already holds exported tables (${existing.join(', ')}); pass --overwrite to replace them`);
  }
  for (const t of existing) fs.rmSync(path.join(outDir, t), { recursive: true, force: true });
  fs.mkdirSync(outDir, { recursive: true });
}

export function exportTables(members: readonly ExportTablesMember[], opts: ExportTablesOptions): TableSummary[] {
  const tables = opts.tables ?? ANALYTICS_TABLES;
  return tables.map((table) => {
    const parts = members.map((m) => exportTable(m, table, opts));
    return { table, rows: parts.reduce((n, p) => n + p.rows, 0), files: parts.flatMap((p) => p.files) };
  });
}
