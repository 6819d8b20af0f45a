// Blame: which recorded write last produced each line of a memory file, with that write's
// decision, turn, session and time, and the earlier writes a moved or reworded line came from.
// Line maps are computed once per version and stored (memory_versions.line_map), so a view reads
// one row and never re-diffs the history; only versions recorded since the last view are mapped.
import type { BlameDto, BlameLine, BlameWrite } from '../../shared/contract/health';
import type { MemoryFileName } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import type { DB } from '../db/connection';
import { assertMemoryFileName, readMemoryFile } from '../files/memoryFiles';
import type { ServiceContext } from '../context';
import { decodeMap, emptyMap, encodeMap, nextLineMap, splitLines, type LineMap, type Origins } from './lineMap';
import {
  findLastMappedSeq,
  findVersionWrite,
  hasWriteAfter,
  listVersionsWithContent as versionsWithContent,
  updateVersionLineMap,
} from '../db/repositories/memoryVersions';
import { headVersion, syncVersions } from './versions';

const CHUNK = 500;

/** Maps every version of the file that has no stored line map yet, continuing from the last mapped one. Returns how many. */
export function ensureLineMaps(db: DB, file: MemoryFileName): number {
  let head = headVersion(db, file);
  // The recorder chains every write as it is recorded; only writes made without it (an older
  // database, another tool) need a catch-up, and those have no version yet.
  if (!head || hasWriteAfter(db, file, head.audit_rowid)) {
    syncVersions(db, file);
    head = headVersion(db, file);
  }
  if (!head || head.line_map !== null) return 0;
  const lastMapped = findLastMappedSeq(db, file);
  let prevLines: string[] = [];
  let prevMap: LineMap = emptyMap();
  if (lastMapped > 0) {
    const [row] = versionsWithContent(db, file, lastMapped, lastMapped);
    if (!row) throw new AppError('Internal', `${file}: version ${lastMapped} has a line map but no content`);
    prevLines = splitLines(row.content);
    prevMap = decodeMap(row.line_map!);
  }
  let mapped = 0;
  for (let from = lastMapped + 1; from <= head.seq; from += CHUNK) {
    const rows = versionsWithContent(db, file, from, Math.min(head.seq, from + CHUNK - 1));
    const updates: Array<[string, string | null, number]> = [];
    for (const row of rows) {
      const lines = splitLines(row.content);
      const next = nextLineMap(prevLines, prevMap, lines, row.seq);
      updates.push([encodeMap(next.map), next.origins.length ? JSON.stringify(next.origins) : null, row.seq]);
      prevLines = lines;
      prevMap = next.map;
    }
    db.transaction(() => updates.forEach(([m, o, seq]) => updateVersionLineMap(db, file, seq, m, o)))();
    mapped += rows.length;
  }
  return mapped;
}

/** The shapes the API returns (declared once, in the contract). */
/** write null: the line is on disk but no recorded write produced it (an edit not recorded yet). */
export interface BlameResult extends BlameDto {
  fileName: MemoryFileName;
}

const HISTORY_DEPTH = 20;

export interface BlameInput {
  file: string;
  line?: number;
  /** Blame a past version (seq) instead of the file as it is now. */
  seq?: number;
}

/** Blames the current file (or one recorded version). */
export function blameFile(ctx: ServiceContext, input: BlameInput): BlameResult {
  const file = assertMemoryFileName(input.file);
  ensureLineMaps(ctx.db, file);
  const head = headVersion(ctx.db, file);
  const seq = input.seq ?? head?.seq;
  if (input.seq !== undefined && (!head || input.seq < 1 || input.seq > head.seq)) {
    throw new AppError('NotFound', `${file} has no version ${input.seq} (it has ${head?.seq ?? 0})`);
  }
  const version = seq ? versionsWithContent(ctx.db, file, seq, seq)[0] : undefined;
  let lines = splitLines(version?.content ?? null);
  let map = version?.line_map ? decodeMap(version.line_map) : emptyMap();
  let diskDiffers = false;
  if (input.seq === undefined) {
    const disk = readMemoryFile(ctx.workspaceDir, file);
    if (disk !== (version?.content ?? null)) {
      // An edit nobody recorded yet: its lines get no write (producer 0) until it is recorded.
      diskDiffers = true;
      const diskLines = splitLines(disk);
      map = nextLineMap(lines, map, diskLines, 0).map;
      lines = diskLines;
    }
  }
  if (input.line !== undefined && (input.line < 1 || input.line > lines.length)) {
    throw new AppError('Invalid', `--line ${input.line}: ${file} has ${lines.length} line(s)`);
  }
  const wanted = input.line !== undefined ? [input.line - 1] : lines.map((_, i) => i);
  const writes = new WriteLookup(ctx.db, file);
  const versions = new VersionCache(ctx.db, file);
  // A whole-file view shows the step before each line's write; one line (--line) gets its full history.
  const depth = input.line !== undefined ? HISTORY_DEPTH : 1;
  return {
    fileName: file,
    versions: head?.seq ?? 0,
    headSeq: head?.seq ?? null,
    diskDiffers,
    lines: wanted.map((i) => {
      const producer = map.producer[i] ?? 0; // the map has one entry per line of the file
      return {
        line: i + 1,
        text: lines[i] ?? '',
        write: producer > 0 ? writes.get(producer) : null,
        history: producer > 0 ? lineHistory(versions, writes, producer, map.index[i] ?? 0, depth) : [],
      };
    }),
  };
}

/** Decoded versions, each read and parsed once per blame. */
class VersionCache {
  private readonly cache = new Map<number, { lines: string[]; map: LineMap | null; origins: Map<number, number> }>();
  constructor(
    private readonly db: DB,
    private readonly file: MemoryFileName,
  ) {}
  get(seq: number) {
    let v = this.cache.get(seq);
    if (!v) {
      const [row] = versionsWithContent(this.db, this.file, seq, seq);
      v = {
        lines: splitLines(row?.content ?? null),
        map: row?.line_map ? decodeMap(row.line_map) : null,
        origins: new Map(row?.origins ? (JSON.parse(row.origins) as Origins) : []),
      };
      this.cache.set(seq, v);
    }
    return v;
  }
}

/** Follows a line back through the writes that moved or reworded it. */
function lineHistory(versions: VersionCache, writes: WriteLookup, producer: number, index: number, depth: number): BlameLine['history'] {
  const out: BlameLine['history'] = [];
  let seq = producer;
  let at = index;
  while (out.length < depth && seq > 1) {
    const from = versions.get(seq).origins.get(at);
    if (from === undefined) break;
    const prev = versions.get(seq - 1);
    if (!prev.map) break;
    const text = prev.lines[from] ?? '';
    seq = prev.map.producer[from] ?? 0;
    at = prev.map.index[from] ?? 0;
    if (seq <= 0) break;
    out.push({ write: writes.get(seq), text });
  }
  return out;
}

/** Audit, decision and turn of a version, looked up once per distinct producer. */
class WriteLookup {
  private readonly cache = new Map<number, BlameWrite>();
  constructor(
    private readonly db: DB,
    private readonly file: MemoryFileName,
  ) {}
  get(seq: number): BlameWrite {
    let w = this.cache.get(seq);
    if (!w) {
      w = findVersionWrite(this.db, this.file, seq) as BlameWrite;
      this.cache.set(seq, w);
    }
    return w;
  }
}
