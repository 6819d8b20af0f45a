// Replays the Reflection plugin's log lines, one event at a time, into turns, decisions, failed gate
// runs and write outcomes, keeping what the plugin kept in memory (buffers, the gate queue) in state
// that is carried across runs and daily files. docs/plugin-logs.md describes every event.
import path from 'node:path';
import { AUDIT_STATUSES, GATE_DECISIONS, MEMORY_FILES, fileForDecision, type GateDecision, type MemoryFileName } from '../../shared/domain';
import type { DB } from '../db/connection';
import { claimGuardianLogLine, findUnclaimedGuardianLogLine } from '../db/repositories/pluginLogs';
import { linkSessionKey } from './cursors';
import { isoTime, obj, oneOf, optObj, optStr, str, time, type Obj } from './fields';
import {
  awaitOutcome,
  currentRun,
  endRun,
  enqueueRun,
  isFailedGateReason,
  judgedTurn,
  takeAnyAwaiting,
  takeAwaiting,
  type GateQueueState,
} from './gateQueue';
import { hashOf, sourceUlid } from './ids';
import { PluginLogStore } from './pluginLogStore';
import type { ReportBuilder } from './report';
import { ImportStore, type ContextSnapshot } from './store';
import { skipLine } from './stream';
import type { SourceLine } from './lines';

interface AgentReply {
  turnId: string;
  text: string;
  messageId?: string;
  userSnapshotId?: string;
  at: number;
}

export interface SessionState extends GateQueueState {
  window: ContextSnapshot[];
  lastUser?: { id: string; message: string; timestamp: number; metadata?: Record<string, unknown> };
  lastReply?: AgentReply;
  /** Agent message ids the plugin has judged (it skips a snapshot whose id it has seen). */
  judgedIds: string[];
  lastAt?: number;
}

/** What the plugin had in memory, carried across runs and daily files. */
export interface LogState {
  model: string | null;
  windowSize: number;
  gateEnabled: boolean;
  sessions: Record<string, SessionState>;
  lastGuardianFile?: { decision: string; file: string; at: number };
}

export const DEFAULT_WINDOW = 10;
const AUDIT_JOIN_WINDOW_MS = 5000;
// The hook firing twice for one reply yields two snapshots milliseconds apart.
const DUPLICATE_SNAPSHOT_MS = 60_000;
const MAX_JUDGED_IDS = 200;
export const SOURCE = 'import:reflection-logs';

const WRITE_EVENTS: Record<string, (typeof AUDIT_STATUSES)[number]> = {
  'write_guardian applied update': 'written',
  'write_guardian refused update': 'refused',
  'write_guardian failed': 'failed',
  'write_guardian skipped update': 'skipped',
};

/** Lifecycle lines that carry nothing to import (registration of hooks, commands, gateway methods, tools). */
const LIFECYCLE_NOISE =
  /^(File logger initialized|SessionBufferManager initialized|Workspace resolved|Workspace unavailable|memory_gate initialized|memory_gate disabled|write_guardian initialized|write_guardian disabled|ConsolidationScheduler|Registered|Message hooks registered|Plugin registered successfully|registerCommand unavailable|register\w* unavailable|Callback|Config-only mode|Hook handler execution failed|Reflection memory management)/i;

export function emptyLogState(): LogState {
  return { model: null, windowSize: DEFAULT_WINDOW, gateEnabled: true, sessions: {} };
}

/** channel:<channelId>:<target> → target (the plugin builds canonical keys this way). */
function targetOf(sessionKey: string, channelId: string): string | null {
  const prefix = `channel:${channelId}:`;
  return sessionKey.startsWith(prefix) ? sessionKey.slice(prefix.length) : null;
}

interface LineEvent {
  at: number;
  component: string;
  event: string;
  details?: Obj;
  key?: string;
  where: string;
  line: SourceLine;
  /** A hash of the line: the same line in another file is the same event. */
  hash: string;
}

export class LogReplay {
  private readonly store: ImportStore;
  private readonly logs: PluginLogStore;

  constructor(
    private readonly db: DB,
    private readonly report: ReportBuilder,
    readonly state: LogState,
  ) {
    this.store = new ImportStore(db, report);
    this.logs = new PluginLogStore(db);
  }

  /** A session the plugin has a buffer for, or undefined; state saved by an older version gets the queue fields. */
  private existing(key: string): SessionState | undefined {
    return this.state.sessions[key] ? this.session(key) : undefined;
  }

  private session(key: string): SessionState {
    const s = (this.state.sessions[key] ??= { window: [], queue: [], awaiting: [], judgedIds: [] });
    // State saved by an older version lacks the queue fields.
    s.queue ??= [];
    s.awaiting ??= [];
    s.judgedIds ??= [];
    return s;
  }

  /** Applies one parsed log line. Throws SkipLine (via skipLine) with a reason when it cannot. */
  handle(v: Obj, line: SourceLine, base: string): void {
    const e: LineEvent = {
      at: isoTime(v, 'timestamp'),
      component: str(v, 'component'),
      event: str(v, 'event'),
      details: optObj(v, 'details'),
      key: optStr(v, 'sessionKey'),
      where: `${base}:${line.lineNumber}`,
      line,
      hash: hashOf('plugin-log', line.text ?? '').slice(0, 32),
    };
    const apply = this.handlerFor(e);
    if (!apply) {
      this.report.ignore(this.ignoredReason(e));
      return;
    }
    if (!this.logs.markEvent(e.hash)) {
      this.report.ignore('lines already imported (the same line in a copied, renamed or re-read log)');
      return;
    }
    apply(e);
  }

  private handlerFor(e: LineEvent): ((e: LineEvent) => void) | undefined {
    const { component: c, event: ev } = e;
    if (c === 'PluginLifecycle' && ev === 'Plugin starting') return (x) => this.onPluginStart(x);
    if (c === 'PluginLifecycle' && ev === 'Configuration loaded') return (x) => this.onConfig(x);
    if (c === 'PluginLifecycle' && ev === 'memory_gate initialized') return () => (this.state.gateEnabled = true);
    if (c === 'PluginLifecycle' && ev === 'memory_gate disabled') return () => (this.state.gateEnabled = false);
    if (c === 'MessageHandler' && ev === 'Canonicalized session key to channel scope') return (x) => this.onCanonicalized(x);
    if (c === 'SessionBufferManager' && ev === 'Creating new session buffer') return (x) => this.onNewBuffer(x);
    if (c === 'SessionBufferManager' && ev === 'Session cleared') return (x) => this.onSessionCleared(x);
    if (c === 'MessageHandler' && ev === 'Buffer message snapshot') return (x) => this.onSnapshot(x);
    if (c === 'MessageHandler' && ev === 'memory_gate decision evaluated') return (x) => this.onDecision(x);
    if (c === 'MessageHandler' && ev === 'memory_gate trigger failed') return (x) => this.onTriggerFailed(x);
    if (c === 'MessageHandler' && ev === 'UPDATE_* skipped because write_guardian is unavailable')
      return (x) => this.onGuardianUnavailable(x);
    if (c === 'MessageHandler' && WRITE_EVENTS[ev]) return (x) => this.onWriteOutcome(x);
    if (c === 'WriteGuardian' && e.details && typeof e.details.filePath === 'string') return (x) => this.onGuardianFile(x);
    if (c === 'Consolidator' && ev === 'Consolidation cleanup completed') return (x) => this.onConsolidation(x);
    return undefined;
  }

  private ignoredReason(e: LineEvent): string {
    if (e.component === 'memory_gate' && e.event === 'memory_gate LLM request failed') {
      return 'memory_gate LLM failures (recorded from the NO_WRITE line that follows, which names the session)';
    }
    if (e.component === 'MessageHandler' && e.event === 'Skipped duplicate agent message event')
      return 'replies the plugin skipped as already judged';
    if (e.component === 'PluginLifecycle' && LIFECYCLE_NOISE.test(e.event)) return 'plugin lifecycle events';
    if (e.component === 'Heartbeat') return 'plugin heartbeats';
    if (e.component === 'ConsolidationScheduler' || e.component === 'Consolidator') return 'consolidation scheduler events';
    return 'other log events';
  }

  private onPluginStart(e: LineEvent): void {
    // Buffers and the gate queue live in memory: a restart empties them, and queued runs never run.
    for (const [key, s] of Object.entries(this.state.sessions)) {
      for (const slot of s.queue ?? []) {
        this.recordFailure(
          key,
          judgedTurn(slot),
          'lost_in_restart',
          'the plugin restarted before this queued memory_gate run finished',
          e.at,
          `lost:${e.hash}:${slot.turnId}`,
        );
      }
    }
    this.state.sessions = {};
  }

  private onConfig(e: LineEvent): void {
    const d = e.details ?? skipLine('details: missing');
    const llm = optObj(d, 'llm', 'details.');
    const model = llm ? optStr(llm, 'model', 'details.llm.') : undefined;
    const gate = optObj(d, 'memoryGate', 'details.');
    const ws = gate?.windowSize;
    if (ws !== undefined && (typeof ws !== 'number' || !Number.isInteger(ws) || ws < 1))
      skipLine('details.memoryGate.windowSize: expected a positive integer');
    if (model) this.state.model = model;
    if (gate && typeof gate.enabled === 'boolean') this.state.gateEnabled = gate.enabled;
    this.state.windowSize = (ws as number | undefined) ?? DEFAULT_WINDOW;
  }

  private onCanonicalized(e: LineEvent): void {
    const d = e.details ?? skipLine('details: missing');
    const original = str(d, 'originalSessionKey', 'details.');
    const canonical = str(d, 'canonicalSessionKey', 'details.');
    if (linkSessionKey(this.db, original, canonical, SOURCE, e.at)) this.report.count('session_aliases');
  }

  private onNewBuffer(e: LineEvent): void {
    const key = (e.details && optStr(e.details, 'sessionKey', 'details.')) ?? e.key ?? skipLine('sessionKey: missing');
    const s = this.session(key);
    // The plugin logs the snapshot that creates the buffer just before this line; keep it.
    const last = s.window[s.window.length - 1];
    s.window = last && e.at - last.timestamp <= 1000 ? [last] : [];
  }

  private onSessionCleared(e: LineEvent): void {
    const key = (e.details && optStr(e.details, 'sessionKey', 'details.')) ?? e.key ?? skipLine('sessionKey: missing');
    const s = this.session(key);
    // The buffer goes; runs already queued still finish (they hold the session's promise chain).
    s.window = [];
    s.lastUser = undefined;
    s.lastReply = undefined;
    s.judgedIds = [];
  }

  private onSnapshot(e: LineEvent): void {
    const d = e.details ?? skipLine('details: missing');
    const m = obj(d, 'bufferMessage', 'details.');
    const id = str(m, 'id', 'bufferMessage.');
    const role = oneOf(m, 'role', ['user', 'agent'] as const, 'bufferMessage.');
    const message = str(m, 'message', 'bufferMessage.');
    const ts = time(m, 'timestamp', 'bufferMessage.');
    const key = optStr(m, 'sessionKey', 'bufferMessage.') ?? e.key ?? skipLine('bufferMessage.sessionKey: missing');
    const channelId = optStr(m, 'channelId', 'bufferMessage.') ?? 'unknown';
    const meta = optObj(m, 'metadata', 'bufferMessage.');
    const accountId = meta && typeof meta.accountId === 'string' ? meta.accountId : null;
    this.store.upsertSession({
      id: key,
      channelId,
      conversationTarget: targetOf(key, channelId),
      accountId,
      createdAt: ts,
      lastActivityAt: ts,
    });
    const s = this.session(key);
    s.lastAt = ts;
    const messageId = meta && typeof meta.messageId === 'string' && meta.messageId.trim() ? meta.messageId.trim() : undefined;
    if (role === 'agent' && messageId && s.judgedIds.includes(messageId)) {
      // The plugin logs the snapshot, then skips it without buffering or judging it.
      this.report.ignore('replies the plugin skipped as already judged');
      return;
    }
    s.window.push({ role, message, timestamp: ts });
    if (s.window.length > this.state.windowSize) s.window.splice(0, s.window.length - this.state.windowSize);
    if (role === 'user') {
      s.lastUser = { id, message, timestamp: ts, metadata: meta };
      return;
    }
    if (messageId) {
      s.judgedIds.push(messageId);
      if (s.judgedIds.length > MAX_JUDGED_IDS) s.judgedIds.shift();
    }
    const turnId = this.turnForReply(s, { id, key, message, ts, messageId, meta, where: e.where });
    s.lastReply = { turnId, text: message, messageId, userSnapshotId: s.lastUser?.id, at: ts };
    if (this.state.gateEnabled) {
      const dropped = enqueueRun(s, { turnId, at: ts });
      if (dropped) this.report.note(`More than 64 memory_gate runs were queued in ${key} without a decision; the oldest were given up.`);
    }
  }

  /** The turn an agent snapshot belongs to: a new one, or the one it repeats. */
  private turnForReply(
    s: SessionState,
    r: { id: string; key: string; message: string; ts: number; messageId?: string; meta?: Obj; where: string },
  ): string {
    const user = s.lastUser;
    const prev = s.lastReply;
    if (
      prev &&
      prev.text === r.message &&
      prev.messageId === r.messageId &&
      prev.userSnapshotId === user?.id &&
      r.ts - prev.at <= DUPLICATE_SNAPSHOT_MS
    ) {
      // The same reply snapshotted twice (the hook fired twice; the plugin drops message.id there).
      this.report.ignore('repeated snapshots of the same reply (the hook fired twice)');
      return prev.turnId;
    }
    if (!this.store.turnExists(r.id)) {
      const transcript = this.logs.transcriptTurn(r.key, r.ts - 120_000, r.ts + 60_000, user?.message ?? '', r.message, r.ts);
      if (transcript) {
        this.report.ignore('turns already imported from OpenClaw transcripts');
        return transcript;
      }
    }
    this.store.insertTurn({
      id: r.id,
      sessionId: r.key,
      userMessageId: user && typeof user.metadata?.messageId === 'string' ? user.metadata.messageId : null,
      userContent: user?.message ?? '',
      userFrom: user && typeof user.metadata?.from === 'string' ? user.metadata.from : null,
      userMetadata: user ? { snapshotId: user.id, timestamp: user.timestamp, ...(user.metadata ?? {}) } : { noUserMessage: true },
      agentMessageId: r.id,
      agentContent: r.message,
      agentMetadata: { snapshotId: r.id, importedFrom: r.where, ...(r.meta && Object.keys(r.meta).length ? { metadata: r.meta } : {}) },
      createdAt: r.ts,
      context: s.window.map((w) => ({ ...w })),
    });
    return r.id;
  }

  private onDecision(e: LineEvent): void {
    const key = e.key ?? skipLine('sessionKey: missing');
    const d = e.details ?? skipLine('details: missing');
    const decision = oneOf(d, 'decision', GATE_DECISIONS, 'details.');
    const reason = str(d, 'reason', 'details.');
    const s = this.existing(key);
    const slot = (s && currentRun(s)) ?? skipLine(`a decision for ${key} with no agent reply waiting for one since the plugin started`);
    const turnId = judgedTurn(slot);
    if (isFailedGateReason(decision, reason)) {
      this.recordFailure(key, turnId, 'llm_request_failed', reason, e.at, e.hash);
      this.endRun(s!);
      return;
    }
    const id = sourceUlid(e.at, 'decision', key, e.hash);
    if (!this.state.model)
      this.report.note(
        "The configured model was not found in the logs (no 'Configuration loaded' line): decisions are marked with model 'unknown'.",
      );
    this.store.insertDecision({
      id,
      turnId,
      sessionId: key,
      decision,
      reason,
      model: this.state.model ?? 'unknown',
      source: SOURCE,
      createdAt: e.at,
    });
    // An UPDATE_* run ends with its write outcome; a NO_WRITE run ends here.
    if (decision !== 'NO_WRITE') awaitOutcome(s!, { id, decision, turnId, at: e.at });
    else this.endRun(s!);
  }

  private endRun(s: SessionState): void {
    endRun(s, s.lastReply?.turnId);
  }

  private onTriggerFailed(e: LineEvent): void {
    const key = e.key ?? skipLine('sessionKey: missing');
    const reason = (e.details && optStr(e.details, 'reason', 'details.')) ?? null;
    const s = this.existing(key) ?? skipLine(`a failed memory_gate run in ${key} with no reply queued since the plugin started`);
    // Thrown after its decision was logged (by write_guardian): the failure is that write's outcome.
    const awaiting = takeAnyAwaiting(s);
    if (awaiting) {
      this.insertOutcome(e, key, awaiting, 'failed', reason, undefined);
      this.endRun(s);
      return;
    }
    const slot = currentRun(s) ?? skipLine(`a failed memory_gate run in ${key} with no reply queued since the plugin started`);
    this.recordFailure(key, judgedTurn(slot), 'trigger_failed', reason, e.at, e.hash);
    this.endRun(s);
  }

  private onGuardianUnavailable(e: LineEvent): void {
    const key = e.key ?? skipLine('sessionKey: missing');
    const decision = oneOf(e.details ?? skipLine('details: missing'), 'decision', GATE_DECISIONS, 'details.');
    const s = this.existing(key);
    const gate =
      (s && takeAwaiting(s, decision)) ?? skipLine(`a dropped ${decision} with no matching memory_gate decision before it in ${key}`);
    this.logs.setOutcome(gate.id, 'guardian_unavailable');
    this.report.count('decision_outcomes');
    this.endRun(s!);
  }

  private onGuardianFile(e: LineEvent): void {
    const d = e.details!;
    this.state.lastGuardianFile = {
      decision: String(d.decision ?? ''),
      file: path.basename(String(d.filePath).replace(/\\/g, '/')),
      at: e.at,
    };
  }

  private onWriteOutcome(e: LineEvent): void {
    const status = WRITE_EVENTS[e.event] ?? skipLine(`${e.event}: not a write outcome`); // routed here only for WRITE_EVENTS
    const key = e.key ?? skipLine('sessionKey: missing');
    const d = e.details ?? skipLine('details: missing');
    const decision = oneOf(d, 'decision', GATE_DECISIONS, 'details.');
    const reason = optStr(d, 'reason', 'details.');
    const s = this.existing(key);
    const gate =
      (s && takeAwaiting(s, decision)) ??
      skipLine(`a write outcome for ${decision} with no matching memory_gate decision before it in ${key}`);
    this.insertOutcome(e, key, gate, status, reason ?? null, decision);
    this.endRun(s!);
  }

  private insertOutcome(
    e: LineEvent,
    key: string,
    gate: { id: string; turnId: string; decision: GateDecision },
    status: (typeof AUDIT_STATUSES)[number],
    reason: string | null,
    decision: GateDecision | undefined,
  ): void {
    const dec = decision ?? gate.decision;
    const id = sourceUlid(e.at, 'audit', key, e.hash);
    const auditLine = decision ? findUnclaimedGuardianLogLine(this.db, dec, status, e.at - AUDIT_JOIN_WINDOW_MS, e.at) : undefined;
    const g = this.state.lastGuardianFile;
    const guardianFile = g && g.decision === dec && e.at - g.at <= AUDIT_JOIN_WINDOW_MS ? g.file : undefined;
    const targetFile =
      [auditLine?.targetFile, guardianFile, fileForDecision(dec)].find(
        (f): f is MemoryFileName => !!f && (MEMORY_FILES as readonly string[]).includes(f),
      ) ?? skipLine(`a write outcome for ${dec} without a target file`);
    const added = this.store.insertAudit({
      id,
      decisionId: gate.id,
      turnId: gate.turnId,
      sessionId: key,
      targetFile,
      candidateFact: auditLine?.candidateFact ?? null,
      status,
      reason: reason ?? auditLine?.reason ?? null,
      // The logs do not say which model write_guardian used: leave it empty rather than guess.
      model: null,
      metadata: { importedFrom: e.where, auditLog: auditLine ? `${path.basename(auditLine.file)}:${auditLine.line}` : null },
      createdAt: e.at,
    });
    if (added && auditLine) claimGuardianLogLine(this.db, auditLine.id, id);
  }

  private onConsolidation(e: LineEvent): void {
    const files = (e.details?.updatedFiles ?? skipLine('details.updatedFiles: missing')) as unknown;
    if (!Array.isArray(files)) skipLine('details.updatedFiles: expected an array');
    const named = (files as unknown[]).filter(
      (f): f is MemoryFileName => typeof f === 'string' && (MEMORY_FILES as readonly string[]).includes(f),
    );
    if (this.logs.insertConsolidationRun(e.hash, e.at, named, e.where)) this.report.count('consolidation_runs');
  }

  private recordFailure(
    key: string,
    turnId: string,
    kind: 'llm_request_failed' | 'trigger_failed' | 'lost_in_restart',
    reason: string | null,
    at: number,
    idSource: string,
  ): void {
    const id = sourceUlid(at, 'gate-failure', key, idSource);
    const added = this.logs.insertFailure({ id, turnId, sessionId: key, kind, reason, source: SOURCE, createdAt: at });
    this.report.inserted('memory_gate_failures', added ? 1 : 0);
  }
}
