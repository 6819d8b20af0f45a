// Issue 17, gap 6: collect's dry run computes what the run will do, duplicates included (it reported 0
// where the real run found 88, because the samples it would add never met each other).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CollectResult } from '../../src/shared/contract';
import { generateDemoWorkspace } from '../../src/core/demo';
import { serveWorkspace, type WorkbenchServer } from '../helpers/browser';
import { tempWorkspace } from '../helpers/workspace';
import { openRecorder } from '../../src/recorder';

let served: WorkbenchServer;
beforeAll(async () => {
  const dir = tempWorkspace('reflection-collect-dry-');
  generateDemoWorkspace(dir, { sessions: 10, seed: 11 });
  // The same preference stated in several sessions: the samples it yields are duplicates of each other.
  const rec = openRecorder({ workspaceDir: dir });
  const t = Date.now() - 3_600_000;
  for (let i = 0; i < 4; i++) {
    const sessionId = `dup-${i}`;
    await rec.upsertSession({
      id: sessionId,
      channelId: 'telegram',
      conversationTarget: `dup-${i}`,
      createdAt: t + i,
      lastActivityAt: t + i,
    });
    const turn = await rec.insertTurn({
      sessionId,
      userMessage: { content: 'Please remember that I drink my coffee black, no sugar.' },
      agentReply: { content: 'Noted.' },
      createdAt: t + i,
    });
    await rec.insertDecision({
      turnId: turn.id,
      sessionId,
      decision: 'UPDATE_USER',
      reason: 'a lasting preference',
      candidateFact: 'User drinks coffee black, no sugar.',
      llmCall: { model: 'test' },
      createdAt: t + i,
    });
  }
  rec.close();
  fs.mkdirSync(path.join(dir, '.openclaw-reflection'), { recursive: true });
  served = await serveWorkspace(dir);
});
afterAll(async () => {
  await served?.close();
});

async function collect(dryRun: boolean): Promise<CollectResult> {
  const handle = (await served.runtime.registry.dispatch('dataset.collect', { dryRun })) as { ok: true; value: { jobId: string } };
  await expect.poll(() => served.runtime.jobs.get(handle.value.jobId).state, { timeout: 60_000 }).not.toBe('running');
  const job = served.runtime.jobs.get(handle.value.jobId);
  if (job.state !== 'done') throw new Error(`collect ${job.state}: ${job.error?.message}`);
  return job.result as CollectResult;
}

describe('collect dry run', () => {
  it('reports the same duplicates (and additions) as the real run that follows', async () => {
    const dry = await collect(true);
    const samples = () => (served.runtime.session.db.prepare('SELECT count(*) AS n FROM dataset_samples').get() as { n: number }).n;
    expect(samples()).toBe(0);
    const real = await collect(false);
    // skippedDuplicates counts near-duplicates of other samples (and ones collected before: none here).
    expect(real.skippedDuplicates).toBeGreaterThanOrEqual(3);
    expect(dry.skippedDuplicates).toBe(real.skippedDuplicates);
    expect(dry.added).toBe(real.added);
  }, 120_000);
});
