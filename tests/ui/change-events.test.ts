// Change events name what changed, and a dry run is a read (issue 14, item 15): a preview announces
// nothing and stores no idempotency row; a real mutation announces its areas and ids.
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeEvent } from '../../src/shared/contract';
import { dbPathFor } from '../../src/core/db/connection';
import { generateDemoWorkspace } from '../../src/core/demo';
import { serveWorkspace, type WorkbenchServer } from '../helpers/browser';
import { tempWorkspace } from '../helpers/workspace';
import { call } from '../app/http';

let served: WorkbenchServer;
let dir: string;
const events: ChangeEvent[] = [];
beforeAll(async () => {
  dir = tempWorkspace('reflection-events-');
  generateDemoWorkspace(dir, { sessions: 6, seed: 3 });
  served = await serveWorkspace(dir);
  served.runtime.session.onChange((e) => events.push(e));
});
afterAll(async () => {
  await served?.close();
});

const dataEvents = () => events.filter((e): e is Extract<ChangeEvent, { type: 'data' }> => e.type === 'data');
const port = () => Number(new URL(served.origin).port);

function latestWrite(): string {
  const db = new Database(dbPathFor(dir), { readonly: true });
  try {
    return (
      db.prepare(`SELECT id FROM write_guardian_audit WHERE status = 'written' ORDER BY created_at DESC LIMIT 1`).get() as { id: string }
    ).id;
  } finally {
    db.close();
  }
}

function idempotencyRows(): number {
  const db = new Database(dbPathFor(dir), { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM api_idempotency').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

describe('change events', () => {
  it('a dry-run rollback announces nothing and stores no idempotency row; the real one names writes and the audit', async () => {
    const auditId = latestWrite();
    events.length = 0;
    const rowsBefore = idempotencyRows();
    for (let i = 0; i < 3; i++) {
      const r = await call(
        port(),
        served.token,
        'guardian.rollback',
        { auditId, reason: 'preview', dryRun: true },
        { 'Idempotency-Key': `dry-${i}` },
      );
      expect(r.status).toBe(200);
    }
    served.runtime.session.checkDataVersion();
    expect(dataEvents()).toEqual([]);
    expect(idempotencyRows()).toBe(rowsBefore);

    const r = await call(
      port(),
      served.token,
      'guardian.rollback',
      { auditId, reason: 'not a lasting fact' },
      { 'Idempotency-Key': 'real-1' },
    );
    expect(r.status).toBe(200);
    expect(idempotencyRows()).toBe(rowsBefore + 1);
    const [event] = dataEvents();
    expect(event?.areas).toEqual(['writes']);
    expect(event?.ids).toContain(auditId);
  });

  it("collect's dry run announces nothing when its job ends; the real collect names samples, though it writes on its own connection", async () => {
    events.length = 0;
    const run = async (dryRun: boolean) => {
      const handle = (await served.runtime.registry.dispatch('dataset.collect', { dryRun })) as { ok: true; value: { jobId: string } };
      await expect.poll(() => served.runtime.jobs.get(handle.value.jobId).state, { timeout: 20_000 }).not.toBe('running');
    };
    await run(true);
    expect(dataEvents()).toEqual([]);
    await run(false);
    // Jobs run on their own connection: their commits (seen while polling, and at the end) are still
    // announced as theirs, not as an unknown writer's.
    const areas = dataEvents().map((e) => e.areas);
    expect(areas.length).toBeGreaterThan(0);
    expect(areas.every((a) => JSON.stringify(a) === JSON.stringify(['samples']))).toBe(true);
  });

  it('a write by another connection (the CLI, the plugin) is announced without areas: any view may need it', () => {
    events.length = 0;
    const db = new Database(dbPathFor(dir));
    db.prepare('UPDATE sessions SET channel_id = channel_id WHERE rowid = (SELECT min(rowid) FROM sessions)').run();
    db.close();
    served.runtime.session.checkDataVersion();
    const [event] = dataEvents();
    expect(event).toBeDefined();
    expect(event?.areas).toBeUndefined();
  });
});
