// Issue 16: the UI stays responsive during a long job. A large collection is started from the Datasets
// view; while it runs (in a worker thread), navigating to other views and loading their list pages still
// answers quickly. The bound is generous on purpose: a functional check on a shared machine, not a benchmark.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWorkspace } from '../../bench/dataset/workspace';
import { activeJobWorkers } from '../../src/api/jobs/runner';
import { openWorkbench, type BrowserSession } from '../helpers/browser';
import { tempWorkspace } from '../helpers/workspace';
import { go } from '../ui/support';

const DECISIONS = 6000;
let wb: BrowserSession;

beforeAll(async () => {
  const dir = tempWorkspace('reflection-ui-job-');
  buildWorkspace(dir, DECISIONS).close();
  wb = await openWorkbench(dir, { waitFor: '[data-testid=view-sessions]' });
}, 180_000);
afterAll(async () => {
  await wb?.close();
});

const running = () => wb.runtime.jobs.list().find((j) => j.channel === 'dataset.collect');

describe('UI during a long collection', () => {
  it('navigation and list pages answer while the collection runs', async () => {
    const { page } = wb;
    await go(page, '#/datasets', '[data-testid=collect-panel]');
    await page.locator('[data-testid=collect-panel] button.primary', { hasText: 'Collect' }).click();
    await expect.poll(() => running()?.done ?? 0, { timeout: 60_000 }).toBeGreaterThan(0);
    expect(activeJobWorkers()).toBe(1);

    const timings: Record<string, number> = {};
    for (const [hash, ready] of [
      ['#/decisions', '[data-testid=decision-row]'],
      ['#/sessions', '[data-testid=session-row]'],
      ['#/datasets', '[data-testid=collect-panel]'],
      ['#/decisions', '[data-testid=decision-row]'],
    ] as const) {
      const t0 = performance.now();
      await go(page, hash, ready);
      timings[hash] = Math.max(timings[hash] ?? 0, performance.now() - t0);
      expect(performance.now() - t0, `${hash} while collecting`).toBeLessThan(2000);
    }
    await wb.screenshot('perf-navigation-during-collect');
    // every navigation above happened while the job was still running
    expect(running()?.state).toBe('running');
    expect(running()!.done).toBeLessThan(DECISIONS);

    await expect.poll(() => running()?.state, { timeout: 240_000, interval: 500 }).toBe('done');
    const result = running()!.result as { scanned: number; added: number };
    expect(result.scanned).toBe(DECISIONS);
    expect(result.added).toBeGreaterThan(DECISIONS);
    console.log(
      `navigation during collect (ms): ${JSON.stringify(Object.fromEntries(Object.entries(timings).map(([k, v]) => [k, Math.round(v)])))}`,
    );
  }, 300_000);
});

describe('cancelling a collection from the UI', () => {
  it('shows the job as cancelling until the worker has stopped and built its indexes again', async () => {
    const { page } = wb;
    // the first test collected everything: a fresh workspace, so this run sets indexes aside again
    const fresh = tempWorkspace('reflection-ui-cancel-');
    buildWorkspace(fresh, DECISIONS).close();
    wb.runtime.session.open(fresh);
    await page.reload();
    await go(page, '#/datasets', '[data-testid=collect-panel]');
    // every text the status bar's progress shows, in order, whatever the timing of the renders
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { progressSeen: string[] }).progressSeen = seen;
      new MutationObserver(() => {
        for (const el of document.querySelectorAll('footer .progress')) {
          const text = el.textContent ?? '';
          if (seen.at(-1) !== text) seen.push(text);
        }
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    await page.locator('[data-testid=collect-panel] button.primary', { hasText: 'Collect' }).click();
    await expect.poll(() => running()?.done ?? 0, { timeout: 60_000 }).toBeGreaterThan(0);
    const job = running()!;
    expect(job.state).toBe('running');

    await page.locator('[data-testid=collect-panel] .progress button', { hasText: 'Cancel' }).click();
    const stopping = page.locator('footer .progress button', { hasText: 'Stopping…' });
    await stopping.waitFor({ timeout: 5000 });
    expect(await stopping.isDisabled()).toBe(true);
    await wb.screenshot('perf-collect-cancelling');

    await expect.poll(() => wb.runtime.jobs.get(job.jobId).state, { timeout: 120_000, interval: 100 }).toBe('cancelled');
    await page.locator('footer .progress').waitFor({ state: 'detached', timeout: 10_000 });
    const seen = await page.evaluate(() => (window as unknown as { progressSeen: string[] }).progressSeen);
    expect(seen.some((t) => t.startsWith('Cancelling · Collecting samples'))).toBe(true);
    // the steps after the cancel: the worker went on to build the indexes it had set aside
    expect(wb.runtime.jobs.get(job.jobId).label).toBe('rebuilding indexes');
    const db = wb.runtime.session.db;
    expect(db.prepare('SELECT count(*) FROM deferred_indexes').pluck().get()).toBe(0);
    expect(db.prepare("SELECT count(*) FROM sqlite_schema WHERE name = 'idx_samples_cluster_filters'").pluck().get()).toBe(1);
  }, 300_000);
});
