// Collection: seed 000's DatasetCollectionStrategy over recorded decisions, audits, rollbacks and corrections.
// Iterates decisions in keyset pages and writes each page in one transaction, so 100,000 decisions
// take flat memory; every sample has a unique source_key, so collecting twice adds nothing.
import { createHash } from 'node:crypto';
import { encodeTime } from 'ulid';
import type { AnnotationStatus, GateDecision, MemoryFileName, SampleType } from '../../shared/domain';
import { decisionForFile, fileForDecision } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import { writeTx } from '../db/connection';
import { nowOf, type ServiceContext } from '../context';
import type { PiiSpan } from '../pii/types';
import { resolveDatasetConfig, type DatasetCollectionConfig, type DatasetCollectionConfigInput } from './config';
import { Deduper, clustersAreStale, reclusterSamples } from './dedupe';
import { detectFeedbackSignals, isObjection, isRememberRequest, type FeedbackSignal } from './feedback';
import { loadPiiDetector, redactContent, scanContent } from './privacy';
import { scoreQuality, type LabelEvidence, type QualityFactors } from './quality';
import { jaccard } from './similarity';
import { listFutureCorrections, matchFutureCorrections } from '../guardian/corrections';
import type { AnnotatedTurnSample, Message, SampleContent, SampleFeedback, SampleLabels, TurnLabel } from './types';
import { withBulkCheckpoints, withoutMmap } from '../db/bulk';
import { mainWriterWaiting, pauseForUncountedWriters } from '../db/writeGate';

export interface CollectOptions {
  /** ms since epoch (inclusive) */
  since?: number;
  /** ms since epoch (exclusive) */
  until?: number;
  sessionId?: string;
  type?: 'all' | 'positive' | 'negative';
  autoApprove?: boolean;
  dryRun?: boolean;
  config?: DatasetCollectionConfigInput | DatasetCollectionConfig;
  /** Decisions per transaction. */
  batchSize?: number;
}

export interface CollectResult {
  decisionsScanned: number;
  added: Record<SampleType, number>;
  addedTotal: number;
  alreadyCollected: number;
  byStatus: Partial<Record<AnnotationStatus, number>>;
  signalsStored: number;
  duplicates: number;
  privacyChecked: boolean;
  dryRun: boolean;
  cancelled: boolean;
}

interface DecisionRow {
  seq: number;
  id: string;
  turn_id: string;
  session_id: string;
  decision: GateDecision;
  reason: string;
  candidate_fact: string | null;
  raw_response: string | null;
  created_at: number;
  turn_number: number;
  user_message_content: string;
  agent_message_content: string;
  turn_created_at: number;
}

interface AuditRow {
  id: string;
  target_file: MemoryFileName;
  candidate_fact: string | null;
  before_snapshot_id: string | null;
  after_snapshot_id: string | null;
  status: string;
  reason: string | null;
  created_at: number;
  rolled_back_at: number | null;
  rollback_reason: string | null;
}

interface CorrectionRow {
  id: string;
  original_status: string;
  original_candidate_fact: string | null;
  original_target_file: string | null;
  corrected_status: 'written' | 'refused';
  corrected_candidate_fact: string | null;
  corrected_target_file: MemoryFileName | null;
  correction_reason: string;
  corrected_at: number;
}

interface GateCorrectionRow {
  id: string;
  corrected_decision: GateDecision;
  corrected_fact: string;
  corrected_target_file: MemoryFileName;
  reason: string;
  corrected_at: number;
}

interface Draft {
  type: SampleType;
  sourceKey: string;
  strategy: string;
  content: SampleContent;
  evidence: LabelEvidence;
  fact: string | null;
  auditId?: string;
  correctionId?: string;
  /** The decision the sample says is right, for pattern agreement. */
  labeledWrite: boolean;
  targetFile?: string | null;
  labels: SampleLabels;
}

const DAY = 86_400_000;
const CONTEXT_LIMIT = 10;
const SNAPSHOT_LIMIT = 20_000;
/** Longest a collection transaction holds the write lock when nobody waits for it (ms). */
const TX_BUDGET_MS = 500;
/**
 * Shortest one, even when main waits: main's writers come often, and a job that committed after every
 * decision for them would crawl (each commit of a large workspace copies many index pages).
 */
const TX_MIN_MS = 250;
const txDone = (elapsedMs: number) => elapsedMs >= TX_BUDGET_MS || (elapsedMs >= TX_MIN_MS && mainWriterWaiting());
/** Page cache during collection (KiB). */
const COLLECT_CACHE_KIB = 32_768;

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * A ULID-shaped id: the decision's time, then 80 bits of SHA-256 of the source key. Deterministic
 * (one source, one id) and much cheaper than 100,000 calls to a crypto random source.
 */
function sampleId(time: number, sourceKey: string): string {
  const h = createHash('sha256').update(sourceKey).digest();
  let out = encodeTime(time, 10);
  let bits = 0;
  let acc = 0;
  for (let i = 0; out.length < 26; ) {
    if (bits < 5) {
      acc = (acc << 8) | h[i++];
      bits += 8;
    }
    out += CROCKFORD[(acc >> (bits - 5)) & 31];
    bits -= 5;
    acc &= (1 << bits) - 1;
  }
  return out;
}

function emptyCounts(): Record<SampleType, number> {
  return { memory_gate_positive: 0, memory_gate_negative: 0, write_guardian_decision: 0, annotated_turn: 0 };
}

function statements(ctx: ServiceContext) {
  const db = ctx.db;
  return {
    count: db.prepare(`SELECT count(*) FROM memory_gate_decisions d
      WHERE d.created_at >= @since AND d.created_at < @until AND (@session IS NULL OR d.session_id = @session)
        AND d.session_id NOT IN (SELECT session_id FROM excluded_sessions)`).pluck(),
    // NOT INDEXED: walk decisions in seq order; with the created_at index SQLite would re-sort the
    // whole window for every page, which is quadratic over 100,000 decisions.
    page: db.prepare(`SELECT d.seq, d.id, d.turn_id, d.session_id, d.decision, d.reason, d.candidate_fact, d.raw_response,
        d.created_at, t.turn_number, t.user_message_content, t.agent_message_content, t.created_at AS turn_created_at
      FROM memory_gate_decisions d NOT INDEXED JOIN conversation_turns t ON t.id = d.turn_id
      WHERE d.seq > @after AND d.created_at >= @since AND d.created_at < @until
        AND (@session IS NULL OR d.session_id = @session)
        AND d.session_id NOT IN (SELECT session_id FROM excluded_sessions)
        AND NOT (d.decision = 'NO_WRITE' AND d.reason LIKE 'LLM request failed:%') -- a failed gate run (plugin-logs), never a sample
      ORDER BY d.seq LIMIT @limit`),
    context: db.prepare('SELECT role, message FROM conversation_contexts WHERE turn_id = ? ORDER BY sequence_number DESC LIMIT ?'),
    audits: db.prepare(`SELECT a.id, a.target_file, a.candidate_fact, a.before_snapshot_id, a.after_snapshot_id, a.status, a.reason, a.created_at,
        r.rolled_back_at, r.reason AS rollback_reason
      FROM write_guardian_audit a LEFT JOIN rollbacks r ON r.audit_id = a.id
      WHERE a.decision_id = ? AND a.source = 'plugin' ORDER BY a.created_at, a.id`),
    correction: db.prepare(`SELECT id, original_status, original_candidate_fact, original_target_file, corrected_status,
        corrected_candidate_fact, corrected_target_file, correction_reason, corrected_at
      FROM behavior_corrections WHERE audit_id = ? ORDER BY corrected_at DESC, id DESC LIMIT 1`),
    snapshot: db.prepare('SELECT substr(content, 1, ?) FROM file_snapshots WHERE id = ?').pluck(),
    // the file as it was when write_guardian judged: a refusal records no before snapshot of its own
    snapshotAt: db.prepare(`SELECT substr(content, 1, ?) FROM file_snapshots WHERE file_name = ? AND created_at <= ?
      ORDER BY created_at DESC LIMIT 1`).pluck(),
    gateCorrection: db.prepare(`SELECT id, corrected_decision, corrected_fact, corrected_target_file, reason, corrected_at
      FROM dataset_gate_corrections WHERE decision_id = ? ORDER BY corrected_at DESC, id DESC LIMIT 1`),
    following: db.prepare(`SELECT id, user_message_content, created_at FROM conversation_turns
      WHERE session_id = ? AND (created_at > ? OR (created_at = ? AND turn_number > ?))
      ORDER BY created_at, turn_number LIMIT ?`),
    laterWrite: db.prepare("SELECT decision, candidate_fact FROM memory_gate_decisions WHERE turn_id = ? AND decision <> 'NO_WRITE' LIMIT 1"),
    exists: db.prepare('SELECT 1 FROM dataset_samples WHERE source_key = ?').pluck(),
    insertSignal: db.prepare(`INSERT OR IGNORE INTO dataset_feedback_signals
      (id, turn_id, session_id, type, source, language, rule, evidence, confidence, created_at)
      VALUES (@id, @turnId, @sessionId, @type, @source, @language, @rule, @evidence, @confidence, @createdAt)`),
    insertSample: db.prepare(`INSERT INTO dataset_samples (id, sample_type, turn_id, decision_id, audit_id, correction_id,
        session_id, content, quality_score, quality_factors, annotation_status, annotated_by, annotated_at, privacy_checked,
        contains_pii, pii_redacted_content, pii_spans, feedback_signals, fingerprint, cluster_id, source_key,
        collection_strategy, created_at, labels)
      VALUES (@id, @type, @turnId, @decisionId, @auditId, @correctionId, @sessionId, @content, @score, @factors, @status,
        @annotatedBy, @annotatedAt, @privacyChecked, @containsPii, @redacted, @spans, @signals, @fingerprint, @clusterId,
        @sourceKey, @strategy, @createdAt, @labels)
      ON CONFLICT(source_key) DO NOTHING`),
  };
}

function buildConversation(contextRows: Message[], user: string, agent: string): Message[] {
  const conv = contextRows.slice().reverse();
  if (!conv.some((m) => m.role === 'user' && m.message === user)) conv.push({ role: 'user', message: user });
  if (agent && !conv.some((m) => m.role === 'agent' && m.message === agent)) conv.push({ role: 'agent', message: agent });
  return conv.slice(-CONTEXT_LIMIT);
}

/**
 * Collects dataset samples from recorded decisions. Progress goes to ctx.progress; ctx.signal cancels
 * between pages (what was committed stays; the next run continues where it left off).
 */
export async function collectSamples(ctx: ServiceContext, opts: CollectOptions = {}): Promise<CollectResult> {
  const cfg = resolveDatasetConfig(opts.config);
  const type = opts.type ?? 'all';
  if (!['all', 'positive', 'negative'].includes(type)) {
    throw new AppError('Invalid', `collect: type must be all, positive or negative (got ${String(type)})`);
  }
  const since = opts.since ?? 0;
  const until = opts.until ?? Number.MAX_SAFE_INTEGER;
  if (since > until) throw new AppError('Invalid', 'collect: since is after until');
  const wants = (t: SampleType) =>
    type === 'all' || (type === 'positive' ? t === 'memory_gate_positive' : t === 'memory_gate_negative');
  const now = nowOf(ctx);
  const st = statements(ctx);
  const detect = cfg.privacyFiltering.enabled ? await loadPiiDetector() : null;
  const detectOpts = { names: cfg.privacyFiltering.detectNames, redactPatterns: cfg.privacyFiltering.redactPatterns };
  if (!opts.dryRun && clustersAreStale(ctx.db)) reclusterSamples(ctx.db, cfg.dedupe);
  const dedupe = new Deduper(ctx.db, cfg.dedupe, { dryRun: opts.dryRun });
  // Context windows overlap from turn to turn, so the same message is scanned for PII many times: cache it.
  const piiCache = new Map<string, PiiSpan[]>();
  const futureCorrections = listFutureCorrections(ctx);
  const result: CollectResult = {
    decisionsScanned: 0,
    added: emptyCounts(),
    addedTotal: 0,
    alreadyCollected: 0,
    byStatus: {},
    signalsStored: 0,
    duplicates: 0,
    privacyChecked: Boolean(detect),
    dryRun: Boolean(opts.dryRun),
    cancelled: false,
  };
  const params = { since, until, session: opts.sessionId ?? null };
  const total = st.count.get(params) as number;
  const batchSize = opts.batchSize ?? 2000;
  let after = 0;
  ctx.progress?.(0, total, 'collect');
  // A transaction writes thousands of rows spread over a dozen indexes (random fingerprints and band
  // keys): with the connection's small default page cache SQLite spills and re-reads pages all the
  // time. A larger cache for this job only, restored afterwards.
  const cacheSize = ctx.db.pragma('cache_size', { simple: true }) as number;
  const cacheKiB = cacheSize < 0 ? -cacheSize : (cacheSize * (ctx.db.pragma('page_size', { simple: true }) as number)) / 1024;
  if (cacheKiB < COLLECT_CACHE_KIB) ctx.db.pragma(`cache_size = -${COLLECT_CACHE_KIB}`);
  try {
    await withoutMmap(ctx.db, () => withBulkCheckpoints(ctx.db, collectPages));
  } finally {
    if (cacheKiB < COLLECT_CACHE_KIB) ctx.db.pragma(`cache_size = ${cacheSize}`);
  }
  return result;

  async function collectPages(): Promise<void> {
    for (;;) {
      if (ctx.signal?.aborted) {
        result.cancelled = true;
        break;
      }
      const rows = st.page.all({ ...params, after, limit: batchSize }) as DecisionRow[];
      if (!rows.length) break;
      after = rows[rows.length - 1].seq;
      // A transaction holds the write lock. Large ones copy fewer pages to the WAL, so one runs for a
      // page, but at most TX_BUDGET_MS, and ends at once when main has a writer waiting (live capture
      // while this runs in a job worker): that writer waits for one decision, not for the page.
      for (let i = 0; i < rows.length && !ctx.signal?.aborted; ) {
        const started = performance.now();
        const work = () => {
          do collectDecision(rows[i++]);
          while (i < rows.length && !txDone(performance.now() - started));
        };
        const from = i;
        if (opts.dryRun) work();
        else writeTx(ctx.db, work);
        result.decisionsScanned += i - from;
        ctx.progress?.(result.decisionsScanned, total, 'collect');
        // let the event loop run between transactions: progress renders, cancellation arrives
        if (!opts.dryRun && performance.now() - started >= TX_BUDGET_MS) await pauseForUncountedWriters();
        else await new Promise((r) => setImmediate(r));
      }
    }
  }

  function followingSignals(d: DecisionRow): { signals: SampleFeedback[]; laterTurns: { id: string; text: string }[] } {
    const turns = st.following.all(d.session_id, d.turn_created_at, d.turn_created_at, d.turn_number, cfg.feedbackWindowTurns) as {
      id: string;
      user_message_content: string;
      created_at: number;
    }[];
    const signals: SampleFeedback[] = [];
    for (const t of turns) {
      const found: FeedbackSignal[] = detectFeedbackSignals(t.user_message_content);
      for (const s of found) {
        signals.push({ type: s.type, confidence: s.confidence, evidence: s.evidence, turnId: t.id, rule: s.rule });
        if (!opts.dryRun) {
          const info = st.insertSignal.run({ id: `${t.id}:${s.rule}`, turnId: t.id, sessionId: d.session_id, createdAt: t.created_at, ...s });
          result.signalsStored += info.changes;
        }
      }
    }
    return { signals, laterTurns: turns.map((t) => ({ id: t.id, text: t.user_message_content })) };
  }

  /**
   * A NO_WRITE decision teaches "do not write" (a positive whose decision is NO_WRITE), unless the
   * curator marked it a missed write (a positive with the curator's fact and file, and the negative
   * pair for preference data) or the user later asked to remember the same thing (a negative).
   */
  function noWriteDrafts(d: DecisionRow, conversation: Message[], laterTurns: { id: string; text: string }[]): Draft[] {
    const missed = st.gateCorrection.get(d.id) as GateCorrectionRow | undefined;
    if (missed) {
      const labels = (): SampleLabels => ({ gateCorrectionId: missed.id });
      const shared = { strategy: 'missed_write', evidence: 'curator_correction' as const, fact: missed.corrected_fact, labeledWrite: true, targetFile: missed.corrected_target_file };
      return [
        {
          ...shared, type: 'memory_gate_positive', sourceKey: `pos:missed:${missed.id}`, labels: labels(),
          content: {
            type: 'memory_gate_positive', conversation, correctDecision: missed.corrected_decision, correctFact: missed.corrected_fact,
            reason: missed.reason, evidence: { wasWritten: false, userFeedback: 'corrected', missedWrite: true },
          },
        },
        {
          ...shared, type: 'memory_gate_negative', sourceKey: `neg:missed:${missed.id}`, labels: labels(),
          content: {
            type: 'memory_gate_negative', conversation, incorrectDecision: 'NO_WRITE', incorrectFact: '',
            correctDecision: missed.corrected_decision, correctFact: missed.corrected_fact, rejectionReason: missed.reason, originalReason: d.reason,
          },
        },
      ];
    }
    // userLaterRequestedSimilar: the gate said NO_WRITE, then the user asked to remember something like it
    const later = cfg.negativeCriteria.userLaterRequestedSimilar
      ? laterTurns.find((t) => isRememberRequest(t.text) && jaccard(t.text, d.user_message_content) >= cfg.dedupe.relatedThreshold)
      : undefined;
    if (later) {
      const laterWrite = st.laterWrite.get(later.id) as { decision: GateDecision; candidate_fact: string | null } | undefined;
      const laterDecision = laterWrite?.decision ?? 'UPDATE_MEMORY';
      const laterFact = laterWrite?.candidate_fact ?? null;
      return [{
        type: 'memory_gate_negative', sourceKey: `neg:later:${d.id}`, strategy: 'user_later_requested_similar',
        content: {
          type: 'memory_gate_negative', conversation, incorrectDecision: 'NO_WRITE', incorrectFact: '', correctDecision: laterDecision,
          ...(laterFact ? { correctFact: laterFact } : {}),
          rejectionReason: `The user later asked to remember this: "${later.text.slice(0, 200)}"`, originalReason: d.reason,
        },
        evidence: 'user_request', fact: laterFact, labeledWrite: true, targetFile: fileForDecision(laterDecision),
        labels: { userLaterRequestedSimilar: true },
      }];
    }
    return [{
      type: 'memory_gate_positive', sourceKey: `pos:nowrite:${d.id}`, strategy: 'gate_no_write',
      content: { type: 'memory_gate_positive', conversation, correctDecision: 'NO_WRITE', correctFact: '', reason: d.reason, evidence: { wasWritten: false } },
      evidence: 'gate_no_write', fact: null, labeledWrite: false, labels: {},
    }];
  }

  /**
   * The target file as write_guardian saw it: its before snapshot, else (a refusal or skip records
   * none) the newest snapshot of the file at that time, so refused and written samples get the same input.
   */
  function fileBefore(audit: AuditRow): string {
    if (audit.before_snapshot_id) return (st.snapshot.get(SNAPSHOT_LIMIT, audit.before_snapshot_id) as string | undefined) ?? '';
    return (st.snapshotAt.get(SNAPSHOT_LIMIT, audit.target_file, audit.created_at) as string | undefined) ?? '';
  }

  function collectDecision(d: DecisionRow): void {
    const audits = d.decision === 'NO_WRITE' ? [] : (st.audits.all(d.id) as AuditRow[]);
    const { signals, laterTurns } = followingSignals(d);
    const signalTypes = signals.map((s) => s.type);
    const objection = signals.some(isObjection);
    const conversation = buildConversation(
      st.context.all(d.turn_id, CONTEXT_LIMIT) as Message[],
      d.user_message_content,
      d.agent_message_content,
    );
    const conversationText = conversation.map((m) => m.message).join('\n');
    const drafts: Draft[] = [];
    const gateFact = d.candidate_fact ?? '';

    if (d.decision === 'NO_WRITE') {
      drafts.push(...noWriteDrafts(d, conversation, laterTurns));
    }
    const audit = audits[0];
    if (d.decision !== 'NO_WRITE' && (audit || !cfg.positiveCriteria.wasWritten)) {
      const correction = audit ? (st.correction.get(audit.id) as CorrectionRow | undefined) : undefined;
      const rolledBack = Boolean(audit && (audit.rolled_back_at !== null || audit.status === 'rolled_back'));
      const rollbackAge = audit && audit.rolled_back_at !== null ? audit.rolled_back_at - audit.created_at : 0;
      const rolledBackInWindow = rolledBack && rollbackAge <= cfg.positiveCriteria.notRolledBackWithinDays * DAY;
      const written = Boolean(audit && (audit.status === 'written' || audit.status === 'rolled_back'));
      const refused = audit?.status === 'refused';
      const skipped = audit?.status === 'skipped';
      const gateFile = fileForDecision(d.decision);

      if (correction && cfg.negativeCriteria.hasBehaviorCorrection) {
        const correctedFile = correction.corrected_target_file ?? audit.target_file;
        const correctedDecision = decisionForFile(correctedFile);
        const correctedFact = correction.corrected_candidate_fact ?? audit.candidate_fact ?? gateFact;
        // A correction that refuses, or moves the fact to another file or wording, makes the gate's output a negative.
        const correctionNegative = (correctDecision: GateDecision, correctFact: string | null) =>
          drafts.push({
            type: 'memory_gate_negative',
            sourceKey: `neg:corr:${correction.id}`,
            strategy: 'manual_correction',
            content: {
              type: 'memory_gate_negative',
              conversation,
              incorrectDecision: d.decision,
              incorrectFact: gateFact,
              correctDecision,
              ...(correctFact === null ? {} : { correctFact }),
              rejectionReason: correction.correction_reason,
              originalReason: d.reason,
            },
            evidence: 'curator_correction',
            fact: correctFact,
            correctionId: correction.id,
            auditId: audit.id,
            labeledWrite: correctFact !== null,
            ...(correctFact === null ? {} : { targetFile: correctedFile }),
            labels: {},
          });
        if (correction.corrected_status === 'refused') {
          correctionNegative('NO_WRITE', null);
        } else {
          const changed = correctedDecision !== d.decision || correctedFact.trim() !== gateFact.trim();
          if (changed) correctionNegative(correctedDecision, correctedFact);
          drafts.push({
            type: 'memory_gate_positive',
            sourceKey: `pos:corr:${correction.id}`,
            strategy: 'manual_correction',
            content: {
              type: 'memory_gate_positive',
              conversation,
              correctDecision: correctedDecision,
              correctFact: correctedFact,
              reason: correction.correction_reason,
              evidence: { wasWritten: true, userFeedback: 'corrected' },
            },
            evidence: 'curator_correction',
            fact: correctedFact,
            correctionId: correction.id,
            auditId: audit.id,
            labeledWrite: true,
            targetFile: correctedFile,
            labels: {},
          });
        }
      } else if (rolledBackInWindow) {
        drafts.push({
          type: 'memory_gate_negative',
          sourceKey: `neg:rollback:${audit.id}`,
          strategy: 'rollback',
          content: {
            type: 'memory_gate_negative',
            conversation,
            incorrectDecision: d.decision,
            incorrectFact: gateFact,
            correctDecision: 'NO_WRITE',
            rejectionReason: audit.rollback_reason ?? 'The write was rolled back.',
            originalReason: d.reason,
          },
          evidence: 'rollback',
          fact: null,
          auditId: audit.id,
          labeledWrite: false,
          labels: {},
        });
      } else if (refused) {
        if (cfg.negativeCriteria.gateProposedWrite && cfg.negativeCriteria.guardianRefused) {
          drafts.push({
            type: 'memory_gate_negative',
            sourceKey: `neg:${d.id}`,
            strategy: 'guardian_refused',
            content: {
              type: 'memory_gate_negative',
              conversation,
              incorrectDecision: d.decision,
              incorrectFact: gateFact,
              correctDecision: 'NO_WRITE',
              rejectionReason: audit.reason ?? 'write_guardian refused the update.',
              originalReason: d.reason,
            },
            evidence: 'guardian_refused',
            fact: null,
            auditId: audit.id,
            labeledWrite: false,
            labels: {},
          });
        }
      } else if (written || !cfg.positiveCriteria.wasWritten) {
        const labels: SampleLabels = {
          criteria: {
            wasWritten: written,
            noUserObjection: !objection,
            notRolledBackWithinDays: !rolledBackInWindow,
          },
        };
        if (audit && now - audit.created_at < cfg.positiveCriteria.notRolledBackWithinDays * DAY) labels.withinRollbackWindow = true;
        drafts.push({
          type: 'memory_gate_positive',
          sourceKey: `pos:${d.id}`,
          strategy: 'auto_positive',
          content: {
            type: 'memory_gate_positive',
            conversation,
            correctDecision: d.decision,
            correctFact: audit?.candidate_fact ?? gateFact,
            reason: d.reason,
            evidence: { wasWritten: written, ...(signalTypes.includes('success') ? { userFeedback: 'confirmed' as const } : {}) },
          },
          evidence: 'guardian_agreed',
          fact: audit?.candidate_fact ?? gateFact,
          auditId: audit?.id,
          labeledWrite: true,
          targetFile: gateFile,
          labels,
        });
      }

      if (audit && (written || refused || skipped)) {
        const current = fileBefore(audit);
        const after = written && audit.after_snapshot_id ? ((st.snapshot.get(SNAPSHOT_LIMIT, audit.after_snapshot_id) as string | undefined) ?? undefined) : undefined;
        const evidence: LabelEvidence = correction ? 'curator_correction' : rolledBackInWindow ? 'rollback' : refused ? 'guardian_refused' : 'guardian_agreed';
        const guardianDecision = refused ? 'refused' : skipped ? 'skipped' : 'written';
        const wgFact = audit.candidate_fact ?? gateFact;
        // What the write_guardian sample and the annotated turn of this write share (fresh labels for each).
        const writeDraftFields = () => ({
          evidence,
          fact: wgFact,
          auditId: audit.id,
          correctionId: correction?.id,
          labeledWrite: correction ? correction.corrected_status === 'written' : !refused && !rolledBackInWindow,
          targetFile: audit.target_file,
          labels: {},
        });
        drafts.push({
          type: 'write_guardian_decision',
          sourceKey: `wg:${audit.id}`,
          strategy: correction ? 'manual_correction' : 'auto_guardian',
          content: {
            type: 'write_guardian_decision',
            candidateFact: wgFact,
            targetFile: audit.target_file,
            currentFileContent: current,
            decision: guardianDecision,
            ...(audit.reason ? { reason: audit.reason } : {}),
            ...(after !== undefined ? { newFileContent: after } : {}),
            ...(correction
              ? {
                  userCorrection: {
                    originalDecision: guardianDecision,
                    correctedDecision: correction.corrected_status,
                    reason: correction.correction_reason,
                    ...(correction.corrected_candidate_fact ? { correctedFact: correction.corrected_candidate_fact } : {}),
                    ...(correction.corrected_target_file ? { correctedTargetFile: correction.corrected_target_file } : {}),
                  },
                }
              : {}),
          },
          ...writeDraftFields(),
        });

        const gateLabel: TurnLabel = correction ? 'corrected' : rolledBackInWindow || refused ? 'incorrect' : 'correct';
        const guardianLabel: TurnLabel = correction ? 'corrected' : rolledBackInWindow ? 'incorrect' : 'correct';
        const turnContent: AnnotatedTurnSample = {
          type: 'annotated_turn',
          conversationId: d.session_id,
          turnNumber: d.turn_number,
          context: conversation,
          memoryGate: {
            input: { currentUserMessage: d.user_message_content, currentAgentReply: d.agent_message_content },
            output: { decision: d.decision, reason: d.reason, ...(d.candidate_fact ? { candidateFact: d.candidate_fact } : {}) },
            label: gateLabel,
            ...(correction
              ? {
                  correctedOutput:
                    correction.corrected_status === 'refused'
                      ? { decision: 'NO_WRITE' as GateDecision, reason: correction.correction_reason }
                      : {
                          decision: decisionForFile(correction.corrected_target_file ?? audit.target_file),
                          reason: correction.correction_reason,
                          candidateFact: correction.corrected_candidate_fact ?? wgFact,
                        },
                }
              : {}),
          },
          writeGuardian: {
            input: { candidateFact: wgFact, targetFile: audit.target_file, currentContent: current },
            output: { status: guardianDecision, ...(audit.reason ? { reason: audit.reason } : {}) },
            label: guardianLabel,
            ...(correction
              ? {
                  correctedOutput: {
                    status: correction.corrected_status,
                    reason: correction.correction_reason,
                    ...(correction.corrected_target_file ? { targetFile: correction.corrected_target_file } : {}),
                    ...(correction.corrected_candidate_fact ? { candidateFact: correction.corrected_candidate_fact } : {}),
                  },
                }
              : {}),
          },
        };
        drafts.push({
          type: 'annotated_turn',
          sourceKey: `turn:${d.id}`,
          strategy: correction ? 'manual_correction' : 'auto_turn',
          content: turnContent,
          ...writeDraftFields(),
        });
      }
    }

    if (piiCache.size > 5000) piiCache.clear();
    for (const draft of drafts) {
      if (!wants(draft.type)) continue;
      if (st.exists.get(draft.sourceKey)) {
        result.alreadyCollected++;
        continue;
      }
      storeDraft(d, draft, { signals, signalTypes, objection, conversationText, piiCache });
    }
  }

  function storeDraft(
    d: DecisionRow,
    draft: Draft,
    f: { signals: SampleFeedback[]; signalTypes: string[]; objection: boolean; conversationText: string; piiCache: Map<string, PiiSpan[]> },
  ): void {
    const quality = cfg.qualityScoring.enabled
      ? scoreQuality(
          {
            userMessage: d.user_message_content,
            agentMessage: d.agent_message_content,
            conversationLength: draft.type === 'annotated_turn' ? (draft.content as AnnotatedTurnSample).context.length : 2,
            reason: draft.evidence === 'curator_correction' ? 'corrected by a curator' : d.reason,
            rawResponse: d.raw_response,
            fact: draft.fact,
            labelIsNoWrite: !draft.labeledWrite,
            evidence: draft.evidence,
            followingSignals: f.signalTypes,
          },
          f.conversationText,
          cfg.qualityScoring.weights,
        )
      : { score: null as number | null, factors: null as QualityFactors | null };

    const spans = detect ? scanContent(draft.content, detect, detectOpts, f.piiCache) : [];
    const redacted = spans.length ? redactContent(draft.content, spans).redacted : null;

    const labels: SampleLabels = { evidence: draft.evidence, ...draft.labels };
    // seed 000's approved patterns: corrections a curator asked to apply to future, similar cases
    const matchText = `${draft.fact ?? ''}\n${d.user_message_content}`;
    const later = futureCorrections.filter((c) => c.correctedAt <= d.created_at && c.id !== draft.correctionId);
    for (const match of later.length ? matchFutureCorrections(later, { text: matchText, targetFile: draft.targetFile }) : []) {
      const c = match.correction;
      const agrees = (c.correctedStatus === 'refused') === !draft.labeledWrite;
      if (agrees) labels.matchesApprovedPattern ??= c.id;
      else labels.patternConflict ??= c.id;
    }

    const score = quality.score;
    const review: string[] = [];
    const m = cfg.manualReviewCriteria;
    if (m.lowConfidence && quality.factors && quality.factors.decisionConfidence < cfg.qualityScoring.lowConfidenceThreshold) review.push('lowConfidence');
    if (m.containsSensitiveInfo && spans.length) review.push('containsSensitiveInfo');
    if (m.userFeedbackReceived && f.signals.some((s) => isObjection(s) || s.type === 'confusion')) review.push('userFeedbackReceived');
    if (score !== null && score < cfg.positiveCriteria.minQualityScore) {
      if (m.mediumQualityScore && score >= 0.5) review.push('mediumQualityScore');
      else if (score < 0.5) review.push('lowQualityScore');
    }
    if (labels.patternConflict) review.push('conflictsWithCorrectionPattern');
    if (labels.userLaterRequestedSimilar) review.push('userLaterRequestedSimilar');
    if (draft.type === 'memory_gate_positive' && cfg.positiveCriteria.noUserObjection && f.objection) review.push('userObjection');

    const auto: string[] = [];
    const a = cfg.autoApproveCriteria;
    if (a.hasConfirmedCorrection && draft.evidence === 'curator_correction') auto.push('hasConfirmedCorrection');
    if (!review.length && !labels.withinRollbackWindow) {
      if (a.highQualityScore && score !== null && score >= cfg.qualityScoring.highThreshold) auto.push('highQualityScore');
      if (a.matchesApprovedPattern && labels.matchesApprovedPattern) auto.push('matchesApprovedPattern');
    }
    let status: AnnotationStatus = 'pending';
    if (opts.autoApprove && auto.length && (!review.length || auto.includes('hasConfirmedCorrection'))) status = 'auto_approved';
    else if (review.length) status = 'needs_review';
    if (review.length) labels.reviewReasons = review;
    if (auto.length) labels.autoApproveReasons = auto;

    const id = sampleId(d.created_at, draft.sourceKey);
    const cluster = dedupe.assign(id, (redacted ?? draft.content) as SampleContent);
    if (cluster.duplicateOf) {
      labels.duplicateOf = cluster.duplicateOf;
      result.duplicates++;
    }
    if (cluster.relatedSampleIds.length) labels.relatedSampleIds = cluster.relatedSampleIds;

    result.added[draft.type]++;
    result.addedTotal++;
    result.byStatus[status] = (result.byStatus[status] ?? 0) + 1;
    if (opts.dryRun) {
      // Stored nothing, but later samples of this run must still meet this one (the duplicates count).
      dedupe.index(id, cluster);
      return;
    }
    const info = st.insertSample.run({
      id,
      type: draft.type,
      turnId: d.turn_id,
      decisionId: d.id,
      auditId: draft.auditId ?? null,
      correctionId: draft.correctionId ?? null,
      sessionId: d.session_id,
      content: JSON.stringify(draft.content),
      score,
      factors: quality.factors ? JSON.stringify(quality.factors) : null,
      status,
      annotatedBy: status === 'auto_approved' ? 'auto' : null,
      annotatedAt: status === 'auto_approved' ? now : null,
      privacyChecked: detect ? 1 : 0,
      containsPii: spans.length ? 1 : 0,
      redacted: redacted ? JSON.stringify(redacted) : null,
      spans: spans.length ? JSON.stringify(spans) : null,
      signals: f.signals.length ? JSON.stringify(f.signals) : null,
      fingerprint: cluster.fingerprint,
      clusterId: cluster.clusterId,
      sourceKey: draft.sourceKey,
      strategy: draft.strategy,
      createdAt: d.created_at,
      labels: JSON.stringify(labels),
    });
    if (info.changes) dedupe.index(id, cluster);
  }
}
