import { describe, expect, it } from 'vitest';
import { collectSamples, getSample, listSamples, type DatasetSample } from '../../src/core/dataset';
import type { MemoryGateNegativeSample, MemoryGatePositiveSample } from '../../src/core/dataset';
import { PII, S, buildFixture, type Fixture } from './fixture';

const bySource = (f: Fixture, key: string): DatasetSample => {
  const row = f.db.prepare('SELECT id FROM dataset_samples WHERE source_key = ?').get(key) as { id: string } | undefined;
  if (!row) throw new Error(`no sample ${key}`);
  return getSample(f.ctx, row.id);
};
const count = (f: Fixture, where = '1', ...params: unknown[]) =>
  f.db
    .prepare(`SELECT count(*) FROM dataset_samples WHERE ${where}`)
    .pluck()
    .get(...params) as number;

describe('dataset collection', () => {
  it('collects all four sample types following the strategy, and collecting twice adds nothing', async () => {
    const f = await buildFixture();
    const progress: number[] = [];
    const steps = new Set<string | undefined>();
    const first = await collectSamples(
      {
        ...f.ctx,
        progress: (done, _total, step) => {
          steps.add(step);
          if (step === 'decisions') progress.push(done);
        },
      },
      { autoApprove: true },
    );
    expect(first.decisionsScanned).toBe(13); // frank's decision is excluded
    // alice1 and carol1 are NO_WRITE decisions: each a positive that teaches NO_WRITE
    expect(first.added).toEqual({ memory_gate_positive: 8, memory_gate_negative: 5, write_guardian_decision: 9, annotated_turn: 9 });
    expect(progress[progress.length - 1]).toBe(13);
    // a first collection loads in bulk: its band rows and set-aside indexes are steps of their own
    expect([...steps]).toEqual(['decisions', 'writing the duplicate index', 'rebuilding indexes']);
    expect(count(f, 'session_id = ?', S.frank)).toBe(0);

    // a written, unchallenged write: the seed's positive shape
    const alice = bySource(f, `pos:${f.ids.alice0.decisionId}`);
    expect(alice.content).toEqual({
      type: 'memory_gate_positive',
      conversation: [
        { role: 'user', message: 'I prefer morning check-ins' },
        { role: 'agent', message: "I'll remember that you prefer morning check-ins." },
      ],
      correctDecision: 'UPDATE_USER',
      correctFact: 'prefers morning check-ins',
      reason: 'This is a stable user preference about collaboration cadence.',
      evidence: { wasWritten: true, userFeedback: 'confirmed' },
    });
    expect(alice.annotationStatus).toBe('auto_approved');
    expect(alice.feedbackSignals.map((s) => s.type)).toContain('success');

    // guardian refused -> negative
    const refused = bySource(f, `neg:${f.ids.dave0.decisionId}`).content as MemoryGateNegativeSample;
    expect(refused.incorrectDecision).toBe('UPDATE_TOOLS');
    expect(refused.correctDecision).toBe('NO_WRITE');
    expect(refused.rejectionReason).toBe('Secrets must not be stored in memory files.');

    // rolled back within the window -> negative with the rollback's reason; no positive
    const rolled = bySource(f, `neg:rollback:${f.ids.dave1.auditId}`).content as MemoryGateNegativeSample;
    expect(rolled.rejectionReason).toBe('The date was only a guess.');
    expect(count(f, 'source_key = ?', `pos:${f.ids.dave1.decisionId}`)).toBe(0);

    // correction to refused -> negative; no positive for that write
    const carolCorrection = f.db
      .prepare('SELECT id FROM behavior_corrections WHERE audit_id = ?')
      .pluck()
      .get(f.ids.carol0.auditId) as string;
    const carolNeg = bySource(f, `neg:corr:${carolCorrection}`);
    expect(carolNeg.correctionId).toBe(carolCorrection);
    expect((carolNeg.content as MemoryGateNegativeSample).correctDecision).toBe('NO_WRITE');
    expect(count(f, 'source_key = ?', `pos:${f.ids.carol0.decisionId}`)).toBe(0);
    expect(carolNeg.annotationStatus).toBe('auto_approved'); // hasConfirmedCorrection

    // correction to another fact and file -> the negative and the corrected positive
    const hankCorrection = f.db
      .prepare('SELECT id FROM behavior_corrections WHERE audit_id = ?')
      .pluck()
      .get(f.ids.hank0.auditId) as string;
    const hankPos = bySource(f, `pos:corr:${hankCorrection}`).content as MemoryGatePositiveSample;
    expect(hankPos).toMatchObject({
      correctDecision: 'UPDATE_USER',
      correctFact: 'User likes jasmine green tea',
      evidence: { userFeedback: 'corrected' },
    });
    const hankNeg = bySource(f, `neg:corr:${hankCorrection}`).content as MemoryGateNegativeSample;
    expect(hankNeg).toMatchObject({ incorrectDecision: 'UPDATE_MEMORY', incorrectFact: 'Hank drinks tea', correctDecision: 'UPDATE_USER' });

    // a NO_WRITE nobody contradicted teaches NO_WRITE
    const smallTalk = bySource(f, `pos:nowrite:${f.ids.alice1.decisionId}`);
    expect(smallTalk.content).toMatchObject({
      type: 'memory_gate_positive',
      correctDecision: 'NO_WRITE',
      correctFact: '',
      reason: 'Small talk.',
      evidence: { wasWritten: false },
    });

    // NO_WRITE, then the user asked to remember the same -> userLaterRequestedSimilar negative (with the later fact), for review
    const gina = bySource(f, `neg:later:${f.ids.gina0.decisionId}`);
    expect(gina.content).toMatchObject({
      incorrectDecision: 'NO_WRITE',
      correctDecision: 'UPDATE_USER',
      correctFact: 'Sister Lily lives in Hangzhou',
    });
    expect(count(f, 'source_key = ?', `pos:nowrite:${f.ids.gina0.decisionId}`)).toBe(0);
    expect(gina.annotationStatus).toBe('needs_review');

    // write_guardian sample carries the file content before the write and the correction
    const wg = bySource(f, `wg:${f.ids.carol0.auditId}`);
    expect(wg.content).toMatchObject({
      type: 'write_guardian_decision',
      targetFile: 'USER.md',
      decision: 'written',
      userCorrection: { correctedDecision: 'refused' },
    });
    expect((wg.content as { currentFileContent: string }).currentFileContent).toContain('prefers morning check-ins');
    const turn = bySource(f, `turn:${f.ids.dave1.decisionId}`);
    expect(turn.content).toMatchObject({
      type: 'annotated_turn',
      conversationId: S.dave,
      memoryGate: { label: 'incorrect' },
      writeGuardian: { label: 'incorrect' },
    });

    const before = count(f);
    const signals = f.db.prepare('SELECT count(*) FROM dataset_feedback_signals').pluck().get();
    const second = await collectSamples(f.ctx, { autoApprove: true });
    expect(second.addedTotal).toBe(0);
    expect(second.alreadyCollected).toBe(before);
    expect(count(f)).toBe(before);
    expect(f.db.prepare('SELECT count(*) FROM dataset_feedback_signals').pluck().get()).toBe(signals);
  });

  it('stores feedback signals with their evidence, in English and Chinese', async () => {
    const f = await buildFixture();
    await collectSamples(f.ctx, {});
    const rows = f.db
      .prepare('SELECT type, language, evidence, confidence, session_id FROM dataset_feedback_signals ORDER BY session_id, rule')
      .all() as {
      type: string;
      language: string;
      evidence: string;
      confidence: number;
      session_id: string;
    }[];
    const carol = rows.filter((r) => r.session_id === S.carol);
    expect(carol.map((r) => r.type)).toEqual(['reject', 'reject']);
    expect(carol[0]).toMatchObject({ language: 'zh', evidence: '不对，别记我的邮箱。' });
    const alice = rows.filter((r) => r.session_id === S.alice);
    expect(alice.every((r) => r.type === 'success' && r.language === 'en' && r.evidence === 'Thanks, perfect!')).toBe(true);
    for (const r of rows) expect(r.confidence).toBeGreaterThanOrEqual(0.5);
    // the user's objection reaches the samples of the turn it follows
    const carolTurn = f.db
      .prepare('SELECT labels FROM dataset_samples WHERE source_key = ?')
      .pluck()
      .get(`turn:${f.ids.carol0.decisionId}`) as string;
    expect(JSON.parse(carolTurn).reviewReasons).toContain('userFeedbackReceived');
  });

  it('matches later samples against apply-to-future corrections and clusters exact duplicates', async () => {
    const f = await buildFixture();
    await collectSamples(f.ctx, { autoApprove: true });
    const erin = (['erin0', 'erin1', 'erin2'] as const).map((k) => bySource(f, `pos:${f.ids[k].decisionId}`));
    const hankCorrection = f.db.prepare('SELECT id FROM behavior_corrections WHERE audit_id = ?').pluck().get(f.ids.hank0.auditId);
    for (const s of erin) {
      expect(s.labels.matchesApprovedPattern).toBe(hankCorrection);
      expect(s.labels.autoApproveReasons).toContain('matchesApprovedPattern');
    }
    expect(new Set(erin.map((s) => s.clusterId)).size).toBe(1);
    expect(erin[1]!.labels.duplicateOf).toBe(erin[0]!.id);
    expect(erin[0]!.fingerprint).toBe(erin[2]!.fingerprint);
    // alice and bob said the same words and got the same target: one lesson, one cluster, although
    // their agents replied differently; alice's next turn (a NO_WRITE, same session) is another lesson
    const alice = bySource(f, `pos:${f.ids.alice0.decisionId}`);
    const bob = bySource(f, `pos:${f.ids.bob0.decisionId}`);
    expect(bob.clusterId).toBe(alice.clusterId);
    expect(bySource(f, `pos:nowrite:${f.ids.alice1.decisionId}`).clusterId).not.toBe(alice.clusterId);
    // dedupe looked at the redacted text: units stored for the exact check hold no PII
    const units = f.db.prepare('SELECT unit FROM dataset_minhash').pluck().all() as string[];
    expect(units.length).toBeGreaterThan(0);
    for (const u of units) expect(u).not.toContain(PII.email.split('@')[0]);
  });

  it('scores three quality factors with configurable weights and stores them', async () => {
    const f = await buildFixture();
    await collectSamples(f.ctx, {});
    const alice = bySource(f, `pos:${f.ids.alice0.decisionId}`);
    expect(alice.qualityFactors).toEqual({ conversationClarity: 1, decisionConfidence: 0.95, factVerifiability: 1 });
    expect(alice.qualityScore).toBeCloseTo(0.4 * 1 + 0.35 * 0.95 + 0.25 * 1, 3);
    // a hedged reason ("Maybe") lowers confidence
    const dave = bySource(f, `turn:${f.ids.dave1.decisionId}`);
    expect(dave.qualityFactors!.decisionConfidence).toBeLessThan(0.9);

    const g = await buildFixture();
    await collectSamples(g.ctx, {
      config: { qualityScoring: { weights: { conversationClarity: 0, decisionConfidence: 1, factVerifiability: 0 } } },
    });
    const alice2 = bySource(g, `pos:${g.ids.alice0.decisionId}`);
    expect(alice2.qualityScore).toBe(0.95);
  });

  it('detects PII at collection and keeps typed, numbered placeholders consistent within a sample', async () => {
    const f = await buildFixture();
    await collectSamples(f.ctx, {});
    const wg = bySource(f, `turn:${f.ids.carol0.decisionId}`);
    expect(wg.containsPii).toBe(true);
    expect(wg.privacyChecked).toBe(true);
    const types = new Set(wg.piiSpans.map((s) => s.type));
    expect(types.has('EMAIL')).toBe(true);
    expect(types.has('PHONE')).toBe(true);
    for (const s of wg.piiSpans)
      expect(s).toMatchObject({ accepted: true, field: expect.any(String), start: expect.any(Number), end: expect.any(Number) });
    const redacted = JSON.stringify(wg.piiRedactedContent);
    expect(redacted).not.toContain(PII.email);
    expect(redacted).not.toContain(PII.mobile);
    // the same email in the context, the gate output and the guardian input is [EMAIL_1] everywhere
    expect(redacted.match(/\[EMAIL_1\]/g)!.length).toBeGreaterThanOrEqual(3);
    expect(redacted).not.toContain('[EMAIL_2]');
    expect(wg.labels.reviewReasons).toContain('containsSensitiveInfo');
    const key = bySource(f, `neg:${f.ids.dave0.decisionId}`);
    expect(JSON.stringify(key.piiRedactedContent)).not.toContain(PII.apiKey);
  });

  it('uses the configured rollback window: a rollback after it leaves a positive', async () => {
    const f = await buildFixture();
    await collectSamples(f.ctx, { config: { positiveCriteria: { notRolledBackWithinDays: 1 } } });
    expect(count(f, 'source_key = ?', `neg:rollback:${f.ids.dave1.auditId}`)).toBe(0);
    const pos = bySource(f, `pos:${f.ids.dave1.decisionId}`);
    expect(pos.labels.criteria).toMatchObject({ wasWritten: true });
    // turning off the guardian-refused criterion drops that negative
    const g = await buildFixture();
    await collectSamples(g.ctx, { config: { negativeCriteria: { guardianRefused: false } } });
    expect(count(g, 'source_key = ?', `neg:${g.ids.dave0.decisionId}`)).toBe(0);
    expect(count(g, 'source_key = ?', `wg:${g.ids.dave0.auditId}`)).toBe(1);
  });

  it('supports dry runs, type filters, sessions, time windows and cancellation', async () => {
    const f = await buildFixture();
    const dry = await collectSamples(f.ctx, { dryRun: true });
    expect(dry.addedTotal).toBe(31);
    expect(count(f)).toBe(0);
    expect(f.db.prepare('SELECT count(*) FROM dataset_feedback_signals').pluck().get()).toBe(0);

    const neg = await collectSamples(f.ctx, { type: 'negative' });
    expect(neg.addedTotal).toBe(5);
    expect(count(f, "sample_type <> 'memory_gate_negative'")).toBe(0);

    const one = await collectSamples(f.ctx, { sessionId: S.alice });
    expect(one.decisionsScanned).toBe(2);
    expect(listSamples(f.ctx, { sessionId: S.alice }).items.length).toBe(4);

    const controller = new AbortController();
    controller.abort();
    const cancelled = await collectSamples({ ...f.ctx, signal: controller.signal }, {});
    expect(cancelled.cancelled).toBe(true);
    expect(cancelled.decisionsScanned).toBe(0);

    await expect(collectSamples(f.ctx, { type: 'bogus' as never })).rejects.toThrow(/type must be/);
    const none = await collectSamples(f.ctx, { since: Date.UTC(2030, 0, 1) });
    expect(none.decisionsScanned).toBe(0);
  });
});
