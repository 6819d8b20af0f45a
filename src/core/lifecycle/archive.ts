import fs from 'node:fs';
import path from 'node:path';
import { once } from 'node:events';
import { ulid } from 'ulid';
import { STATE_DIR, type DB } from '../db/connection';
import {
  insertArchiveRecord,
  listArchiveTurnsPage,
  listDecisionsOfTurn,
  listTurnsAfterSeq,
  listWritesOfTurn,
  type ArchiveTurnRow as TurnRow,
} from '../db/repositories/archives';
import type { ConversationExportResult } from '../../shared/contract';
import { AppError } from '../../shared/errors';
import { nowOf, type ServiceContext } from '../context';
import { refuseExisting, removeStalePartials } from './outputFiles';
import { getState, setState } from './state';

export const EXPORTS_DIR = 'exports';
export const ARCHIVE_NAME = /^conversations-(\d{4}-\d{2}-\d{2})\.jsonl$/;

export function exportsDir(workspaceDir: string): string {
  return path.join(workspaceDir, STATE_DIR, EXPORTS_DIR);
}

const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The turn, its session, its decision(s) and its write(s): one archive line. */
export interface ArchiveLine {
  turn: {
    id: string;
    sessionId: string;
    turnNumber: number;
    createdAt: number;
    user: { id: string | null; content: string; from: string | null };
    agent: { id: string | null; content: string };
  };
  session: { id: string; channelId: string; conversationTarget: string | null; accountId: string | null };
  decisions: Record<string, unknown>[];
  writes: Record<string, unknown>[];
}

const PAGE = 500;

class LineBuilder {
  constructor(private readonly db: DB) {}
  line(r: TurnRow): string {
    const line: ArchiveLine = {
      turn: {
        id: r.id,
        sessionId: r.session_id,
        turnNumber: r.turn_number,
        createdAt: r.created_at,
        user: { id: r.user_message_id, content: r.user_message_content, from: r.user_from },
        agent: { id: r.agent_message_id, content: r.agent_message_content },
      },
      session: { id: r.session_id, channelId: r.channel_id, conversationTarget: r.conversation_target, accountId: r.account_id },
      decisions: listDecisionsOfTurn(this.db, r.id),
      writes: listWritesOfTurn(this.db, r.id),
    };
    return `${JSON.stringify(line)}\n`;
  }
}

/** Appends lines to files with backpressure, one open stream at a time. */
class JsonlWriter {
  private stream?: fs.WriteStream;
  private current?: string;
  readonly bytes = new Map<string, number>();
  readonly turns = new Map<string, number>();
  async write(file: string, text: string): Promise<void> {
    if (file !== this.current) {
      await this.close();
      fs.mkdirSync(path.dirname(file), { recursive: true });
      this.stream = fs.createWriteStream(file, { flags: 'a' });
      this.current = file;
    }
    this.bytes.set(file, (this.bytes.get(file) ?? 0) + Buffer.byteLength(text));
    this.turns.set(file, (this.turns.get(file) ?? 0) + 1);
    if (!this.stream!.write(text)) await once(this.stream!, 'drain');
  }
  async close(): Promise<void> {
    if (!this.stream) return;
    const s = this.stream;
    this.stream = undefined;
    this.current = undefined;
    s.end();
    await once(s, 'finish');
  }
}

export interface ExportConversationsOptions {
  since?: number;
  until?: number;
  /** Output file; default <workspace>/.openclaw-reflection/exports/conversations-<since>_<until>.jsonl. */
  output?: string;
  /** Replace an existing output file (default: refuse). */
  overwrite?: boolean;
}

/** On demand: every non-excluded turn created in [since, until), streamed to one JSONL file. */
export async function exportConversations(
  ctx: ServiceContext,
  options: ExportConversationsOptions = {},
): Promise<ConversationExportResult> {
  const since = options.since ?? 0;
  const until = options.until ?? nowOf(ctx) + 1;
  if (!(since < until))
    throw new AppError('Invalid', `since: must be before until (${new Date(since).toISOString()} >= ${new Date(until).toISOString()})`);
  const file = path.resolve(
    options.output ??
      path.join(
        exportsDir(ctx.workspaceDir),
        `conversations-${options.since === undefined ? 'start' : utcDay(since)}_${utcDay(until - 1)}.jsonl`,
      ),
  );
  refuseExisting([file], options.overwrite);
  removeStalePartials(path.dirname(file));
  const partial = `${file}.partial-${process.pid}`;
  fs.rmSync(partial, { force: true });
  const builder = new LineBuilder(ctx.db);
  const writer = new JsonlWriter();
  // Keyset pages rather than one open iterator: an export awaits the disk between pages, and an
  // open iterator would keep the shared connection busy for every other writer meanwhile.
  // Opt-out: excluded sessions are never archived (the page leaves them out).
  const rows = (function* () {
    let at = since - 1;
    let seq = Number.MAX_SAFE_INTEGER;
    for (;;) {
      const list = listArchiveTurnsPage(ctx.db, { until, at, seq, limit: PAGE });
      yield* list;
      if (list.length < PAGE) return;
      const last = list[list.length - 1]!; // a full page
      at = last.created_at;
      seq = last.seq;
    }
  })();
  let turns = 0;
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(partial, '');
    for (const r of rows) {
      ctx.signal?.throwIfAborted();
      await writer.write(partial, builder.line(r));
      turns++;
      if (turns % 1000 === 0) ctx.progress?.(turns, null, 'turns archived');
    }
    await writer.close();
    fs.renameSync(partial, file);
  } catch (e) {
    await writer.close().catch(() => undefined);
    fs.rmSync(partial, { force: true });
    throw e;
  }
  const bytes = fs.statSync(file).size;
  insertArchiveRecord(ctx.db, {
    id: ulid(nowOf(ctx)),
    fileName: file,
    kind: 'on_demand',
    since,
    until,
    turns,
    bytes,
    createdAt: nowOf(ctx),
  });
  return { file, turns, bytes };
}

const CURSOR_KEY = 'archive.lastSeq';
/** A turn younger than this is left for the next run, so its decision and write (a few seconds later) land with it. */
export const ARCHIVE_SETTLE_MS = 60_000;

export interface ScheduledArchiveResult {
  files: { file: string; turns: number; bytes: number }[];
  turns: number;
  removed: string[];
}

/**
 * One scheduled run: appends every turn recorded since the previous run (by insertion order, so
 * late imports with old timestamps are archived too) to exports/conversations-<day of the turn>.jsonl,
 * then removes archives older than retentionDays. Appending keeps a day's file whole when a day is
 * split across runs (hourly schedules, a catch-up after the app was closed).
 */
export async function runScheduledArchive(ctx: ServiceContext, options: { retentionDays: number }): Promise<ScheduledArchiveResult> {
  const now = nowOf(ctx);
  const dir = exportsDir(ctx.workspaceDir);
  const lastSeq = getState<number>(ctx.db, CURSOR_KEY) ?? 0;
  const builder = new LineBuilder(ctx.db);
  const writer = new JsonlWriter();
  const rows = (function* () {
    let after = lastSeq;
    for (;;) {
      const list = listTurnsAfterSeq(ctx.db, after, PAGE);
      yield* list;
      if (list.length < PAGE) return;
      after = list[list.length - 1]!.seq; // a full page
    }
  })();
  let cursor = lastSeq;
  let turns = 0;
  try {
    for (const r of rows) {
      if (r.created_at > now - ARCHIVE_SETTLE_MS) break;
      cursor = r.seq;
      if (r.excluded) continue;
      await writer.write(path.join(dir, `conversations-${utcDay(r.created_at)}.jsonl`), builder.line(r));
      turns++;
    }
  } finally {
    await writer.close();
  }
  const files = [...writer.turns.keys()].map((file) => ({ file, turns: writer.turns.get(file)!, bytes: writer.bytes.get(file)! }));
  ctx.db
    .transaction(() => {
      for (const f of files)
        insertArchiveRecord(ctx.db, {
          id: ulid(now),
          fileName: path.basename(f.file),
          kind: 'scheduled',
          since: null,
          until: now,
          turns: f.turns,
          bytes: f.bytes,
          createdAt: now,
        });
      setState(ctx.db, CURSOR_KEY, cursor, now);
    })
    .immediate();
  const removed = removeOldArchives(ctx.workspaceDir, options.retentionDays, now);
  return { files, turns, removed };
}

/** Deletes exports/conversations-YYYY-MM-DD.jsonl files whose day is more than retentionDays before now. */
export function removeOldArchives(workspaceDir: string, retentionDays: number, now: number): string[] {
  const dir = exportsDir(workspaceDir);
  if (!fs.existsSync(dir)) return [];
  const oldestKept = utcDay(now - retentionDays * 24 * 60 * 60 * 1000);
  const removed: string[] = [];
  for (const name of fs.readdirSync(dir)) {
    const m = ARCHIVE_NAME.exec(name);
    if (m?.[1] !== undefined && m[1] < oldestKept) {
      fs.rmSync(path.join(dir, name), { force: true });
      removed.push(name);
    }
  }
  return removed.sort();
}
