// Issue 17, gap 6 (guardian part) through the API the UI calls: a retry needs a reason; a correction
// recorded after a retry is linked to it and keeps what write_guardian originally did ('written', not
// the 'rolled_back' the curator's rollback left); a session rollback honours per-write skip and force.
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Channel, CorrectionDto, SessionRollbackOutcome } from '../../src/shared/contract';
import { dbPathFor } from '../../src/core/db/connection';
import { generateDemoWorkspace } from '../../src/core/demo';
import { serveWorkspace, type WorkbenchServer } from '../helpers/browser';
import { tempWorkspace } from '../helpers/workspace';

let served: WorkbenchServer;
let dir: string;
beforeAll(async () => {
  dir = tempWorkspace('reflection-followups-');
  generateDemoWorkspace(dir, { sessions: 6, seed: 5 });
  served = await serveWorkspace(dir);
});
afterAll(async () => {
  await served?.close();
});

async function call<T>(
  channel: Channel,
  input: unknown,
): Promise<{ ok: true; value: T } | { ok: false; error: { kind: string; message: string } }> {
  return (await served.runtime.registry.dispatch(channel, input)) as never;
}
async function ok<T>(channel: Channel, input: unknown): Promise<T> {
  const r = await call<T>(channel, input);
  if (!r.ok) throw new Error(`${channel}: ${r.error.message}`);
  return r.value;
}
function query<T>(sql: string, ...params: unknown[]): T {
  const db = new Database(dbPathFor(dir), { readonly: true });
  try {
    return db.prepare(sql).get(...params) as T;
  } finally {
    db.close();
  }
}

describe('retry and correction follow-ups', () => {
  it('a retry without a reason is refused; with one, the reason is kept on the retry write', async () => {
    const a = query<{ id: string }>(
      `SELECT id FROM write_guardian_audit WHERE status = 'written' AND candidate_fact IS NOT NULL ORDER BY created_at LIMIT 1`,
    );
    const refused = await call('guardian.retry', { auditId: a.id, fact: 'User prefers oolong tea' });
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.error).toMatchObject({ kind: 'Invalid', message: expect.stringMatching(/^reason:/) });
    const r = await ok<{ auditId: string }>('guardian.retry', {
      auditId: a.id,
      fact: 'User prefers oolong tea',
      reason: 'The user said oolong, not green tea.',
    });
    expect(query<{ reason: string }>('SELECT reason FROM write_guardian_audit WHERE id = ?', r.auditId).reason).toBe(
      'The user said oolong, not green tea.',
    );
  });

  it('a correction recorded after a rollback and a retry is linked to the retry and stores the original status', async () => {
    // The newest write of its file rolls back cleanly.
    const a = query<{ id: string }>(
      `SELECT a.id FROM write_guardian_audit a WHERE a.status = 'written' AND a.source = 'plugin' AND a.candidate_fact IS NOT NULL
         AND a.created_at = (SELECT max(created_at) FROM write_guardian_audit b WHERE b.target_file = a.target_file)
       ORDER BY a.created_at DESC LIMIT 1`,
    );
    await ok('guardian.rollback', { auditId: a.id, reason: 'wrong fact' });
    const retry = await ok<{ auditId: string }>('guardian.retry', {
      auditId: a.id,
      fact: 'The corrected fact',
      reason: 'corrected by hand',
    });
    const c = await ok<CorrectionDto>('guardian.correct', {
      auditId: a.id,
      status: 'written',
      fact: 'The corrected fact',
      reason: 'the gate picked the wrong fact',
    });
    expect(c.retryAuditId).toBe(retry.auditId);
    expect(c.originalStatus).toBe('written');
  });
});

describe('session rollback choices', () => {
  it('skip leaves a write alone and force restores over a conflict, per write', async () => {
    const s = query<{ session_id: string }>(
      `SELECT session_id FROM write_guardian_audit WHERE status = 'written' AND source = 'plugin' GROUP BY session_id HAVING count(*) >= 2 ORDER BY count(*) DESC LIMIT 1`,
    );
    const preview = await ok<SessionRollbackOutcome>('guardian.rollbackSession', {
      sessionId: s.session_id,
      reason: 'preview',
      dryRun: true,
    });
    expect(preview.results.length).toBeGreaterThanOrEqual(2);
    const [newest, ...rest] = preview.results;
    if (!newest) throw new Error('the preview rolls back nothing');
    const skipped = await ok<SessionRollbackOutcome>('guardian.rollbackSession', {
      sessionId: s.session_id,
      reason: 'preview',
      dryRun: true,
      skip: [newest.auditId],
    });
    expect(skipped.results.find((r) => r.auditId === newest.auditId)).toMatchObject({ status: 'skipped', conflict: null });
    expect(skipped.results.every((r) => typeof r.createdAt === 'number')).toBe(true);
    const forced = await ok<SessionRollbackOutcome>('guardian.rollbackSession', {
      sessionId: s.session_id,
      reason: 'preview',
      dryRun: true,
      skip: [newest.auditId],
      forceIds: rest.map((r) => r.auditId),
    });
    expect(forced.results.filter((r) => r.status !== 'skipped').every((r) => r.conflict === null)).toBe(true);
    expect(
      query<{ n: number }>(`SELECT count(*) AS n FROM write_guardian_audit WHERE id = ? AND status = 'written'`, newest.auditId).n,
    ).toBe(1);
  });
});
