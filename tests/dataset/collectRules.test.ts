// Collection's rules without a database (issue 15's split of collectSamples): a decision's facts in,
// drafts out. The lookups are plain maps, so each rule's branch is checked on its own.
import { describe, expect, it } from 'vitest';
import { defaultDatasetConfig } from '../../src/core/dataset/config';
import { draftsFor, type DecisionFacts, type FactLookups } from '../../src/core/dataset/collect/rules';
import type { CollectAuditRow, CollectCorrectionRow, CollectDecisionRow } from '../../src/core/db/repositories/collect';

const NOW = Date.UTC(2026, 1, 1);
const DAY = 86_400_000;
const cfg = defaultDatasetConfig();

const decision = (over: Partial<CollectDecisionRow> = {}): CollectDecisionRow => ({
  seq: 1,
  id: 'D1',
  turn_id: 'T1',
  session_id: 's1',
  decision: 'UPDATE_USER',
  reason: 'A stable preference.',
  candidate_fact: 'prefers tea',
  raw_response: null,
  created_at: NOW - 30 * DAY,
  turn_number: 3,
  user_message_content: 'I prefer tea.',
  agent_message_content: 'Tea it is.',
  turn_created_at: NOW - 30 * DAY,
  ...over,
});
const audit = (over: Partial<CollectAuditRow> = {}): CollectAuditRow => ({
  id: 'A1',
  target_file: 'USER.md',
  candidate_fact: 'prefers tea',
  before_snapshot_id: 'S0',
  after_snapshot_id: 'S1',
  status: 'written',
  reason: 'Applied.',
  created_at: NOW - 30 * DAY,
  rolled_back_at: null,
  rollback_reason: null,
  ...over,
});
const facts = (d: CollectDecisionRow, a?: CollectAuditRow, extra: Partial<DecisionFacts> = {}): DecisionFacts => ({
  d,
  audit: a,
  signalTypes: [],
  objection: false,
  laterTurns: [],
  conversation: [
    { role: 'user', message: d.user_message_content },
    { role: 'agent', message: d.agent_message_content },
  ],
  ...extra,
});
function lookups(over: Partial<FactLookups> = {}): FactLookups {
  return {
    correctionOf: () => undefined,
    gateCorrectionOf: () => undefined,
    laterWriteOf: () => undefined,
    fileBefore: () => '# User\n',
    fileAfter: () => '# User\n- prefers tea\n',
    ...over,
  };
}
const keys = (drafts: { sourceKey: string }[]) => drafts.map((x) => x.sourceKey);

describe('collection rules', () => {
  it('a written write: a positive, the guardian sample with both file versions, and the annotated turn', () => {
    const drafts = draftsFor(facts(decision(), audit(), { signalTypes: ['success'] }), lookups(), cfg, NOW);
    expect(keys(drafts)).toEqual(['pos:D1', 'wg:A1', 'turn:D1']);
    expect(drafts[0]!.content).toMatchObject({ correctDecision: 'UPDATE_USER', evidence: { wasWritten: true, userFeedback: 'confirmed' } });
    expect(drafts[0]!.labels).toEqual({ criteria: { wasWritten: true, noUserObjection: true, notRolledBackWithinDays: true } });
    expect(drafts[1]!.content).toMatchObject({
      currentFileContent: '# User\n',
      newFileContent: '# User\n- prefers tea\n',
      decision: 'written',
    });
    expect(drafts[2]!.content).toMatchObject({ memoryGate: { label: 'correct' }, writeGuardian: { label: 'correct' } });
  });

  it('a refusal is a negative for the gate and a refused guardian sample without a new file', () => {
    const drafts = draftsFor(
      facts(decision(), audit({ status: 'refused', reason: 'Duplicate.', after_snapshot_id: null })),
      lookups(),
      cfg,
      NOW,
    );
    expect(keys(drafts)).toEqual(['neg:D1', 'wg:A1', 'turn:D1']);
    expect(drafts[0]).toMatchObject({
      evidence: 'guardian_refused',
      labeledWrite: false,
      content: { correctDecision: 'NO_WRITE', rejectionReason: 'Duplicate.' },
    });
    expect(drafts[1]!.content).not.toHaveProperty('newFileContent');
    expect(drafts[2]!.content).toMatchObject({ memoryGate: { label: 'incorrect' }, writeGuardian: { label: 'correct' } });
  });

  it('a rollback inside the window is a negative; after the window the write stays a positive', () => {
    const early = audit({ rolled_back_at: NOW - 29 * DAY, rollback_reason: 'Wrong.' });
    expect(keys(draftsFor(facts(decision(), early), lookups(), cfg, NOW))).toEqual(['neg:rollback:A1', 'wg:A1', 'turn:D1']);
    const late = audit({ rolled_back_at: NOW - 1 * DAY });
    expect(keys(draftsFor(facts(decision(), late), lookups(), cfg, NOW))[0]).toBe('pos:D1');
  });

  it("a curator's correction to another file makes a negative and a positive with the corrected fact", () => {
    const correction: CollectCorrectionRow = {
      id: 'C1',
      original_status: 'written',
      original_candidate_fact: 'prefers tea',
      original_target_file: 'USER.md',
      corrected_status: 'written',
      corrected_candidate_fact: 'team drinks tea',
      corrected_target_file: 'MEMORY.md',
      correction_reason: 'A team fact.',
      corrected_at: NOW - DAY,
    };
    const drafts = draftsFor(
      facts(decision(), audit()),
      lookups({ correctionOf: (id) => (id === 'A1' ? correction : undefined) }),
      cfg,
      NOW,
    );
    expect(keys(drafts)).toEqual(['neg:corr:C1', 'pos:corr:C1', 'wg:A1', 'turn:D1']);
    expect(drafts[1]!.content).toMatchObject({ correctDecision: 'UPDATE_MEMORY', correctFact: 'team drinks tea' });
    expect(drafts[2]!.content).toMatchObject({ userCorrection: { correctedDecision: 'written', correctedTargetFile: 'MEMORY.md' } });
  });

  it('NO_WRITE teaches not writing, unless the user later asked to remember the same thing', () => {
    const d = decision({ decision: 'NO_WRITE', candidate_fact: null, user_message_content: 'I always prefer green tea in the morning.' });
    expect(keys(draftsFor(facts(d), lookups(), cfg, NOW))).toEqual(['pos:nowrite:D1']);
    const later = { id: 'T9', text: 'Remember: I always prefer green tea in the morning.' };
    const drafts = draftsFor(
      facts(d, undefined, { laterTurns: [later] }),
      lookups({ laterWriteOf: () => ({ decision: 'UPDATE_USER', candidate_fact: 'prefers tea' }) }),
      cfg,
      NOW,
    );
    expect(keys(drafts)).toEqual(['neg:later:D1']);
    expect(drafts[0]).toMatchObject({
      labels: { userLaterRequestedSimilar: true },
      content: { correctDecision: 'UPDATE_USER', correctFact: 'prefers tea' },
    });
  });

  it('a proposed write that write_guardian never judged yields nothing while wasWritten is required', () => {
    expect(draftsFor(facts(decision()), lookups(), cfg, NOW)).toEqual([]);
  });
});
