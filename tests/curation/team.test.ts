// Team curation over a real demo workspace: the filtered queue with its true size, reservations
// between two curators, bulk review with one undo, second pass with agreement and adjudication,
// curators' tokens, and per-value PII decisions that the export honours.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openWorkspaceDatabase, type DB } from '../../src/core/db/connection';
import type { ServiceContext } from '../../src/core/context';
import { bulkReview } from '../../src/core/curation/bulk';
import { addCurator, authenticateCurator, listCurators, revokeCurator, setLocalCurator, whoAmI } from '../../src/core/curation/curators';
import { getGuidelines, getReviewSettings, setGuidelines, setReviewSettings } from '../../src/core/curation/guidelines';
import { reviewHistory } from '../../src/core/curation/history';
import { decidePiiValue, listPiiValues, undoPiiValueDecision } from '../../src/core/curation/piiValues';
import { listQueue } from '../../src/core/curation/queue';
import { releaseSamples, reserveSamples } from '../../src/core/curation/reservations';
import { adjudicate, agreementReport, startSecondPass } from '../../src/core/curation/secondPass';
import { redactContent, type StoredPiiSpan } from '../../src/core/dataset/privacy';
import { collectSamples, previewExport, reviewSample, undoLastReview } from '../../src/core/dataset';
import { generateDemoWorkspace } from '../../src/core/demo';
import { tempWorkspace } from '../helpers/workspace';

let db: DB;
let dir: string;
let clock = Date.UTC(2026, 5, 1);
const as = (actor: string): ServiceContext => ({ db, workspaceDir: dir, actor, now: () => clock });
const count = (sql: string, ...p: unknown[]) => (db.prepare(sql).get(...p) as { n: number }).n;

beforeAll(async () => {
  process.env.REFLECTION_STATE_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'reflection-state-'));
  dir = tempWorkspace('reflection-curation-');
  generateDemoWorkspace(dir, { sessions: 16, seed: 7 });
  db = openWorkspaceDatabase(dir).db;
  await collectSamples(as('collector'), {});
}, 120_000);

describe('review queue', () => {
  it('reports its true size and filters by type, quality, PII, file, session and signal', () => {
    const open = count("SELECT count(*) AS n FROM dataset_samples WHERE annotation_status IN ('pending', 'needs_review')");
    const page = listQueue(as('ann'), { limit: 5 });
    expect(page.total).toBe(open);
    expect(page.items).toHaveLength(Math.min(5, open));
    const withPii = listQueue(as('ann'), { filter: { status: 'all', pii: 'with' }, limit: 500 });
    expect(withPii.total).toBe(count('SELECT count(*) AS n FROM dataset_samples WHERE contains_pii = 1'));
    expect(withPii.items.every((s) => s.containsPii)).toBe(true);
    const q = listQueue(as('ann'), { filter: { status: 'all', minQuality: 0.6 }, sort: 'quality_asc', limit: 500 });
    const scores = q.items.map((s) => s.qualityScore ?? 0);
    expect(scores.every((x) => x >= 0.6)).toBe(true);
    expect([...scores].sort((a, b) => a - b)).toEqual(scores);
    const session = q.items[0]?.sessionId ?? page.items[0]!.sessionId;
    expect(
      listQueue(as('ann'), { filter: { status: 'all', sessionId: session }, limit: 500 }).items.every((s) => s.sessionId === session),
    ).toBe(true);
    const user = listQueue(as('ann'), { filter: { status: 'all', file: 'USER.md' }, limit: 500 });
    expect(user.total).toBeGreaterThan(0);
    expect(user.total).toBeLessThan(count('SELECT count(*) AS n FROM dataset_samples'));
    const signal = listQueue(as('ann'), { filter: { status: 'all', signal: 'correction' }, limit: 500 });
    expect(signal.items.every((s) => s.feedbackSignals.some((f) => f.type === 'correction'))).toBe(true);
    expect(() => listQueue(as('ann'), { filter: { status: 'all', minQuality: 0.9, maxQuality: 0.1 } })).toThrow(
      /minQuality is above maxQuality/,
    );
  });

  it('pages by keyset without skipping or repeating, whatever the sort', () => {
    for (const sort of ['newest', 'oldest', 'quality_desc', 'quality_asc'] as const) {
      const all = listQueue(as('ann'), { filter: { status: 'all' }, sort, limit: 500 }).items.map((s) => s.id);
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const p = listQueue(as('ann'), { filter: { status: 'all' }, sort, limit: 7, cursor });
        seen.push(...p.items.map((s) => s.id));
        cursor = p.nextCursor ?? undefined;
      } while (cursor);
      expect(seen).toEqual(all);
    }
  });
});

describe('reservations', () => {
  it('serves two curators different samples, and releases on skip and on timeout', () => {
    const first = listQueue(as('ann'), { limit: 3 }).items.map((s) => s.id) as [string, string, string];
    expect(first).toHaveLength(3);
    expect(reserveSamples(as('ann'), first).held).toEqual(first);
    const bobSees = listQueue(as('bob'), { limit: 3 }).items.map((s) => s.id);
    expect(bobSees.some((id) => first.includes(id))).toBe(false);
    const clash = reserveSamples(as('bob'), [first[0]]);
    expect(clash.held).toEqual([]);
    expect(clash.taken[0]).toMatchObject({ id: first[0], curator: 'ann' });
    // skip gives it back
    expect(releaseSamples(as('ann'), [first[0]])).toBe(1);
    expect(reserveSamples(as('bob'), [first[0]]).held).toEqual([first[0]]);
    // timeout gives it back too
    clock += 6 * 60_000;
    expect(listQueue(as('bob'), { limit: 500 }).items.map((s) => s.id)).toContain(first[1]);
    releaseSamples(as('bob'), [first[0]]);
  });

  it('refuses a review of a sample another curator holds, and names them', async () => {
    const id = listQueue(as('ann'), { limit: 1 }).items[0]!.id;
    reserveSamples(as('ann'), [id]);
    await expect(reviewSample(as('bob'), { sampleId: id, action: 'approve' })).rejects.toThrow(
      /on ann's screen \(held for about 5 more minutes\)/,
    );
    expect(db.prepare('SELECT annotation_status AS s FROM dataset_samples WHERE id = ?').get(id)).toEqual({ s: 'pending' });
    await reviewSample(as('ann'), { sampleId: id, action: 'approve' });
    undoLastReview(as('ann'));
    // once the hold is given back (or times out) anyone may decide it
    reserveSamples(as('ann'), [id]);
    releaseSamples(as('ann'), [id]);
    await reviewSample(as('bob'), { sampleId: id, action: 'reject' });
    undoLastReview(as('bob'));
  });
});

describe('bulk review', () => {
  it('approves everything a filter selects and one undo takes the whole batch back', async () => {
    const filter = { status: 'open' as const, type: 'memory_gate_positive' as const };
    const preview = bulkReview(as('ann'), { filter, action: 'approve', dryRun: true });
    expect(preview.count).toBeGreaterThan(1);
    expect(count("SELECT count(*) AS n FROM dataset_samples WHERE annotation_status = 'approved' AND annotated_by = 'ann'")).toBe(0);
    const done = bulkReview(as('ann'), { filter, action: 'approve' });
    expect(done.count).toBe(preview.count);
    expect(count("SELECT count(*) AS n FROM dataset_samples WHERE annotation_status = 'approved' AND annotated_by = 'ann'")).toBe(
      done.count,
    );
    const h = reviewHistory(as('ann'));
    expect(h[0]).toMatchObject({ action: 'approve', count: done.count, batchId: done.batchId, undone: false });
    const undone = undoLastReview(as('ann'));
    expect(undone.count).toBe(done.count);
    expect(count("SELECT count(*) AS n FROM dataset_samples WHERE annotated_by = 'ann'")).toBe(0);
    expect(reviewHistory(as('ann'))[0]?.undone).toBe(true);
  });

  it('records reject reasons and notes, and undo is per curator', async () => {
    const [a, b] = listQueue(as('ann'), { limit: 2 }).items;
    if (!a || !b) throw new Error('the queue holds fewer than two samples');
    await reviewSample(as('ann'), { sampleId: a.id, action: 'reject', reason: 'Wrong fact', notes: 'fact contradicts USER.md' });
    await reviewSample(as('bob'), { sampleId: b.id, action: 'approve' });
    const row = db
      .prepare('SELECT annotation_status, reject_reason, annotation_notes, annotated_by FROM dataset_samples WHERE id = ?')
      .get(a.id);
    expect(row).toEqual({
      annotation_status: 'rejected',
      reject_reason: 'Wrong fact',
      annotation_notes: 'fact contradicts USER.md',
      annotated_by: 'ann',
    });
    await expect(reviewSample(as('ann'), { sampleId: a.id, action: 'approve', reason: 'x' })).rejects.toThrow(
      /reason goes with reject only/,
    );
    // Ann's undo takes back Ann's reject, not Bob's later approve.
    expect(undoLastReview(as('ann')).sampleId).toBe(a.id);
    expect(db.prepare('SELECT reject_reason AS r FROM dataset_samples WHERE id = ?').get(a.id)).toEqual({ r: null });
    expect(db.prepare('SELECT annotation_status AS s FROM dataset_samples WHERE id = ?').get(b.id)).toEqual({ s: 'approved' });
    undoLastReview(as('bob'));
  });
});

describe('second pass and agreement', () => {
  it('sends labelled samples to a different curator, computes kappa, and a lead adjudicates', async () => {
    const ids = listQueue(as('ann'), { limit: 6 }).items.map((s) => s.id) as [string, string, string, string, string, string];
    expect(ids).toHaveLength(6);
    const labels = ['approve', 'approve', 'reject', 'reject', 'approve', 'reject'] as const;
    for (const [i, id] of ids.entries()) await reviewSample(as('ann'), { sampleId: id, action: labels[i]! });
    expect(startSecondPass(as('lead'), { share: 0.5, seed: 's', dryRun: true }).added).toBe(3);
    expect(startSecondPass(as('lead'), { share: 1, seed: 's' }).added).toBe(6);
    // Ann cannot second-review her own labels; Bob gets all six.
    expect(listQueue(as('ann'), { filter: { pass: 'second' } }).total).toBe(0);
    const second = listQueue(as('bob'), { filter: { pass: 'second' }, limit: 10 }).items.map((s) => s.id);
    expect(second.sort()).toEqual([...ids].sort());
    const bobLabels = ['approve', 'reject', 'reject', 'reject', 'approve', 'approve'] as const;
    for (const [i, id] of ids.entries()) await reviewSample(as('bob'), { sampleId: id, action: bobLabels[i]! });
    // a second opinion does not change the first label
    expect(db.prepare('SELECT annotation_status AS s FROM dataset_samples WHERE id = ?').get(ids[1])).toEqual({ s: 'approved' });
    const r = agreementReport(as('lead'));
    // 4 of 6 agree; marginals 3/3 and 3/3 -> pe 0.5 -> kappa (0.667-0.5)/0.5 = 1/3
    expect(r.overall.n).toBe(6);
    expect(r.overall.raw).toBeCloseTo(4 / 6, 10);
    expect(r.overall.kappa).toBeCloseTo(1 / 3, 10);
    expect(r.perLabel.approved?.kappa).toBeCloseTo(1 / 3, 10);
    expect(r.disagreements.map((d) => d.sampleId).sort()).toEqual([ids[1], ids[5]].sort());
    addCurator(as('owner'), { name: 'carl' });
    expect(() => adjudicate(as('carl'), { sampleId: ids[1], action: 'reject' })).toThrow(/only a lead adjudicates/);
    adjudicate(as('owner'), { sampleId: ids[1], action: 'reject' });
    expect(db.prepare('SELECT annotation_status AS s, annotated_by AS b FROM dataset_samples WHERE id = ?').get(ids[1])).toEqual({
      s: 'rejected',
      b: 'owner',
    });
    expect(agreementReport(as('lead')).disagreements.map((d) => d.sampleId)).toEqual([ids[5]]);
  });

  it('does not let the first curator hold a sample that waits for a second opinion', async () => {
    const id = listQueue(as('ann'), { limit: 1 }).items[0]!.id;
    reserveSamples(as('ann'), [id]);
    await reviewSample(as('ann'), { sampleId: id, action: 'approve' });
    // A hold asked for before the label but handled after it (requests can overtake each other).
    expect(reserveSamples(as('ann'), [id]).held).toEqual([id]);
    startSecondPass(as('lead'), { share: 1, seed: 'late' });
    expect(listQueue(as('bob'), { filter: { pass: 'second' }, limit: 500 }).items.map((s) => s.id)).toContain(id);
    expect(reserveSamples(as('bob'), [id])).toEqual({ held: [id], taken: [] });
    // and Ann, never served it for a second look, cannot take it back
    expect(reserveSamples(as('ann'), [id]).held).toEqual([]);
    releaseSamples(as('bob'), [id]);
    expect(reserveSamples(as('ann'), [id])).toEqual({ held: [], taken: [] });
    expect(count('SELECT count(*) AS n FROM review_reservations WHERE sample_id = ?', id)).toBe(0);
    // A late hold of the first curator does not stop the second from deciding either.
    const next = listQueue(as('ann'), { limit: 1 }).items[0]!.id;
    await reviewSample(as('ann'), { sampleId: next, action: 'reject' });
    reserveSamples(as('ann'), [next]);
    startSecondPass(as('lead'), { share: 1, seed: 'late again' });
    await reviewSample(as('bob'), { sampleId: next, action: 'approve' });
    expect(db.prepare('SELECT second_label AS l, second_curator AS c FROM review_second_pass WHERE sample_id = ?').get(next)).toEqual({
      l: 'approved',
      c: 'bob',
    });
  });
});

describe('curators', () => {
  it('issues a token once, stores only its hash, and revokes it', () => {
    const { token, curator } = addCurator(as('owner'), { name: 'dana', role: 'lead' });
    expect(curator).toMatchObject({ name: 'dana', role: 'lead', hasToken: true });
    expect(JSON.stringify(db.prepare('SELECT * FROM curators').all())).not.toContain(token);
    expect(authenticateCurator(db, token)?.name).toBe('dana');
    expect(authenticateCurator(db, `${token}x`)).toBeNull();
    expect(() => addCurator(as('owner'), { name: 'DANA' })).toThrow(/already exists/);
    expect(() => addCurator(as('owner'), { name: '<b>' })).toThrow(/curator name/);
    revokeCurator(as('owner'), 'dana');
    expect(authenticateCurator(db, token)).toBeNull();
    expect(listCurators(as('owner')).find((c) => c.name === 'dana')?.revokedAt).not.toBeNull();
  });

  it('names the local curator once', () => {
    expect(whoAmI({ db, workspaceDir: dir }).needsName).toBe(true);
    setLocalCurator({ db, workspaceDir: dir }, 'Lin');
    expect(whoAmI({ db, workspaceDir: dir, actor: 'Lin' })).toMatchObject({ name: 'Lin', role: 'lead', isLocal: true, needsName: false });
  });
});

describe('guidelines and reject reasons', () => {
  it('keeps them in the workspace and validates them', () => {
    expect(getGuidelines(as('ann')).markdown).toBe('');
    setGuidelines(as('ann'), '# Rules\n\n- approve facts the user stated');
    expect(fs.readFileSync(path.join(dir, '.openclaw-reflection', 'review-guidelines.md'), 'utf8')).toContain('# Rules');
    expect(getReviewSettings(as('ann')).rejectReasons.length).toBeGreaterThan(2);
    setReviewSettings(as('ann'), { rejectReasons: ['Wrong', 'Private'] });
    expect(getReviewSettings(as('ann')).rejectReasons).toEqual(['Wrong', 'Private']);
    expect(() => setReviewSettings(as('ann'), { rejectReasons: ['a', 'A'] })).toThrow(/must differ/);
    expect(() => setReviewSettings(as('ann'), { rejectReasons: Array.from({ length: 10 }, (_, i) => `r${i}`) })).toThrow(/at most 9/);
  });
});

describe('per-value PII decisions', () => {
  it('keeps a value across samples, the export honours it, and undo restores every span', async () => {
    const values = listPiiValues(as('ann'));
    const v = values.find((x) => x.workspaceSamples > 1);
    expect(v).toBeDefined();
    const value = v!.value;
    const exportText = async () =>
      (await previewExport(as('ann'), { format: 'raw', onlyApproved: false, includePii: false }, 10_000)).map((r) => r.text).join('');
    expect(await exportText()).not.toContain(value);
    const preview = decidePiiValue(as('ann'), { value, decision: 'keep', scope: 'workspace', dryRun: true });
    expect(preview.samples).toBe(v!.workspaceSamples);
    const d = decidePiiValue(as('ann'), { value: value.toUpperCase(), decision: 'keep', scope: 'workspace' });
    expect(d.samples).toBe(v!.workspaceSamples);
    expect(listPiiValues(as('ann')).find((x) => x.value === value)?.redacted).toBe(0);
    expect(await exportText()).toContain(value);
    undoPiiValueDecision(as('ann'), d.id);
    expect(listPiiValues(as('ann')).find((x) => x.value === value)?.redacted).toBe(v!.redacted);
    expect(await exportText()).not.toContain(value);
    expect(() => undoPiiValueDecision(as('ann'), d.id)).toThrow(/already undone/);
  });

  it('a decision for everywhere also covers samples the export meets later', async () => {
    const v = listPiiValues(as('ann')).find((x) => x.workspaceSamples >= 1)!;
    const d = decidePiiValue(as('ann'), { value: v.value, decision: 'keep', scope: 'global' });
    // simulate a sample collected after the decision: put its spans back and date it later
    const sid = (db.prepare('SELECT sample_id AS id FROM pii_value_decision_samples WHERE decision_id = ?').get(d.id) as { id: string }).id;
    db.prepare('DELETE FROM pii_value_decisions WHERE id = ?').run(d.id); // as if made in another workspace
    const row = db.prepare('SELECT pii_spans AS s, content AS c FROM dataset_samples WHERE id = ?').get(sid) as { s: string; c: string };
    const spans = (JSON.parse(row.s) as StoredPiiSpan[]).map((s) => ({ ...s, accepted: true }));
    const redacted = JSON.stringify(redactContent(JSON.parse(row.c), spans).redacted);
    db.prepare('UPDATE dataset_samples SET pii_spans = ?, pii_redacted_content = ?, contains_pii = 1 WHERE id = ?').run(
      JSON.stringify(spans),
      redacted,
      sid,
    );
    const exported = async () =>
      (await previewExport(as('ann'), { format: 'raw', onlyApproved: false, includePii: false }, 10_000)).find((r) => r.sampleId === sid)!
        .text;
    expect(await exported()).toContain(v.value);
    // without the global rule the stored redaction stands
    fs.rmSync(path.join(process.env.REFLECTION_STATE_DIR!, 'pii-value-decisions.json'));
    expect(await exported()).not.toContain(v.value);
  });
});
