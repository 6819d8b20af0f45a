import fs from 'node:fs';
import path from 'node:path';
import { AppError } from '../../../shared/errors';
import type { DB } from '../../db/connection';
import { linkSessionKey, sessionForAlias } from './cursors';
import { isObj } from './fields';
import { parseTime } from './ids';
import type { ReportBuilder } from './report';
import type { SessionRow } from './store';

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
  transcripts: string[];
  /** sessions.json entries by transcript base name and by sessionId. */
  byFile: Map<string, OpenClawSessionEntry>;
  byId: Map<string, OpenClawSessionEntry>;
  entries: OpenClawSessionEntry[];
}

const TRANSCRIPT = /\.jsonl(?:\.(?:reset|deleted)\.[^/\\]+)?$/;
const MAX_INDEX_BYTES = 64 * 1024 * 1024;

function sessionsDirs(source: string): string[] {
  const dirs: string[] = [];
  const consider = (d: string) => {
    if (fs.existsSync(d) && fs.statSync(d).isDirectory()) dirs.push(d);
  };
  const agents = path.join(source, 'agents');
  if (fs.existsSync(agents) && fs.statSync(agents).isDirectory()) {
    for (const a of fs.readdirSync(agents).sort()) consider(path.join(agents, a, 'sessions'));
  }
  if (!dirs.length) consider(path.join(source, 'sessions'));
  if (!dirs.length) consider(source);
  return dirs;
}

const str = (v: unknown) => (typeof v === 'string' && v ? v : undefined);

/** Finds sessions.json and every transcript (topic files and .reset./.deleted. archives included). */
export function discoverOpenClaw(source: string, report: ReportBuilder): OpenClawSource {
  if (!fs.existsSync(source)) throw new AppError('NotFound', `${source} does not exist`);
  const out: OpenClawSource = { transcripts: [], byFile: new Map(), byId: new Map(), entries: [] };
  const isFile = fs.statSync(source).isFile();
  const dirs = isFile ? [path.dirname(path.resolve(source))] : sessionsDirs(path.resolve(source));
  for (const dir of dirs) {
    const index = path.join(dir, 'sessions.json');
    if (fs.existsSync(index)) readIndex(index, out, report);
    if (!isFile) {
      for (const f of fs.readdirSync(dir).sort()) {
        if (TRANSCRIPT.test(f) && fs.statSync(path.join(dir, f)).isFile()) out.transcripts.push(path.join(dir, f));
      }
    }
  }
  if (isFile) out.transcripts.push(path.resolve(source));
  return out;
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
    const origin = isObj(value.origin) ? value.origin : {};
    const entry: OpenClawSessionEntry = {
      key,
      sessionId: value.sessionId,
      sessionFile: str(value.sessionFile),
      channel: str(value.channel) ?? str(value.lastChannel) ?? str(origin.provider),
      accountId: str(value.lastAccountId) ?? str(origin.accountId),
      updatedAt: parseTime(value.updatedAt),
      startedAt: parseTime(value.sessionStartedAt),
      displayName: str(value.displayName),
      chatType: str(value.chatType),
      subject: str(value.subject),
    };
    out.entries.push(entry);
    out.byId.set(entry.sessionId, entry);
    if (entry.sessionFile) out.byFile.set(path.basename(entry.sessionFile), entry);
  }
  report.report.linesUnderstood += out.entries.length;
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

export function sessionRowFor(db: DB, entry: OpenClawSessionEntry | undefined, fallbackId: string, at: number, now: number): SessionRow {
  if (!entry) {
    return { id: `openclaw:${fallbackId}`, channelId: 'openclaw', createdAt: at, lastActivityAt: at, metadata: { openclaw: { sessionId: fallbackId } } };
  }
  const id = canonicalSessionId(db, entry.key);
  linkSessionKey(db, entry.key, id, 'import:openclaw', now);
  const parts = id.split(':');
  const channelId = entry.channel ?? (parts[0] === 'channel' ? parts[1] : 'openclaw');
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
