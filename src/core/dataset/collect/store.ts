// Storing an assessed draft: its deterministic id, its cluster (dedupe), and its row.
import { hash } from 'node:crypto';
import { encodeTime } from 'ulid';
import type { DB } from '../../db/connection';
import { insertCollectedSample, type CollectDecisionRow } from '../../db/repositories/collect';
import type { ClusterAssignment, Deduper } from '../dedupe';
import type { SampleContent } from '../types';
import type { Assessment } from './assess';
import type { Draft } from './rules';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

let lastTime = NaN;
let lastTimePrefix = '';

/**
 * A ULID-shaped id: the decision's time, then 80 bits of SHA-256 of the source key. Deterministic
 * (one source, one id) and much cheaper than 100,000 calls to a crypto random source.
 */
export function sampleId(time: number, sourceKey: string): string {
  const h = hash('sha256', sourceKey, 'buffer'); // one-shot: half the cost of createHash().update().digest()
  // a decision's samples share its time: encoded once
  if (time !== lastTime) {
    lastTimePrefix = encodeTime(time, 10);
    lastTime = time;
  }
  let out = lastTimePrefix;
  let bits = 0;
  let acc = 0;
  for (let i = 0; out.length < 26;) {
    if (bits < 5) {
      acc = (acc << 8) | h[i++]!; // 26 characters use 16 of the digest's 32 bytes
      bits += 8;
    }
    out += CROCKFORD[(acc >> (bits - 5)) & 31];
    bits -= 5;
    acc &= (1 << bits) - 1;
  }
  return out;
}

/** Clusters an assessed draft: duplicate and related links go into its labels. */
export function clusterDraft(dedupe: Deduper, id: string, draft: Draft, assessed: Assessment): ClusterAssignment {
  const cluster = dedupe.assign(id, (assessed.redacted ?? draft.content) as SampleContent);
  if (cluster.duplicateOf) assessed.labels.duplicateOf = cluster.duplicateOf;
  if (cluster.relatedSampleIds.length) assessed.labels.relatedSampleIds = cluster.relatedSampleIds;
  return cluster;
}

export interface StoredSampleInput {
  id: string;
  d: CollectDecisionRow;
  draft: Draft;
  assessed: Assessment;
  cluster: ClusterAssignment;
  /** The decision's feedback signals as stored (JSON, null when none): one text for all its samples. */
  signalsJson: string | null;
  privacyChecked: boolean;
  now: number;
}

/** Inserts the sample row; false when its source key was already collected. */
export function storeSample(db: DB, s: StoredSampleInput): boolean {
  const { d, draft, assessed: a } = s;
  const approved = a.status === 'auto_approved';
  return (
    insertCollectedSample(db, {
      id: s.id,
      type: draft.type,
      turnId: d.turn_id,
      decisionId: d.id,
      auditId: draft.auditId ?? null,
      correctionId: draft.correctionId ?? null,
      sessionId: d.session_id,
      content: JSON.stringify(draft.content),
      score: a.score,
      factors: a.factors ? JSON.stringify(a.factors) : null,
      status: a.status,
      annotatedBy: approved ? 'auto' : null,
      annotatedAt: approved ? s.now : null,
      privacyChecked: s.privacyChecked ? 1 : 0,
      containsPii: a.spans.length ? 1 : 0,
      redacted: a.redacted ? JSON.stringify(a.redacted) : null,
      spans: a.spans.length ? JSON.stringify(a.spans) : null,
      signals: s.signalsJson,
      fingerprint: s.cluster.fingerprint,
      clusterId: s.cluster.clusterId,
      sourceKey: draft.sourceKey,
      strategy: draft.strategy,
      createdAt: d.created_at,
      labels: JSON.stringify(a.labels),
    }) > 0
  );
}
