// Rebuilds sessions, turns, context windows, memory_gate decisions and write_guardian audits from
// the Reflection plugin's logs, following the reconstruction rules of docs/formats.md.
import fs from 'node:fs';
import path from 'node:path';
import { AUDIT_STATUSES, GATE_DECISIONS, MEMORY_FILES, fileForDecision, type GateDecision, type MemoryFileName } from '../../../shared/domain';
import { AppError } from '../../../shared/errors';
import { STATE_DIR } from '../../db/connection';
import { nowOf, type ServiceContext } from '../context';
import { linkSessionKey, loadState, saveState } from './cursors';
import { isoTime, obj, oneOf, optObj, optStr, str, time } from './fields';
import { hashOf, sourceUlid } from './ids';
import { finishImport } from './finish';
import { serialized } from './serialize';
import { ReportBuilder, type ImportReport } from './report';
import { ImportStore } from './store';
import { importJsonLines, skipLine } from './stream';

export interface ReflectionLogsInput {
  /** The plugin root (holding logs/), its logs folder, or one reflection-YYYY-MM-DD.log file. */
  source: string;
  /** The OpenClaw workspace whose .openclaw-reflection/write-guardian.log.jsonl holds the candidate facts. Defaults to ctx.workspaceDir. */
  workspace?: string;
  /** The audit log itself, when it is somewhere else. */
  guardianLog?: string;
  maxLineBytes?: number;
  /** Compare the memory files with what was last seen at the end (default true); live capture does that itself. */
  recordExternalChanges?: boolean;
}

interface Snapshot {
  role: 'user' | 'agent';
  message: string;
  timestamp: number;
}

interface SessionState {
  window: Snapshot[];
  lastUser?: { id: string; message: string; timestamp: number; metadata?: Record<string, unknown> };
  lastTurnId?: string;
  lastDecision?: { id: string; decision: GateDecision; turnId: string; at: number };
  lastAt?: number;
}

/** What the plugin had in memory, carried across runs and daily files. */
interface LogState {
  model: string | null;
  windowSize: number;
  sessions: Record<string, SessionState>;
  lastGuardianFile?: { decision: string; file: string; at: number };
}

const STATE_SCOPE = 'reflection-logs';
const DEFAULT_WINDOW = 10;
const AUDIT_JOIN_WINDOW_MS = 5000;
const SOURCE = 'import:reflection-logs';

const WRITE_EVENTS: Record<string, (typeof AUDIT_STATUSES)[number]> = {
  'write_guardian applied update': 'written',
  'write_guardian refused update': 'refused',
  'write_guardian failed': 'failed',
  'write_guardian skipped update': 'skipped',
};

/** reflection-*.log files in date order (the date is in the name, so name order is date order). */
export function findReflectionLogs(source: string): string[] {
  if (!fs.existsSync(source)) throw new AppError('NotFound', `${source} does not exist`);
  if (fs.statSync(source).isFile()) return [path.resolve(source)];
  const logsDir = fs.existsSync(path.join(source, 'logs')) ? path.join(source, 'logs') : source;
  return fs
    .readdirSync(logsDir)
    .filter((f) => /^reflection-.*\.log$/.test(f))
    .sort()
    .map((f) => path.resolve(logsDir, f));
}

const IDLE_SESSION_MS = 7 * 24 * 3600 * 1000;

/**
 * Months of logs name thousands of sessions; the carried state keeps only those active in the last
 * week of log time (the plugin itself recreates a buffer for a session that comes back).
 */
function pruneIdleSessions(state: LogState): LogState {
  let latest = 0;
  for (const s of Object.values(state.sessions)) latest = Math.max(latest, s.lastAt ?? 0);
  for (const [key, s] of Object.entries(state.sessions)) {
    if ((s.lastAt ?? 0) < latest - IDLE_SESSION_MS) delete state.sessions[key];
  }
  return state;
}

function sessionOf(state: LogState, key: string): SessionState {
  state.sessions[key] ??= { window: [] };
  return state.sessions[key];
}

/** channel:<channelId>:<target> → target (the plugin builds canonical keys this way). */
function targetOf(sessionKey: string, channelId: string): string | null {
  const prefix = `channel:${channelId}:`;
  return sessionKey.startsWith(prefix) ? sessionKey.slice(prefix.length) : null;
}

export function importReflectionLogs(ctx: ServiceContext, input: ReflectionLogsInput): Promise<ImportReport> {
  return serialized(ctx.db, 'reflection-logs', () => run(ctx, input));
}

async function run(ctx: ServiceContext, input: ReflectionLogsInput): Promise<ImportReport> {
  const report = new ReportBuilder('reflection-logs', input.source, nowOf(ctx));
  const files = findReflectionLogs(input.source);
  const guardianLog =
    input.guardianLog ?? path.join(input.workspace ?? ctx.workspaceDir, STATE_DIR, 'write-guardian.log.jsonl');
  const store = new ImportStore(ctx.db, report);
  const state: LogState = loadState<LogState>(ctx.db, STATE_SCOPE) ?? { model: null, windowSize: DEFAULT_WINDOW, sessions: {} };
  // Read each log only as far as it reached before the audit log is read: while the plugin runs, an
  // outcome line appended later could otherwise be read before its audit line (live capture).
  const endOf = new Map(files.map((f) => [f, fs.statSync(f).size]));
  const total = files.reduce((n, f) => n + endOf.get(f)!, 0) + (fs.existsSync(guardianLog) ? fs.statSync(guardianLog).size : 0);
  const progress = { done: 0, total, label: 'reading plugin logs' };
  if (!files.length) report.note(`No reflection-*.log files were found in ${input.source}.`);
  const debugJson = files.length ? path.join(path.dirname(files[0]), 'debug.json') : undefined;
  if (debugJson && fs.existsSync(debugJson)) {
    report.note('debug.json was left as it is: it holds only the latest raw inbound payload, which the log lines already carry.');
  }

  // The audit log first: its lines (written 0-5 s before the MessageHandler line) must be in the
  // database before the write outcomes that join them are read.
  if (fs.existsSync(guardianLog)) {
    const insertLine = ctx.db.prepare(
      `INSERT OR IGNORE INTO guardian_log_lines (id, at, decision, status, target_file, reason, candidate_fact, source_file, line_number)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    await importJsonLines(ctx, report, {
      importer: 'guardian-log',
      file: path.resolve(guardianLog),
      maxLineBytes: input.maxLineBytes,
      handle: (v, line) => {
        const at = time(v, 'timestamp');
        const decision = oneOf(v, 'decision', GATE_DECISIONS);
        const status = oneOf(v, 'status', AUDIT_STATUSES);
        const targetFile = optStr(v, 'targetFile');
        const reason = optStr(v, 'reason');
        const fact = optStr(v, 'candidateFact');
        const id = hashOf('guardian-log', path.basename(guardianLog), line.lineNumber, line.text ?? '').slice(0, 32);
        report.inserted('guardian_log_lines', insertLine.run(id, at, decision, status, targetFile ?? null, reason ?? null, fact ?? null, guardianLog, line.lineNumber).changes);
      },
    }, { progress });
  } else {
    report.note(`No write-guardian.log.jsonl at ${guardianLog}: the candidate facts of writes stay empty.`);
  }

  const findAuditLine = ctx.db.prepare(
    `SELECT id, target_file AS targetFile, reason, candidate_fact AS candidateFact, source_file AS file, line_number AS line
     FROM guardian_log_lines WHERE decision = ? AND status = ? AND at BETWEEN ? AND ? AND audit_id IS NULL
     ORDER BY at DESC LIMIT 1`,
  );
  const claimAuditLine = ctx.db.prepare('UPDATE guardian_log_lines SET audit_id = ? WHERE id = ?');

  for (const file of files) {
    if (ctx.signal?.aborted) break;
    const base = path.basename(file);
    await importJsonLines(
      ctx,
      report,
      {
        importer: 'reflection-logs',
        file,
        end: endOf.get(file),
        maxLineBytes: input.maxLineBytes,
        onCommit: () => saveState(ctx.db, STATE_SCOPE, pruneIdleSessions(state), nowOf(ctx)),
        handle: (v, line) => {
          const at = isoTime(v, 'timestamp');
          const component = str(v, 'component');
          const event = str(v, 'event');
          const details = optObj(v, 'details');
          const lineKey = optStr(v, 'sessionKey');
          const where = `${base}:${line.lineNumber}`;

          if (component === 'PluginLifecycle' && event === 'Plugin starting') {
            // Buffers live in memory: a restart empties every context window.
            state.sessions = {};
            return;
          }
          if (component === 'PluginLifecycle' && event === 'Configuration loaded') {
            const d = details ?? skipLine('details: missing');
            const llm = optObj(d, 'llm', 'details.');
            const model = llm ? optStr(llm, 'model', 'details.llm.') : undefined;
            const gate = optObj(d, 'memoryGate', 'details.');
            const ws = gate?.windowSize;
            if (ws !== undefined && (typeof ws !== 'number' || !Number.isInteger(ws) || ws < 1)) skipLine('details.memoryGate.windowSize: expected a positive integer');
            if (model) state.model = model;
            state.windowSize = (ws as number | undefined) ?? DEFAULT_WINDOW;
            return;
          }
          if (component === 'MessageHandler' && event === 'Canonicalized session key to channel scope') {
            const d = details ?? skipLine('details: missing');
            const original = str(d, 'originalSessionKey', 'details.');
            const canonical = str(d, 'canonicalSessionKey', 'details.');
            if (linkSessionKey(ctx.db, original, canonical, SOURCE, at)) report.count('session_aliases');
            return;
          }
          if (component === 'SessionBufferManager' && event === 'Creating new session buffer') {
            const key = (details && optStr(details, 'sessionKey', 'details.')) ?? lineKey ?? skipLine('sessionKey: missing');
            const s = sessionOf(state, key);
            // The plugin logs the snapshot that creates the buffer just before this line; keep it.
            const last = s.window[s.window.length - 1];
            s.window = last && at - last.timestamp <= 1000 ? [last] : [];
            return;
          }
          if (component === 'MessageHandler' && event === 'Buffer message snapshot') {
            const d = details ?? skipLine('details: missing');
            const m = obj(d, 'bufferMessage', 'details.');
            const id = str(m, 'id', 'bufferMessage.');
            const role = oneOf(m, 'role', ['user', 'agent'] as const, 'bufferMessage.');
            const message = str(m, 'message', 'bufferMessage.');
            const ts = time(m, 'timestamp', 'bufferMessage.');
            const key = optStr(m, 'sessionKey', 'bufferMessage.') ?? lineKey ?? skipLine('bufferMessage.sessionKey: missing');
            const channelId = optStr(m, 'channelId', 'bufferMessage.') ?? 'unknown';
            const meta = optObj(m, 'metadata', 'bufferMessage.');
            const accountId = meta && typeof meta.accountId === 'string' ? meta.accountId : null;
            store.upsertSession({ id: key, channelId, conversationTarget: targetOf(key, channelId), accountId, createdAt: ts, lastActivityAt: ts });
            const s = sessionOf(state, key);
            s.window.push({ role, message, timestamp: ts });
            s.lastAt = ts;
            if (s.window.length > state.windowSize) s.window.splice(0, s.window.length - state.windowSize);
            if (role === 'user') {
              s.lastUser = { id, message, timestamp: ts, metadata: meta };
              return;
            }
            // Each agent snapshot closes a turn with the latest user snapshot of the session:
            // exactly the pair memory_gate judged.
            const user = s.lastUser;
            const imported = store.turnExists(id) ? undefined : store.sameExchange(key, ts - 120_000, ts + 60_000, id, user?.message ?? '', message);
            if (imported) {
              // Already imported from the OpenClaw transcript: the decisions attach to that turn.
              report.ignore('turns already imported from OpenClaw transcripts');
              s.lastTurnId = imported;
              s.lastDecision = undefined;
              return;
            }
            store.insertTurn({
              id,
              sessionId: key,
              userMessageId: user && typeof user.metadata?.messageId === 'string' ? user.metadata.messageId : null,
              userContent: user?.message ?? '',
              userFrom: user && typeof user.metadata?.from === 'string' ? user.metadata.from : null,
              userMetadata: user
                ? { snapshotId: user.id, timestamp: user.timestamp, ...(user.metadata ?? {}) }
                : { noUserMessage: true },
              agentMessageId: id,
              agentContent: message,
              agentMetadata: { snapshotId: id, importedFrom: where, ...(meta && Object.keys(meta).length ? { metadata: meta } : {}) },
              createdAt: ts,
              context: s.window.map((w) => ({ ...w })),
            });
            s.lastTurnId = id;
            s.lastDecision = undefined;
            return;
          }
          if (component === 'MessageHandler' && event === 'memory_gate decision evaluated') {
            const key = lineKey ?? skipLine('sessionKey: missing');
            const d = details ?? skipLine('details: missing');
            const decision = oneOf(d, 'decision', GATE_DECISIONS, 'details.');
            const reason = str(d, 'reason', 'details.');
            const s = state.sessions[key];
            const turnId = s?.lastTurnId ?? skipLine(`a decision for ${key} with no agent reply before it since the plugin started`);
            const id = sourceUlid(at, 'decision', base, line.lineNumber, hashOf(line.text ?? ''));
            if (!state.model) report.note("The configured model was not found in the logs (no 'Configuration loaded' line): decisions are marked with model 'unknown'.");
            store.insertDecision({ id, turnId, sessionId: key, decision, reason, model: state.model ?? 'unknown', source: SOURCE, createdAt: at });
            s!.lastDecision = { id, decision, turnId, at };
            return;
          }
          if (component === 'WriteGuardian' && details && typeof details.filePath === 'string') {
            state.lastGuardianFile = { decision: String(details.decision ?? ''), file: path.basename(details.filePath.replace(/\\/g, '/')), at };
            return;
          }
          if (component === 'MessageHandler' && WRITE_EVENTS[event]) {
            const status = WRITE_EVENTS[event];
            const key = lineKey ?? skipLine('sessionKey: missing');
            const d = details ?? skipLine('details: missing');
            const decision = oneOf(d, 'decision', GATE_DECISIONS, 'details.');
            const reason = optStr(d, 'reason', 'details.');
            const gate = state.sessions[key]?.lastDecision;
            if (!gate || gate.decision !== decision) skipLine(`a write outcome for ${decision} with no matching memory_gate decision before it in ${key}`);
            const id = sourceUlid(at, 'audit', base, line.lineNumber, hashOf(line.text ?? ''));
            const auditLine = findAuditLine.get(decision, status, at - AUDIT_JOIN_WINDOW_MS, at) as
              | { id: string; targetFile: string | null; reason: string | null; candidateFact: string | null; file: string; line: number }
              | undefined;
            const guardianFile = state.lastGuardianFile && state.lastGuardianFile.decision === decision && at - state.lastGuardianFile.at <= AUDIT_JOIN_WINDOW_MS
              ? state.lastGuardianFile.file
              : undefined;
            const candidates = [auditLine?.targetFile, guardianFile, fileForDecision(decision)];
            const targetFile = candidates.find((f): f is MemoryFileName => !!f && (MEMORY_FILES as readonly string[]).includes(f));
            if (!targetFile) skipLine(`a write outcome for ${decision} without a target file`);
            const added = store.insertAudit({
              id,
              decisionId: gate!.id,
              turnId: gate!.turnId,
              sessionId: key,
              targetFile: targetFile!,
              candidateFact: auditLine?.candidateFact ?? null,
              status,
              reason: reason ?? auditLine?.reason ?? null,
              // The logs do not say which model write_guardian used: leave it empty rather than guess.
              model: null,
              metadata: {
                importedFrom: where,
                auditLog: auditLine ? `${path.basename(auditLine.file)}:${auditLine.line}` : null,
              },
              createdAt: at,
            });
            if (added && auditLine) claimAuditLine.run(id, auditLine.id);
            return;
          }
          report.ignore('other log events');
        },
      },
      { progress },
    );
  }

  return finishImport(ctx, report, { recordExternalChanges: input.recordExternalChanges });
}
