// Every channel through browser mode's HTTP API against the real services on a demo workspace.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  AuditRow,
  CollectResult,
  ConversationExportResult,
  ExclusionDto,
  ExportPreview,
  ExportRow,
  GateDecisionRow,
  JobStatus,
  Page,
  PruneOutcome,
  PurgeOutcome,
  RollbackOutcome,
  SampleDetail,
  SampleRow,
  SearchHit,
  SessionRow,
  SettingsValidation,
  TurnView,
} from '../../src/shared/contract';
import { generateDemoWorkspace, HOSTILE_SESSION_ID } from '../../src/core/demo';
import { serveWorkspace, type WorkbenchServer } from '../helpers/browser';
import { sharedDir, tempWorkspace } from '../helpers/workspace';
import { call } from './http';

describe('every channel against the real services', () => {
  let dir: string;
  let web: WorkbenchServer;
  const api = async <T>(channel: string, input: unknown = {}, headers: Record<string, string> = {}): Promise<T> => {
    const r = await call(web.server.port, web.token, channel, input, headers);
    const body = r.json<{ ok: boolean; value?: T; error?: { kind: string; message: string } }>();
    if (!body.ok) throw new Error(`${channel}: ${body.error?.kind} ${body.error?.message}`);
    return body.value as T;
  };
  const fails = async (channel: string, input: unknown) => {
    const body = (await call(web.server.port, web.token, channel, input)).json<{ ok: boolean; error?: { kind: string } }>();
    return body.ok ? null : body.error!.kind;
  };
  const waitJob = async (jobId: string): Promise<JobStatus> => {
    for (let i = 0; i < 600; i++) {
      const j = await api<JobStatus>('jobs.get', { jobId });
      if (j.state !== 'running') return j;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('job did not finish');
  };

  beforeAll(async () => {
    dir = tempWorkspace();
    generateDemoWorkspace(dir, { sessions: 8 });
    // Imports read the shared fixtures: allow them, as `--allow-dir` would.
    web = await serveWorkspace(dir, { allowDirs: [sharedDir] });
  });
  afterAll(async () => {
    await web?.close();
  });

  it('sessions, turns, context: the hostile conversation comes back as plain text', async () => {
    const sessions = await api<Page<SessionRow>>('sessions.list', { limit: 50 });
    expect(sessions.items.length).toBe(8);
    expect(sessions.items.map((s) => s.id)).toContain(HOSTILE_SESSION_ID);
    const detail = await api<{ id: string; turnCount: number; writeCount: number }>('sessions.get', { id: HOSTILE_SESSION_ID });
    expect(detail.turnCount).toBeGreaterThan(0);
    const turns = await api<Page<TurnView>>('turns.list', { sessionId: HOSTILE_SESSION_ID });
    const img = turns.items.find((t) => t.userMessage === '<img src=x onerror=alert(1)>');
    expect(img).toBeDefined();
    expect(img!.agentReply).toContain('](javascript:alert(1))');
    expect(img!.decisions[0]).toMatchObject({ decision: 'NO_WRITE', turnId: img!.id });
    const turn = await api<{ turn: { id: string }; context: unknown[] }>('turns.get', { id: img!.id });
    expect(turn.turn.id).toBe(img!.id);
    const context = await api<Array<{ message: string }>>('context.get', { turnId: img!.id });
    expect(context.length).toBeGreaterThan(0);
    expect(await fails('sessions.get', { id: 'channel:none:missing' })).toBe('NotFound');
    expect(await fails('turns.list', { sessionId: 'channel:none:missing' })).toBe('NotFound');
  });

  it('search and gate list/show/stats', async () => {
    const hits = await api<Page<SearchHit>>('search.query', { text: 'onerror' });
    expect(hits.items.length).toBeGreaterThan(0);
    const h = hits.items[0];
    expect(h!.text.slice(h!.matches[0]![0], h!.matches[0]![1]).toLowerCase()).toBe('onerror');
    const list = await api<Page<GateDecisionRow>>('gate.list', { decision: 'UPDATE_USER', limit: 5 });
    expect(list.items).toHaveLength(5);
    for (const d of list.items) expect(d.decision).toBe('UPDATE_USER');
    expect(list.nextCursor).not.toBeNull();
    const next = await api<Page<GateDecisionRow>>('gate.list', { decision: 'UPDATE_USER', limit: 5, cursor: list.nextCursor });
    const firstId = list.items[0]!.id;
    expect(next.items.map((d) => d.id)).not.toContain(firstId);
    const show = await api<{ decision: { id: string }; turn: { id: string }; context: unknown[] }>('gate.show', { id: firstId });
    expect(show.decision.id).toBe(firstId);
    const stats = await api<{ totals: { total: number; byDecision: Record<string, number> }; buckets: unknown[] }>('gate.stats', {
      groupBy: 'daily',
    });
    expect(stats.totals.total).toBeGreaterThan(0);
    expect(stats.totals.byDecision.UPDATE_USER).toBeGreaterThanOrEqual(5);
    expect(stats.buckets.length).toBeGreaterThan(0);
  });

  it('guardian list/show/diff/history, retry preview, correction', async () => {
    const written = await api<Page<AuditRow>>('guardian.list', { status: 'written', source: 'plugin', limit: 20 });
    expect(written.items.length).toBeGreaterThan(0);
    const a = written.items.find((x) => x.contentKnown)!;
    const show = await api<{ audit: { id: string; diff: string | null } }>('guardian.show', { id: a.id });
    expect(show.audit.id).toBe(a.id);
    const diff = await api<{ before: string | null; after: string | null; diff: string }>('guardian.diff', { id: a.id });
    expect(diff.after).not.toBeNull();
    expect(diff.diff).toContain('@@');
    const history = await api<Page<{ auditId: string }>>('guardian.history', { file: a.targetFile, limit: 5 });
    expect(history.items.length).toBeGreaterThan(0);
    const stats = await api<Array<{ status: string; count: number }>>('guardian.stats', {});
    expect(stats.map((c) => c.status)).toEqual(['written', 'refused', 'failed', 'skipped', 'rolled_back']);
    const db = web.runtime.session.db;
    for (const c of stats) {
      expect(c.count, c.status).toBe(db.prepare('SELECT count(*) FROM write_guardian_audit WHERE status = ?').pluck().get(c.status));
    }
    expect(stats.find((c) => c.status === 'written')!.count).toBeGreaterThan(0);
    const before = fs.readFileSync(path.join(dir, a.targetFile), 'utf8');
    const retry = await api<{ content: string; auditId: string | null; dryRun: boolean }>('guardian.retry', {
      auditId: a.id,
      fact: 'Prefers tea over coffee',
      dryRun: true,
    });
    expect(retry).toMatchObject({ dryRun: true, auditId: null });
    expect(retry.content).toContain('Prefers tea over coffee');
    expect(fs.readFileSync(path.join(dir, a.targetFile), 'utf8')).toBe(before);
    const correction = await api<{ auditId: string; correctedStatus: string }>('guardian.correct', {
      auditId: a.id,
      status: 'refused',
      reason: 'not a lasting fact',
    });
    expect(correction).toMatchObject({ auditId: a.id, correctedStatus: 'refused' });
    expect(await fails('guardian.correct', { auditId: a.id, status: 'refused', reason: '   ' })).toBe('Invalid');
  });

  it('a repeated Idempotency-Key does not repeat a rollback', async () => {
    const written = await api<Page<AuditRow>>('guardian.list', { status: 'written', source: 'plugin', limit: 50 });
    // The newest write of a file rolls back cleanly (nothing written after it).
    const seen = new Set<string>();
    const newestPerFile = written.items.filter((a) => a.contentKnown && !seen.has(a.targetFile) && seen.add(a.targetFile));
    const target = newestPerFile[0];
    if (!target) throw new Error('the demo has written audits');
    const file = path.join(dir, target.targetFile);
    const preview = await api<RollbackOutcome>('guardian.rollback', { auditId: target.id, reason: 'preview', dryRun: true });
    expect(preview).toMatchObject({ status: 'preview', dryRun: true, conflict: null });
    const key = 'rollback-once-1';
    const first = await api<RollbackOutcome>('guardian.rollback', { auditId: target.id, reason: 'wrong fact' }, { 'idempotency-key': key });
    expect(first).toMatchObject({ status: 'rolled_back', dryRun: false });
    expect(fs.readFileSync(file, 'utf8')).toBe(preview.resultContent);
    const afterFirst = web.runtime.session.db.prepare('SELECT count(*) AS n FROM rollbacks').get() as { n: number };
    const repeat = await call(
      web.server.port,
      web.token,
      'guardian.rollback',
      { auditId: target.id, reason: 'wrong fact' },
      { 'idempotency-key': key },
    );
    expect(repeat.headers['idempotent-replayed']).toBe('true');
    expect(repeat.json()).toEqual({ ok: true, value: first });
    expect((web.runtime.session.db.prepare('SELECT count(*) AS n FROM rollbacks').get() as { n: number }).n).toBe(afterFirst.n);
    // Without the key the same request is a new action, and the service refuses it: already rolled back.
    expect(await fails('guardian.rollback', { auditId: target.id, reason: 'wrong fact' })).toBe('Conflict');
  });

  it('dataset: collect job, list, get, review, undo, PII decision, stats, preview, export job, exports, download', async () => {
    const { jobId } = await api<{ jobId: string }>('dataset.collect', { type: 'all' });
    const job = await waitJob(jobId);
    expect(job.state).toBe('done');
    const collected = job.result as CollectResult;
    expect(collected.added).toBeGreaterThan(0);
    const samples = await api<Page<SampleRow>>('dataset.list', { limit: 100 });
    expect(samples.items.length).toBe(Math.min(100, collected.added));
    const s = samples.items[0];
    if (!s) throw new Error('the demo has samples');
    const detail = await api<SampleDetail>('dataset.get', { id: s.id });
    expect(detail.id).toBe(s.id);
    const reviewed = await api<{ sample: SampleRow; reviewId: string; previousStatus: string }>('dataset.review', {
      id: s.id,
      action: 'approve',
    });
    expect(reviewed.sample.annotationStatus).toBe('approved');
    const undone = await api<{ reviewId: string; sample: SampleRow }>('dataset.undo', {});
    expect(undone.reviewId).toBe(reviewed.reviewId);
    expect(undone.sample.annotationStatus).toBe(reviewed.previousStatus);
    const withPii = samples.items.find((x) => x.containsPii);
    if (withPii) {
      const d = await api<SampleDetail>('dataset.get', { id: withPii.id });
      const span = d.piiSpans[0];
      if (!span) throw new Error('the sample has PII spans');
      const kept = await api<SampleDetail>('dataset.setPiiSpanDecision', { sampleId: withPii.id, spanId: span.id, decision: 'keep' });
      expect(kept.piiSpans.find((x) => x.id === span.id)!.decision).toBe('keep');
    }
    for (const x of samples.items.slice(0, 10)) await api('dataset.review', { id: x.id, action: 'approve' });
    const stats = await api<{ total: number; byStatus: Record<string, number> }>('dataset.stats');
    expect(stats.total).toBe(collected.added);
    expect(stats.byStatus.approved).toBeGreaterThanOrEqual(10);
    const preview = await api<ExportPreview>('dataset.previewExport', { format: 'openai', onlyApproved: true, limit: 3 });
    expect(preview.records.length).toBeGreaterThan(0);
    expect(preview.total).toBeGreaterThanOrEqual(preview.records.length);
    for (const line of preview.records) expect(JSON.parse(line)).toHaveProperty('messages');
    const exp = await api<{ jobId: string }>('dataset.export', { format: 'openai', onlyApproved: true, name: 'approved-openai' });
    const expJob = await waitJob(exp.jobId);
    expect(expJob.state, JSON.stringify(expJob.error)).toBe('done');
    const row = expJob.result as ExportRow;
    expect(row.totalSamples).toBe(preview.total);
    expect(row.path).toBe(path.join(dir, '.openclaw-reflection', 'exports', 'approved-openai'));
    const exports = await api<ExportRow[]>('dataset.exports', { limit: 10 });
    expect(exports[0]!.id).toBe(row.id);
    const train = row.files.find((f) => f.role === 'train')!;
    const ticket = await fetch(`${web.origin}/api/download-ticket`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-reflection-token': web.token },
      body: JSON.stringify({ exportId: row.id, file: train.name }),
    });
    const dl = await fetch(`${web.origin}${((await ticket.json()) as { value: { url: string } }).value.url}`);
    expect(dl.status).toBe(200);
    const text = await dl.text();
    expect(text.split('\n')[0]).toBe(preview.records[0]);
    expect(await fails('exports.startDrag', { exportId: row.id, fileName: train.name })).toBe('Invalid');
  });

  it('imports run as jobs and report', async () => {
    const evals = path.join(sharedDir, 'benchmarks', 'reflection-evals');
    const { jobId } = await api<{ jobId: string }>('import.evals', { path: evals });
    const job = await waitJob(jobId);
    expect(job.state, JSON.stringify(job.error)).toBe('done');
    expect((job.result as { importer: string; summary: string }).importer).toBe('evals');
    const bad = await api<{ jobId: string }>('import.openclaw', { path: path.join(dir, 'no-such-dir') });
    const failed = await waitJob(bad.jobId);
    expect(failed.state).toBe('failed');
    expect(failed.error?.kind).toBeDefined();
    const jobs = await api<JobStatus[]>('jobs.list');
    expect(jobs.map((j) => j.jobId)).toContain(jobId);
  });

  it('settings, workspace, backup', async () => {
    const settings = await api<{ values: { storage: { busyTimeoutMs: number } }; file: string }>('settings.get');
    expect(settings.values.storage.busyTimeoutMs).toBe(5000);
    const changed = await api<{ values: { storage: { busyTimeoutMs: number } } }>('settings.set', {
      patch: { storage: { busyTimeoutMs: 7000 } },
    });
    expect(changed.values.storage.busyTimeoutMs).toBe(7000);
    const recent = await api<Array<{ dir: string }>>('workspace.recent');
    expect(recent[0]!.dir).toBe(dir);
    const backup = await api<{ file: string; bytes: number }>('backup.create', {});
    expect(fs.statSync(backup.file).size).toBe(backup.bytes);
    expect(await fails('backup.create', { file: '../outside.db' })).toBe('Invalid');
  });
});

describe('opt-out, retention, conversation export and settings validation over HTTP', () => {
  let dir: string;
  let web: WorkbenchServer;
  const send = (channel: string, input: unknown = {}) => call(web.server.port, web.token, channel, input);
  const api = async <T>(channel: string, input: unknown = {}): Promise<T> => {
    const body = (await send(channel, input)).json<{ ok: boolean; value?: T; error?: { kind: string; message: string } }>();
    if (!body.ok) throw new Error(`${channel}: ${body.error?.kind} ${body.error?.message}`);
    return body.value as T;
  };
  const fails = async (channel: string, input: unknown) => {
    const body = (await send(channel, input)).json<{ ok: boolean; error?: { kind: string; message: string } }>();
    return body.ok ? null : body.error!;
  };
  const runJob = async <T>(channel: string, input: unknown): Promise<T> => {
    const { jobId } = await api<{ jobId: string }>(channel, input);
    for (let i = 0; i < 600; i++) {
      const j = await api<JobStatus>('jobs.get', { jobId });
      if (j.state === 'done') return j.result as T;
      if (j.state !== 'running') throw new Error(`${channel}: ${j.state} ${JSON.stringify(j.error)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('job did not finish');
  };
  const count = (sql: string, ...params: unknown[]) =>
    web.runtime.session.db
      .prepare(sql)
      .pluck()
      .get(...params) as number;
  const tableCounts = () =>
    Object.fromEntries(
      ['sessions', 'conversation_turns', 'memory_gate_decisions', 'write_guardian_audit', 'dataset_samples', 'file_snapshots'].map((t) => [
        t,
        count(`SELECT count(*) FROM ${t}`),
      ]),
    );

  beforeAll(async () => {
    dir = tempWorkspace();
    generateDemoWorkspace(dir, { sessions: 8 });
    // Imports read the shared fixtures: allow them, as `--allow-dir` would.
    web = await serveWorkspace(dir, { allowDirs: [sharedDir] });
  });
  afterAll(async () => {
    await web?.close();
  });

  it('an excluded session is not collected; purge dry run changes nothing; purge removes it; remove lifts it', async () => {
    const busiest = web.runtime.session.db
      .prepare(
        "SELECT session_id FROM memory_gate_decisions WHERE decision != 'NO_WRITE' GROUP BY session_id ORDER BY count(*) DESC LIMIT 1",
      )
      .pluck()
      .get() as string;
    // Without the exclusion this session would give samples.
    const wouldCollect = await runJob<CollectResult>('dataset.collect', { sessionId: busiest, dryRun: true });
    expect(wouldCollect.added).toBeGreaterThan(0);

    expect(await api<ExclusionDto[]>('exclusions.list')).toEqual([]);
    const excl = await api<ExclusionDto>('exclusions.add', { kind: 'session', value: busiest, reason: 'asked to be forgotten' });
    expect(excl).toMatchObject({ kind: 'session', value: busiest, reason: 'asked to be forgotten', sessions: 1 });
    expect((await api<ExclusionDto[]>('exclusions.list')).map((e) => e.id)).toEqual([excl.id]);
    expect(await fails('exclusions.add', { kind: 'session', value: busiest })).toMatchObject({ kind: 'Conflict' });
    expect(await fails('exclusions.add', { kind: 'target', value: 'no-colon' })).toMatchObject({
      kind: 'Invalid',
      message: expect.stringMatching(/target/),
    });

    const collected = await runJob<CollectResult>('dataset.collect', { type: 'all' });
    expect(collected.added).toBeGreaterThan(0);
    expect(count('SELECT count(*) FROM dataset_samples')).toBe(collected.added);
    expect(count('SELECT count(*) FROM dataset_samples WHERE session_id = ?', busiest)).toBe(0);
    const listed = await api<Page<SampleRow>>('dataset.list', { limit: 500 });
    expect(listed.items.some((s) => s.sessionId === busiest)).toBe(false);

    const turnsOfSession = count('SELECT count(*) FROM conversation_turns WHERE session_id = ?', busiest);
    expect(turnsOfSession).toBeGreaterThan(0);
    const before = tableCounts();
    const preview = await api<PurgeOutcome>('exclusions.purge', { id: excl.id, dryRun: true });
    expect(preview).toMatchObject({ dryRun: true, sessionIds: [busiest] });
    expect(preview.deleted.conversation_turns).toBe(turnsOfSession);
    expect(tableCounts()).toEqual(before);
    expect(await fails('exclusions.purge', { id: excl.id })).toMatchObject({
      kind: 'Invalid',
      message: expect.stringMatching(/irreversible/),
    });
    expect(tableCounts()).toEqual(before);

    const purged = await api<PurgeOutcome>('exclusions.purge', { id: excl.id, confirm: true });
    expect(purged.deleted).toEqual(preview.deleted);
    expect(count('SELECT count(*) FROM conversation_turns WHERE session_id = ?', busiest)).toBe(0);
    expect(count('SELECT count(*) FROM memory_gate_decisions WHERE session_id = ?', busiest)).toBe(0);
    expect(count('SELECT count(*) FROM conversation_turns')).toBe(before.conversation_turns! - turnsOfSession);

    const removed = await api<ExclusionDto>('exclusions.remove', { id: excl.id });
    expect(removed.id).toBe(excl.id);
    expect(await api<ExclusionDto[]>('exclusions.list')).toEqual([]);
    expect(await fails('exclusions.remove', { id: excl.id })).toMatchObject({ kind: 'NotFound' });
    expect(await fails('exclusions.purge', { id: excl.id, dryRun: true })).toMatchObject({ kind: 'NotFound' });
  });

  it('conversations.export writes the turns of a range as a job; excluded sessions are skipped', async () => {
    const db = web.runtime.session.db;
    const [first, last] = db.prepare('SELECT min(created_at), max(created_at) FROM conversation_turns').raw().get() as [number, number];
    const until = first + Math.floor((last - first) / 2);
    const target = db
      .prepare('SELECT session_id FROM conversation_turns WHERE created_at < ? ORDER BY created_at LIMIT 1')
      .pluck()
      .get(until) as string;
    const excl = await api<ExclusionDto>('exclusions.add', { kind: 'session', value: target });
    const expected = count(
      'SELECT count(*) FROM conversation_turns WHERE created_at >= ? AND created_at < ? AND session_id NOT IN (SELECT session_id FROM excluded_sessions)',
      first,
      until,
    );
    const r = await runJob<ConversationExportResult>('conversations.export', { since: first, until });
    expect(r.turns).toBe(expected);
    expect(r.turns).toBeGreaterThan(0);
    expect(path.dirname(r.file)).toBe(path.join(dir, '.openclaw-reflection', 'exports'));
    const lines = fs
      .readFileSync(r.file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(expected);
    expect(fs.statSync(r.file).size).toBe(r.bytes);
    expect(JSON.stringify(lines)).not.toContain(target);
    await api('exclusions.remove', { id: excl.id });
    expect(await fails('conversations.export', { since: until, until: first })).toBeNull(); // a job: the error comes with the job
    const { jobId } = await api<{ jobId: string }>('conversations.export', { since: until, until: first });
    let status: JobStatus;
    // Polled gently: a job may start in a worker thread, and a tight loop would meet the rate limit.
    while ((status = await api<JobStatus>('jobs.get', { jobId })).state === 'running') await new Promise((r) => setTimeout(r, 25));
    expect(status).toMatchObject({ state: 'failed', error: { kind: 'Invalid', message: expect.stringMatching(/since/) } });
  });

  it('retention.prune: the dry run says what would go and why old rows stay, and changes nothing', async () => {
    const sample = (await api<Page<SampleRow>>('dataset.list', { limit: 1 })).items[0];
    if (!sample) throw new Error('the demo has samples');
    await api('dataset.review', { id: sample.id, action: 'approve' });
    const before = tableCounts();
    const dry = await api<PruneOutcome>('retention.prune', { days: 30, dryRun: true });
    expect(dry.dryRun).toBe(true);
    expect(dry.deleted.conversation_turns).toBeGreaterThan(0);
    expect(dry.kept).toEqual(
      expect.arrayContaining([expect.objectContaining({ reason: 'curated dataset sample', count: expect.any(Number) })]),
    );
    expect(tableCounts()).toEqual(before);
    // No retention limit given and none configured: named.
    expect(await fails('retention.prune', { dryRun: true })).toMatchObject({
      kind: 'Invalid',
      message: expect.stringMatching(/retentionDays/),
    });
    const real = await api<PruneOutcome>('retention.prune', { days: 30, confirm: true, previewToken: dry.previewToken, force: true });
    expect(real.deleted).toEqual(dry.deleted);
    expect(count('SELECT count(*) FROM conversation_turns')).toBe(before.conversation_turns! - dry.deleted.conversation_turns!);
    expect(count('SELECT count(*) FROM dataset_samples WHERE id = ?', sample.id)).toBe(1);
  });

  it('settings.validate names each bad value and saves nothing', async () => {
    const stored = await api<SettingsValidation>('settings.validate');
    expect(stored).toMatchObject({ valid: true, problems: [], source: 'file' });
    const bad = await api<SettingsValidation>('settings.validate', {
      settings: { storage: { busyTimeoutMs: 'soon', retentionDays: 90 }, colour: 'blue' },
    });
    expect(bad.valid).toBe(false);
    expect(bad.source).toBe('input');
    expect(bad.problems.join('\n')).toMatch(/storage\.busyTimeoutMs/);
    expect(bad.problems.join('\n')).toMatch(/colour/);
    expect(bad.values).toMatchObject({ storage: { busyTimeoutMs: 5000, retentionDays: 90 } });
    expect(fs.existsSync(bad.file)).toBe(false);
    fs.mkdirSync(path.dirname(bad.file), { recursive: true });
    fs.writeFileSync(bad.file, JSON.stringify({ storage: { mmapSizeMB: 'big' } }));
    const fromFile = await api<SettingsValidation>('settings.validate');
    expect(fromFile).toMatchObject({ valid: false, source: 'file', problems: [expect.stringMatching(/storage\.mmapSizeMB/)] });
  });
});

describe('idempotency keys persist in the workspace database', () => {
  let dir: string;
  let web: WorkbenchServer | null = null;
  const send = (channel: string, input: unknown, key: string) =>
    call(web!.server.port, web!.token, channel, input, { 'idempotency-key': key });
  const db = () => web!.runtime.session.db;
  const rollbacks = () => db().prepare('SELECT count(*) FROM rollbacks').pluck().get() as number;

  beforeAll(async () => {
    dir = tempWorkspace();
    generateDemoWorkspace(dir, { sessions: 4 });
    web = await serveWorkspace(dir);
  });
  afterAll(async () => {
    await web?.close();
  });

  it('a repeated key after a server restart replays the result and does not repeat the rollback', async () => {
    const newest = db()
      .prepare(
        "SELECT id, target_file FROM write_guardian_audit WHERE status = 'written' AND source = 'plugin' AND after_snapshot_id IS NOT NULL ORDER BY created_at DESC LIMIT 1",
      )
      .get() as { id: string; target_file: string };
    const body = { auditId: newest.id, reason: 'wrong fact' };
    const first = await send('guardian.rollback', body, 'restart-key-1');
    expect(first.json()).toMatchObject({ ok: true, value: { status: 'rolled_back' } });
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const fileAfter = fs.readFileSync(path.join(dir, newest.target_file), 'utf8');
    const count = rollbacks();
    expect(db().prepare("SELECT result IS NOT NULL FROM api_idempotency WHERE idem_key = 'restart-key-1'").pluck().get()).toBe(1);

    // A new server process on the same workspace: new token, new port, fresh memory.
    await web!.close();
    web = await serveWorkspace(dir);
    const repeat = await send('guardian.rollback', body, 'restart-key-1');
    expect(repeat.status).toBe(200);
    expect(repeat.headers['idempotent-replayed']).toBe('true');
    expect(repeat.json()).toEqual(first.json());
    expect(rollbacks()).toBe(count);
    expect(fs.readFileSync(path.join(dir, newest.target_file), 'utf8')).toBe(fileAfter);

    const changed = await send('guardian.rollback', { ...body, reason: 'another reason' }, 'restart-key-1');
    expect(changed.status).toBe(409);
    expect(changed.json()).toMatchObject({ ok: false, error: { kind: 'Conflict', message: expect.stringMatching(/different request/) } });
    // The same key on another channel is another key.
    const other = await send('exclusions.add', { kind: 'account', value: 'acct-restart' }, 'restart-key-1');
    expect(other.json()).toMatchObject({ ok: true, value: { kind: 'account' } });
    expect(rollbacks()).toBe(count);
  });

  it('a key reserved by a server that stopped mid-call is refused, never run again; expired keys run anew', async () => {
    const target = db()
      .prepare(
        "SELECT id FROM write_guardian_audit WHERE status = 'written' AND source = 'plugin' AND id NOT IN (SELECT audit_id FROM rollbacks) ORDER BY created_at DESC LIMIT 1",
      )
      .pluck()
      .get() as string;
    const body = JSON.stringify({ auditId: target, reason: 'interrupted' });
    const hash = crypto.createHash('sha256').update(body).digest('hex');
    db()
      .prepare(
        "INSERT INTO api_idempotency (channel, idem_key, body_hash, result, created_at) VALUES ('guardian.rollback', 'crashed-key', ?, NULL, ?)",
      )
      .run(hash, Date.now() - 1000);
    const count = rollbacks();
    const r = await send('guardian.rollback', JSON.parse(body), 'crashed-key');
    expect(r.status).toBe(409);
    expect(r.json()).toMatchObject({ ok: false, error: { kind: 'Conflict', message: expect.stringMatching(/interrupted/) } });
    expect(rollbacks()).toBe(count);

    const stale = { ok: true, value: { stale: true } };
    db()
      .prepare(
        "INSERT INTO api_idempotency (channel, idem_key, body_hash, result, created_at) VALUES ('exclusions.add', 'old-key', ?, ?, ?)",
      )
      .run(
        crypto
          .createHash('sha256')
          .update(JSON.stringify({ kind: 'account', value: 'acct-old' }))
          .digest('hex'),
        JSON.stringify(stale),
        Date.now() - 25 * 3600_000,
      );
    const fresh = await send('exclusions.add', { kind: 'account', value: 'acct-old' }, 'old-key');
    expect(fresh.headers['idempotent-replayed']).toBeUndefined();
    expect(fresh.json()).toMatchObject({ ok: true, value: { value: 'acct-old' } });
    expect(db().prepare("SELECT count(*) FROM exclusions WHERE value = 'acct-old'").pluck().get()).toBe(1);
  });
});
