// Erasure across history: one value (an email, a key) removed from everywhere it was ever stored —
// the memory files, every snapshot and diff, turns, contexts, decisions, samples, corrections, the
// full-text indexes, the conversation archives and (on request) past exports. Text columns are
// swept generically, so tables added later are covered too. Snapshots get new content hashes, the
// affected hash chains are re-chained and the re-chain recorded; a stub keeps when, who and a salted
// hash of the value, never the value. secure_delete, an FTS optimize, an incremental vacuum and a
// WAL checkpoint leave no copy in the database file's bytes.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ulid } from 'ulid';
import { MEMORY_FILES, type MemoryFileName } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import { STATE_DIR, writeTx, type DB } from '../db/connection';
import { checkpointWal, reclaimFreePages, vacuumDatabase, withSecureDelete } from '../db/maintenance';
import { listArchiveFileNames } from '../db/repositories/archives';
import { listDatasetExportPaths } from '../db/repositories/datasetExports';
import {
  countRowsContaining,
  deleteSnapshotById,
  findTwinSnapshot,
  insertErasure,
  listErasureRows,
  listForeignKeys,
  listFts5Tables,
  listSnapshotsContaining,
  listTableNames,
  optimizeFtsIndex,
  replaceInColumn,
  replaceRecordedHash,
  repointReferences,
  updateSnapshotContent,
} from '../db/repositories/erasure';
import { listTableColumns, snapshotReferences } from '../db/repositories/schema';
import { findHeadVersion, listVersionsWithHashes, updateVersionContentHash } from '../db/repositories/memoryVersions';
import { readMemoryFile, withMemoryFileLock, writeMemoryFileLocked } from '../files/memoryFiles';
import { actorOf, nowOf, type ServiceContext } from '../context';
import { recordExternalChanges } from '../guardian';
import { sha256 } from '../text/diff';
import { rechain } from './versions';

export const ERASED_MARK = '[erased]';
const MIN_VALUE_LENGTH = 5;
// Not swept: full-text shadow tables (rebuilt by optimize) and the erasure stubs themselves.
const SKIPPED_TABLE = /^(sqlite_|erasures$|.*_fts($|_))/;

export interface ErasePlace {
  place: string;
  kind: 'database' | 'memory_file' | 'archive' | 'export';
  count: number;
  /** What erase does there: rewrite in place, delete (exports, on request), or leave (listed only). */
  action: 'rewrite' | 'delete' | 'keep';
}

export interface EraseResult {
  dryRun: boolean;
  erasureId: string | null;
  places: ErasePlace[];
  /** Database columns that are identifiers (keys): they cannot be rewritten in place. */
  blocked: string[];
  rechained: MemoryFileName[];
  /** Things that kept the erasure from being complete on disk (another connection holding the WAL). */
  warnings: string[];
}

export interface EraseInput {
  value: string;
  dryRun?: boolean;
  confirm?: boolean;
  /** Also delete past export folders and backups that hold the value (otherwise they are listed only). */
  deleteExports?: boolean;
  by?: string;
}

interface TextColumn {
  table: string;
  column: string;
  identifier: boolean;
}

function textColumns(db: DB): TextColumn[] {
  const out: TextColumn[] = [];
  for (const table of listTableNames(db).filter((t) => !SKIPPED_TABLE.test(t))) {
    const fks = new Set(listForeignKeys(db, table).map((fk) => fk.column));
    for (const c of listTableColumns(db, table)) {
      if (!/^(TEXT|ANY|)$/i.test(c.type)) continue;
      out.push({ table, column: c.name, identifier: c.pk > 0 || fks.has(c.name) });
    }
  }
  return out;
}

/**
 * The ways the value can be spelled in stored text: as typed, and escaped inside JSON (samples,
 * plans, archives) when it holds quotes, backslashes or control characters.
 */
export function spellingsOf(value: string): string[] {
  return [...new Set([value, JSON.stringify(value).slice(1, -1)])];
}

function countIn(db: DB, c: TextColumn, spellings: string[]): number {
  return countRowsContaining(db, c.table, c.column, spellings);
}

const replaceAll = (text: string, spellings: string[]) => spellings.reduce((t, v) => t.split(v).join(ERASED_MARK), text);

interface FileHit {
  /** The file, or for a dataset export the whole export folder. */
  target: string;
  archive: boolean;
}

/** Where exports were written, as recorded: the default folder and any custom location. */
function exportLocations(ctx: ServiceContext): [root: string, ...elsewhere: string[]] {
  const root = path.join(ctx.workspaceDir, STATE_DIR);
  const exportsDir = path.join(root, 'exports');
  const recorded = [...listDatasetExportPaths(ctx.db), ...listArchiveFileNames(ctx.db).map((f) => path.resolve(exportsDir, f))];
  return [root, ...recorded.map((f) => path.resolve(ctx.workspaceDir, f)).filter((f) => !f.startsWith(`${root}${path.sep}`))];
}

/**
 * Files that hold the value: under the workspace state folder (archives, exports, backups) and at
 * recorded export locations elsewhere; never the live database. A conversation archive is rewritten
 * in place; a dataset export is one folder, listed (and deleted) as a whole.
 */
function filesHolding(ctx: ServiceContext, spellings: string[]): FileHit[] {
  const needles = spellings.map((v) => Buffer.from(v, 'utf8'));
  const dbFile = path.resolve(ctx.db.name);
  const exportsDir = path.join(ctx.workspaceDir, STATE_DIR, 'exports');
  const isLive = (file: string) => file === dbFile || file.startsWith(`${dbFile}-`);
  const hits = new Map<string, FileHit>();
  const archives = new Set(listArchiveFileNames(ctx.db).map((f) => path.resolve(exportsDir, f)));
  const visit = (file: string, group: string | null) => {
    if (isLive(file)) return;
    const bytes = fs.readFileSync(file);
    if (!needles.some((n) => bytes.includes(n))) return;
    const rel = path.relative(exportsDir, file);
    const inExports = !rel.startsWith('..') && !path.isAbsolute(rel);
    const archive = archives.has(file) || (/^conversations-.*\.jsonl$/.test(path.basename(file)) && path.dirname(file) === exportsDir);
    const target = group ?? (inExports && rel.includes(path.sep) ? path.join(exportsDir, rel.slice(0, rel.indexOf(path.sep))) : file);
    hits.set(target, { target, archive: archive && target === file });
  };
  const walk = (at: string, group: string | null) => {
    if (!fs.existsSync(at)) return;
    const stat = fs.statSync(at);
    if (stat.isFile()) return visit(at, group);
    if (!stat.isDirectory()) return;
    for (const entry of fs.readdirSync(at)) walk(path.join(at, entry), group);
  };
  const [root, ...elsewhere] = exportLocations(ctx);
  walk(root, null);
  // A recorded export folder outside the workspace is one export, like those inside it.
  for (const location of elsewhere) walk(location, fs.existsSync(location) && fs.statSync(location).isDirectory() ? location : null);
  return [...hits.values()];
}

function placesOf(
  ctx: ServiceContext,
  value: string,
  deleteExports: boolean,
): { places: ErasePlace[]; blocked: string[]; columns: TextColumn[] } {
  const places: ErasePlace[] = [];
  const blocked: string[] = [];
  const columns: TextColumn[] = [];
  for (const c of textColumns(ctx.db)) {
    const n = countIn(ctx.db, c, spellingsOf(value));
    if (!n) continue;
    if (c.identifier) blocked.push(`${c.table}.${c.column} (${n})`);
    else {
      columns.push(c);
      places.push({ place: `${c.table}.${c.column}`, kind: 'database', count: n, action: 'rewrite' });
    }
  }
  for (const f of MEMORY_FILES) {
    const content = readMemoryFile(ctx.workspaceDir, f);
    const n = content ? content.split(value).length - 1 : 0;
    if (n) places.push({ place: f, kind: 'memory_file', count: n, action: 'rewrite' });
  }
  for (const h of filesHolding(ctx, spellingsOf(value))) {
    const rel = path.relative(ctx.workspaceDir, h.target);
    places.push(
      h.archive
        ? { place: rel, kind: 'archive', count: 1, action: 'rewrite' }
        : { place: rel, kind: 'export', count: 1, action: deleteExports ? 'delete' : 'keep' },
    );
  }
  return { places, blocked, columns };
}

export function checkEraseValue(value: unknown): string {
  if (typeof value !== 'string' || value.trim().length < MIN_VALUE_LENGTH) {
    throw new AppError(
      'Invalid',
      `value: give the exact text to erase, at least ${MIN_VALUE_LENGTH} characters (a shorter value would match ordinary words)`,
    );
  }
  if (value.includes(ERASED_MARK) || ERASED_MARK.includes(value))
    throw new AppError('Invalid', `value: cannot erase the erasure mark itself`);
  return value;
}

/** Lists (dryRun) or erases every stored copy of the value. Erasing needs confirm. */
export async function eraseValue(ctx: ServiceContext, input: EraseInput): Promise<EraseResult> {
  const value = checkEraseValue(input.value);
  if (!input.dryRun && !input.confirm)
    throw new AppError('Invalid', 'erasure is irreversible: preview it (--dry-run) and confirm it (--yes)');
  if (!input.dryRun) recordExternalChanges(ctx); // an unrecorded edit holding the value becomes history, and is erased with it
  const { places, blocked, columns } = placesOf(ctx, value, Boolean(input.deleteExports));
  if (input.dryRun) return { dryRun: true, erasureId: null, places, blocked, rechained: [], warnings: [] };
  const erasureId = ulid(nowOf(ctx));
  const { rechained, warnings } = eraseInDatabase(ctx, value, columns, places, erasureId, input.by ?? actorOf(ctx));
  for (const p of places) {
    if (p.kind === 'memory_file') await rewriteMemoryFile(ctx, p.place as MemoryFileName, value);
    else if (p.kind === 'archive') rewriteFile(path.resolve(ctx.workspaceDir, p.place), value);
    else if (p.kind === 'export' && p.action === 'delete')
      fs.rmSync(path.resolve(ctx.workspaceDir, p.place), { recursive: true, force: true });
  }
  return { dryRun: false, erasureId, places, blocked, rechained, warnings };
}

/** Whether the file's raw bytes hold any spelling of the value (read in chunks: databases can be large). */
function fileHolds(file: string, spellings: string[]): boolean {
  const needles = spellings.map((v) => Buffer.from(v, 'utf8'));
  const overlap = Math.max(...needles.map((n) => n.length)) - 1;
  const chunk = Buffer.alloc(4 * 1024 * 1024 + overlap);
  const fd = fs.openSync(file, 'r');
  try {
    let position = 0;
    let carried = 0;
    for (;;) {
      const read = fs.readSync(fd, chunk, carried, chunk.length - carried, position);
      if (read === 0) return false;
      const view = chunk.subarray(0, carried + read);
      if (needles.some((n) => view.includes(n))) return true;
      position += read;
      carried = Math.min(overlap, view.length);
      view.copy(chunk, 0, view.length - carried);
    }
  } finally {
    fs.closeSync(fd);
  }
}

function rewriteFile(file: string, value: string): void {
  const text = fs.readFileSync(file, 'utf8');
  const tmp = `${file}.erase-${process.pid}`;
  fs.writeFileSync(tmp, replaceAll(text, spellingsOf(value)));
  fs.renameSync(tmp, file);
}

async function rewriteMemoryFile(ctx: ServiceContext, file: MemoryFileName, value: string): Promise<void> {
  await withMemoryFileLock(ctx.workspaceDir, file, async () => {
    const content = readMemoryFile(ctx.workspaceDir, file);
    if (content?.includes(value)) await writeMemoryFileLocked(ctx.workspaceDir, file, content.split(value).join(ERASED_MARK));
  });
}

function eraseInDatabase(
  ctx: ServiceContext,
  value: string,
  columns: TextColumn[],
  places: ErasePlace[],
  erasureId: string,
  by: string,
): { rechained: MemoryFileName[]; warnings: string[] } {
  const db = ctx.db;
  let rechained: MemoryFileName[] = [];
  // Freed space is zeroed, so erased text does not linger in the file.
  withSecureDelete(db, () =>
    writeTx(db, () => {
      rechained = eraseSnapshots(ctx, value, erasureId);
      for (const c of columns) {
        if (c.table === 'file_snapshots' && c.column === 'content') continue;
        for (const v of spellingsOf(value)) replaceInColumn(db, c.table, c.column, v, ERASED_MARK);
      }
      // FTS5 keeps replaced tokens in its segments until they are merged.
      for (const fts of listFts5Tables(db)) optimizeFtsIndex(db, fts);
      const salt = randomBytes(16).toString('hex');
      const summary = places.map((p) => ({ place: p.place, kind: p.kind, count: p.count, action: p.action }));
      insertErasure(db, {
        id: erasureId,
        valueHash: sha256(`${salt}${value}`),
        salt,
        erasedBy: by,
        erasedAt: nowOf(ctx),
        summaryJson: JSON.stringify({ places: summary, rechained }),
      });
    }),
  );
  reclaimFreePages(db);
  let wal = checkpointWal(db);
  // secure_delete zeroes what this erasure freed, but space freed earlier (with it off) can still hold
  // old copies of the value; VACUUM rebuilds the file without any free space. Only when needed: it
  // rewrites the whole database.
  if (fileHolds(db.name, spellingsOf(value))) {
    vacuumDatabase(db);
    wal = checkpointWal(db);
  }
  // A reader elsewhere (another window, the plugin's recorder) can keep old pages in the WAL file.
  const warnings =
    wal && (wal.busy !== 0 || wal.log !== wal.checkpointed)
      ? [
          'another connection kept the write-ahead log from being emptied, so old copies may remain in its file until it is; close other workbench windows and run `reflection erase` with the same value again',
        ]
      : [];
  return { rechained, warnings };
}

/** Rewrites snapshots holding the value (merging ones that become identical) and re-chains the files they belong to. */
function eraseSnapshots(ctx: ServiceContext, value: string, erasureId: string): MemoryFileName[] {
  const db = ctx.db;
  const rows = listSnapshotsContaining(db, value);
  const refs = snapshotReferences(db);
  const remapped = new Map<MemoryFileName, Map<string, string>>();
  for (const r of rows) {
    const content = r.content.split(value).join(ERASED_MARK);
    const hash = sha256(content);
    const twin = findTwinSnapshot(db, r.file_name, hash, r.id);
    if (twin) {
      for (const ref of refs) repointReferences(db, ref.table, ref.column, r.id, twin);
      deleteSnapshotById(db, r.id);
    } else {
      updateSnapshotContent(db, r.id, content, hash);
    }
    replaceRecordedHash(db, r.content_hash, hash);
    const map = remapped.get(r.file_name) ?? new Map<string, string>();
    map.set(r.content_hash, hash);
    remapped.set(r.file_name, map);
  }
  for (const [file, map] of remapped) {
    const affected = listVersionsWithHashes(db, file, [...map.keys()]);
    if (!affected.length) continue;
    const oldHead = findHeadVersion(db, file)!.link;
    for (const a of affected) updateVersionContentHash(db, file, a.seq, map.get(a.content_hash)!);
    rechain(db, file, affected[0]!.seq, 'erasure', erasureId, oldHead, nowOf(ctx));
  }
  return [...remapped.keys()];
}

export function listErasures(db: DB): Array<{ id: string; erasedBy: string; erasedAt: number; valueHash: string; summary: unknown }> {
  return listErasureRows(db).map((r) => ({
    id: r.id,
    erasedBy: r.erased_by,
    erasedAt: r.erased_at,
    valueHash: r.value_hash,
    summary: JSON.parse(r.summary),
  }));
}
