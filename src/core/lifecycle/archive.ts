import fs from 'node:fs';
import path from 'node:path';
import { once } from 'node:events';
import { ulid } from 'ulid';
import type Database from 'better-sqlite3';
import { STATE_DIR, type DB } from '../db/connection';
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

interface TurnRow {
  seq: number;
  id: string;
  session_id: string;
  turn_number: number;
  user_message_id: string | null;
  user_message_content: string;
  user_from: string | null;
  agent_message_id: string | null;
  agent_message_content: string;
  created_at: number;
  channel_id: string;
  conversation_target: string | null;
  account_id: string | null;
}

/** The turn, its session, its decision(s) and its write(s): one archive line. */
export interface ArchiveLine {
  turn: {
    id: string; sessionId: string; turnNumber: number; createdAt: number;
    user: { id: string | null; content: string; from: string | null };
    agent: { id: string | null; content: string };
  };
  session: { id: string; channelId: string; conversationTarget: string | null; accountId: string | null };
  decisions: Record<string, unknown>[];
  writes: Record<string, unknown>[];
}

const PAGE = 500;
const TURN_COLUMNS = `t.seq, t.id, t.session_id, t.turn_number, t.user_message_id, t.user_message_content, t.user_from,
  t.agent_message_id, t.agent_message_content, t.created_at, s.channel_id, s.conversation_target, s.account_id`;
// Opt-out: excluded sessions are never archived.
const NOT_EXCLUDED = 't.session_id NOT IN (SELECT session_id FROM excluded_sessions)';

class LineBuilder {
  private readonly decisions: Database.Statement;
  private readonly writes: Database.Statement;
  constructor(db: DB) {
    this.decisions = db.prepare(`SELECT id, decision, reason, candidate_fact AS candidateFact, llm_model AS llmModel,
      llm_latency_ms AS latencyMs, prompt_tokens AS promptTokens, completion_tokens AS completionTokens, source, created_at AS createdAt
      FROM memory_gate_decisions WHERE turn_id = ? ORDER BY created_at, seq`);
    this.writes = db.prepare(`SELECT id, decision_id AS decisionId, target_file AS targetFile, status, candidate_fact AS candidateFact,
      reason, diff, lines_added AS linesAdded, lines_removed AS linesRemoved, lines_modified AS linesModified, source,
      created_at AS createdAt FROM write_guardian_audit WHERE turn_id = ? ORDER BY created_at, id`);
  }
  line(r: TurnRow): string {
    const line: ArchiveLine = {
      turn: {
        id: r.id, sessionId: r.session_id, turnNumber: r.turn_number, createdAt: r.created_at,
        user: { id: r.user_message_id, content: r.user_message_content, from: r.user_from },
        agent: { id: r.agent_message_id, content: r.agent_message_content },
      },
      session: { id: r.session_id, channelId: r.channel_id, conversationTarget: r.conversation_target, accountId: r.account_id },
      decisions: this.decisions.all(r.id) as Record<string, unknown>[],
      writes: this.writes.all(r.id) as Record<string, unknown>[],
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

export interface ExportConversationsResult {
  file: string;
  turns: number;
  bytes: number;
}

/** On demand: every non-excluded turn created in [since, until), streamed to one JSONL file. */
export async function exportConversations(ctx: ServiceContext, options: ExportConversationsOptions = {}): Promise<ExportConversationsResult> {
  const since = options.since ?? 0;
  const until = options.until ?? nowOf(ctx) + 1;
  if (!(since < until)) throw new AppError('Invalid', `since: must be before until (${new Date(since).toISOString()} >= ${new Date(until).toISOString()})`);
  const file = path.resolve(options.output ?? path.join(exportsDir(ctx.workspaceDir), `conversations-${options.since === undefined ? 'start' : utcDay(since)}_${utcDay(until - 1)}.jsonl`));
  refuseExisting([file], options.overwrite);
  removeStalePartials(path.dirname(file));
  const partial = `${file}.partial-${process.pid}`;
  fs.rmSync(partial, { force: true });
  const builder = new LineBuilder(ctx.db);
  const writer = new JsonlWriter();
  // Keyset pages rather than one open iterator: an export awaits the disk between pages, and an
  // open iterator would keep the shared connection busy for every other writer meanwhile.
  const page = ctx.db.prepare(`SELECT ${TURN_COLUMNS} FROM conversation_turns t JOIN sessions s ON s.id = t.session_id
      WHERE t.created_at < @until AND ${NOT_EXCLUDED} AND (t.created_at > @at OR (t.created_at = @at AND t.seq > @seq))
      ORDER BY t.created_at, t.seq LIMIT ${PAGE}`);
  const rows = (function* () {
    let at = since - 1;
    let seq = Number.MAX_SAFE_INTEGER;
    for (;;) {
      const list = page.all({ until, at, seq }) as TurnRow[];
      yield* list;
      if (list.length < PAGE) return;
      at = list[list.length - 1].created_at;
      seq = list[list.length - 1].seq;
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
  ctx.db
    .prepare("INSERT INTO conversation_archives (id, file_name, kind, since, until, turns, bytes, created_at) VALUES (?, ?, 'on_demand', ?, ?, ?, ?, ?)")
    .run(ulid(nowOf(ctx)), file, since, until, turns, bytes, nowOf(ctx));
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
  const page = ctx.db.prepare(`SELECT ${TURN_COLUMNS}, (t.session_id IN (SELECT session_id FROM excluded_sessions)) AS excluded
      FROM conversation_turns t JOIN sessions s ON s.id = t.session_id WHERE t.seq > ? ORDER BY t.seq LIMIT ${PAGE}`);
  const rows = (function* () {
    let after = lastSeq;
    for (;;) {
      const list = page.all(after) as (TurnRow & { excluded: number })[];
      yield* list;
      if (list.length < PAGE) return;
      after = list[list.length - 1].seq;
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
  const record = ctx.db.prepare("INSERT INTO conversation_archives (id, file_name, kind, since, until, turns, bytes, created_at) VALUES (?, ?, 'scheduled', NULL, ?, ?, ?, ?)");
  ctx.db.transaction(() => {
    for (const f of files) record.run(ulid(now), path.basename(f.file), now, f.turns, f.bytes, now);
    setState(ctx.db, CURSOR_KEY, cursor, now);
  }).immediate();
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
    if (m && m[1] < oldestKept) {
      fs.rmSync(path.join(dir, name), { force: true });
      removed.push(name);
    }
  }
  return removed.sort();
}
