import fs from 'node:fs';
import path from 'node:path';
import { AppError } from '../../shared/errors';
import type { DB } from '../db/connection';
import { linkSessionKey, sessionForAlias } from './cursors';
import { isObj } from './fields';
import { parseTime } from './ids';
import type { ReportBuilder } from './report';
import type { ImportSessionRow } from './store';

/** A sessions.json entry, reduced to what the workbench keeps. */
export interface OpenClawSessionEntry {
  key: string;
  sessionId: string;
  sessionFile?: string;
  channel?: string;
  accountId?: string;
  updatedAt?: number;
  startedAt?: number;
  displayName?: string;
  chatType?: string;
  subject?: string;
}

export interface OpenClawSource {
  /** Primary transcripts and plain (uncompressed) .reset./.deleted. archives: read as growing JSONL files. */
  transcripts: string[];
  /** `.jsonl.reset.<ts>.zst` / `.jsonl.deleted.<ts>.zst` archives: decompressed, read once. */
  compressedArchives: string[];
  /** Per-agent SQLite stores: agents/<agentId>/agent/openclaw-agent.sqlite. */
  databases: string[];
  /** Files seen and knowingly not read as transcripts (checkpoint copies, trajectories), by kind. */
  notTranscripts: Record<string, number>;
  /** sessions.json entries by transcript base name and by sessionId. */
  byFile: Map<string, OpenClawSessionEntry>;
  byId: Map<string, OpenClawSessionEntry>;
  entries: OpenClawSessionEntry[];
}

// OpenClaw's own classifiers (config/sessions/artifacts.ts, archive-compression.ts): an archive name
// ends in `.reset.` / `.deleted.` / `.bak.` plus a file-safe ISO time, optionally followed by `.zst`;
// a checkpoint copy is `<id>.checkpoint.<uuid>.jsonl`; a trajectory is `*.trajectory.jsonl`.
const ARCHIVE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d{3})?Z$/;
const CHECKPOINT = /^(.+)\.checkpoint\.[0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\.jsonl$/i;
const LEGACY_STORE_BACKUP = /^sessions\.json\.bak\.\d+$/;
export const AGENT_DATABASE = 'openclaw-agent.sqlite';
const MAX_INDEX_BYTES = 64 * 1024 * 1024;

function hasArchiveSuffix(name: string, reason: 'reset' | 'deleted' | 'bak'): boolean {
  const marker = `.${reason}.`;
  const at = name.lastIndexOf(marker);
  return at >= 0 && ARCHIVE_TIME.test(name.slice(at + marker.length));
}

const isArchiveName = (name: string) =>
  LEGACY_STORE_BACKUP.test(name) || hasArchiveSuffix(name, 'reset') || hasArchiveSuffix(name, 'deleted') || hasArchiveSuffix(name, 'bak');

/** OpenClaw's isPrimarySessionTranscriptFileName: live session history, not a copy or side file. */
export function isPrimaryTranscriptName(name: string): boolean {
  if (name === 'sessions.json' || !name.endsWith('.jsonl')) return false;
  if (name.endsWith('.trajectory.jsonl') || CHECKPOINT.test(name)) return false;
  return !isArchiveName(name);
}

type FileKind = 'primary' | 'archive' | 'compressed-archive' | 'checkpoint copies' | 'trajectories' | undefined;

function classify(name: string): FileKind {
  if (isPrimaryTranscriptName(name)) return 'primary';
  const compressed = name.endsWith('.zst');
  const plain = compressed ? name.slice(0, -4) : name;
  // Reset and deleted archives hold history (usage counts them too); .bak. copies do not.
  if (plain.includes('.jsonl.') && (hasArchiveSuffix(plain, 'reset') || hasArchiveSuffix(plain, 'deleted')))
    return compressed ? 'compressed-archive' : 'archive';
  if (CHECKPOINT.test(name)) return 'checkpoint copies';
  if (name.endsWith('.trajectory.jsonl')) return 'trajectories';
  return undefined;
}

const isDir = (d: string) => fs.existsSync(d) && fs.statSync(d).isDirectory();
const isFile = (f: string) => fs.existsSync(f) && fs.statSync(f).isFile();

/** Session folders and agent databases under a state dir, an agent dir, or a sessions dir. */
function storesUnder(source: string): { dirs: string[]; databases: string[] } {
  const dirs: string[] = [];
  const databases: string[] = [];
  const agent = (a: string) => {
    if (isDir(path.join(a, 'sessions'))) dirs.push(path.join(a, 'sessions'));
    if (isFile(path.join(a, 'agent', AGENT_DATABASE))) databases.push(path.join(a, 'agent', AGENT_DATABASE));
  };
  const agents = path.join(source, 'agents');
  if (isDir(agents)) for (const a of fs.readdirSync(agents).sort()) agent(path.join(agents, a));
  if (!dirs.length && !databases.length) agent(source);
  if (!dirs.length && !databases.length && isFile(path.join(source, AGENT_DATABASE))) databases.push(path.join(source, AGENT_DATABASE));
  if (!dirs.length && !databases.length) dirs.push(source);
  return { dirs, databases };
}

const str = (v: unknown) => (typeof v === 'string' && v ? v : undefined);

/** Finds sessions.json and every transcript (topic files and .reset./.deleted. archives included). */
export function discoverOpenClaw(source: string, report: ReportBuilder): OpenClawSource {
  if (!fs.existsSync(source)) throw new AppError('NotFound', `${source} does not exist`);
  const out: OpenClawSource = {
    transcripts: [],
    compressedArchives: [],
    databases: [],
    notTranscripts: {},
    byFile: new Map(),
    byId: new Map(),
    entries: [],
  };
  const one = fs.statSync(source).isFile();
  if (one && path.basename(source) === AGENT_DATABASE) {
    out.databases.push(path.resolve(source));
    return out;
  }
  const found = one ? { dirs: [path.dirname(path.resolve(source))], databases: [] } : storesUnder(path.resolve(source));
  out.databases.push(...found.databases);
  for (const dir of found.dirs) {
    const index = path.join(dir, 'sessions.json');
    if (fs.existsSync(index)) readIndex(index, out, report);
    if (!one) for (const f of fs.readdirSync(dir).sort()) addFile(out, dir, f);
  }
  if (one) {
    const kind = classify(path.basename(source));
    if (kind === 'compressed-archive') out.compressedArchives.push(path.resolve(source));
    else out.transcripts.push(path.resolve(source));
  }
  return out;
}

function addFile(out: OpenClawSource, dir: string, name: string): void {
  const kind = classify(name);
  if (!kind || !fs.statSync(path.join(dir, name)).isFile()) return;
  if (kind === 'primary' || kind === 'archive') out.transcripts.push(path.join(dir, name));
  else if (kind === 'compressed-archive') out.compressedArchives.push(path.join(dir, name));
  else out.notTranscripts[kind] = (out.notTranscripts[kind] ?? 0) + 1;
}

function readIndex(file: string, out: OpenClawSource, report: ReportBuilder): void {
  if (fs.statSync(file).size > MAX_INDEX_BYTES) {
    report.skip(file, 0, 'sessions.json is too large to read');
    return;
  }
  let data: unknown;
  try {
    data = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    report.skip(file, 0, `malformed JSON (${(e as Error).message.slice(0, 80)})`);
    return;
  }
  if (!isObj(data)) {
    report.skip(file, 0, 'sessions.json: expected an object of session keys');
    return;
  }
  for (const [key, value] of Object.entries(data)) {
    if (!isObj(value) || typeof value.sessionId !== 'string' || !value.sessionId) {
      report.skip(file, 0, `sessions.json: entry ${JSON.stringify(key.slice(0, 60))}: sessionId missing or not a string`);
      continue;
    }
    const entry = sessionEntryFrom(key, value, value.sessionId);
    out.entries.push(entry);
    out.byId.set(entry.sessionId, entry);
    if (entry.sessionFile) out.byFile.set(path.basename(entry.sessionFile), entry);
  }
  report.report.linesUnderstood += out.entries.length;
}

/** A SessionEntry (sessions.json value or session_nodes.entry_json), reduced to what the workbench keeps. */
export function sessionEntryFrom(key: string, value: Record<string, unknown>, sessionId: string): OpenClawSessionEntry {
  const origin = isObj(value.origin) ? value.origin : {};
  return {
    key,
    sessionId,
    sessionFile: str(value.sessionFile),
    channel: str(value.channel) ?? str(value.lastChannel) ?? str(origin.provider),
    accountId: str(value.lastAccountId) ?? str(origin.accountId),
    updatedAt: parseTime(value.updatedAt),
    startedAt: parseTime(value.sessionStartedAt),
    displayName: str(value.displayName) ?? str(value.label),
    chatType: str(value.chatType),
    subject: str(value.subject),
  };
}

/** The transcript's own name without archive suffixes: `<id>.jsonl`, `<id>-topic-42.jsonl`. */
export function transcriptBaseName(file: string): string {
  return path.basename(file).replace(/\.(?:reset|deleted)\.[^/\\]+$/, '');
}

export function entryForTranscript(src: OpenClawSource, file: string): OpenClawSessionEntry | undefined {
  const base = transcriptBaseName(file);
  const stem = base.replace(/\.jsonl$/, '');
  return src.byFile.get(base) ?? src.byId.get(stem) ?? src.byId.get(stem.replace(/-topic-.+$/, ''));
}

/**
 * The workbench session an OpenClaw key lands on: the one the plugin's logs linked it to, else the
 * key the plugin would build (channel:<channel>:<target>, as its buildChannelSessionKey does from
 * agent:<agent>:<channel>:<target...>), so importing logs and transcripts in either order meets.
 */
export function canonicalSessionId(db: DB, key: string): string {
  const linked = sessionForAlias(db, key);
  if (linked) return linked;
  const parts = key.split(':');
  if (parts.length >= 5 && parts[0] === 'agent' && parts[2]) return `channel:${parts[2]}:${parts.slice(3).join(':')}`;
  return key;
}

export function sessionRowFor(
  db: DB,
  entry: OpenClawSessionEntry | undefined,
  fallbackId: string,
  at: number,
  now: number,
): ImportSessionRow {
  if (!entry) {
    return {
      id: `openclaw:${fallbackId}`,
      channelId: 'openclaw',
      createdAt: at,
      lastActivityAt: at,
      metadata: { openclaw: { sessionId: fallbackId } },
    };
  }
  const id = canonicalSessionId(db, entry.key);
  linkSessionKey(db, entry.key, id, 'import:openclaw', now);
  const parts = id.split(':');
  const channelId = entry.channel ?? (parts[0] === 'channel' ? (parts[1] ?? 'openclaw') : 'openclaw');
  const target = parts[0] === 'channel' && parts.length > 2 ? parts.slice(2).join(':') : null;
  const created = entry.startedAt ?? at;
  return {
    id,
    channelId,
    conversationTarget: target,
    accountId: entry.accountId ?? null,
    createdAt: Math.min(created, at),
    lastActivityAt: Math.max(entry.updatedAt ?? at, at),
    metadata: {
      openclaw: {
        sessionKey: entry.key,
        ...(entry.displayName ? { displayName: entry.displayName } : {}),
        ...(entry.chatType ? { chatType: entry.chatType } : {}),
        ...(entry.subject ? { subject: entry.subject } : {}),
      },
    },
  };
}
