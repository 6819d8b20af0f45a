// A team on one shared host in browser mode: two curators, each with their own token, in two
// separate Chromium profiles, are served different samples; their labels are attributed to them; a
// second pass by the other curator produces an agreement figure in Stats, and the lead settles the
// disagreement there.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCurator } from '../../src/core/curation/curators';
import { collectSamples } from '../../src/core/dataset';
import { launchChromium, saveScreenshot } from '../helpers/browser';
import { go, noErrorsOnScreen, startUi, type UiFixture } from './support';

let ui: UiFixture;
const browsers: Awaited<ReturnType<typeof launchChromium>>[] = [];
const tokens: Record<string, string> = {};

beforeAll(async () => {
  process.env.REFLECTION_STATE_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'reflection-state-'));
  ui = await startUi(16);
  const ctx = ui.wb.runtime.session.serviceContext();
  await collectSamples(ctx, {});
  for (const name of ['ann', 'bob']) tokens[name] = addCurator(ctx, { name }).token;
}, 120_000);
afterAll(async () => {
  for (const b of browsers) await b.close();
  await ui?.close();
});

async function curatorPage(name: string): Promise<Page> {
  const chrome = await launchChromium({ width: 1400, height: 900 });
  browsers.push(chrome);
  const page = chrome.context.pages()[0] ?? (await chrome.context.newPage());
  await page.goto(`${ui.wb.origin}/?token=${tokens[name]}`, { waitUntil: 'load' });
  await page.waitForSelector('[data-testid=view-sessions]', { timeout: 15_000 });
  return page;
}

const shown = (page: Page) => page.locator('[data-testid=review-sample]').getAttribute('data-sample-id');
const row = (id: string) =>
  ui.db.prepare('SELECT annotation_status AS status, annotated_by AS by FROM dataset_samples WHERE id = ?').get(id) as {
    status: string;
    by: string;
  };

describe('two curators in two browsers', () => {
  let ann: Page;
  let bob: Page;
  const annLabels = new Map<string, 'approved' | 'rejected'>();

  it('serves them different samples and records who labelled what', async () => {
    ann = await curatorPage('ann');
    await go(ann, '#/review', '[data-testid=review-sample]');
    const annFirst = (await shown(ann))!;
    await expect
      .poll(() => ui.db.prepare('SELECT curator FROM review_reservations WHERE sample_id = ?').get(annFirst))
      .toEqual({ curator: 'ann' });
    bob = await curatorPage('bob');
    await go(bob, '#/review', '[data-testid=review-sample]');
    const bobFirst = (await shown(bob))!;
    expect(bobFirst).not.toBe(annFirst);
    expect(await bob.locator('[data-testid=review-curator]').innerText()).toContain('bob');
    await saveScreenshot(ann, 'team-ann-review');
    await saveScreenshot(bob, 'team-bob-review');
    // Ann labels four samples with the keyboard: approve, reject, approve, reject.
    await ann.locator('body').click({ position: { x: 5, y: 5 } });
    for (const key of ['a', 'r', 'a', 'r'] as const) {
      const id = (await shown(ann))!;
      await ann.keyboard.press(key);
      await expect.poll(() => row(id)).toEqual({ status: key === 'a' ? 'approved' : 'rejected', by: 'ann' });
      annLabels.set(id, key === 'a' ? 'approved' : 'rejected');
      await expect.poll(() => shown(ann)).not.toBe(id);
    }
    // none of them was served to Bob meanwhile
    expect(annLabels.has(bobFirst)).toBe(false);
    // and once her calls are answered Ann holds none of the samples she decided
    const labelled = [...annLabels.keys()];
    await expect
      .poll(() =>
        ui.db
          .prepare(`SELECT count(*) AS n FROM review_reservations WHERE sample_id IN (${labelled.map(() => '?').join(',')})`)
          .get(...labelled),
      )
      .toEqual({ n: 0 });
  });

  it('runs a second pass by the other curator and shows the agreement in Stats', async () => {
    const { page } = ui; // the owner: a lead
    await go(page, '#/stats', '[data-testid=agreement-panel]');
    await page.getByLabel('Share of labelled samples (%)').fill('100');
    await page.locator('[data-testid=second-pass-preview]').click();
    await expect
      .poll(() => page.locator('[data-testid=agreement-panel]').innerText())
      .toContain('4 of 4 samples go to a different curator');
    await page.locator('[data-testid=second-pass-start]').click();
    await expect.poll(() => page.locator('[data-testid=agreement-summary]').innerText()).toContain('4 waiting');
    // Ann is never served her own labels for a second look.
    await go(ann, '#/review?status=second', '[data-testid=review-position]');
    await expect.poll(() => ann.locator('[data-testid=review-position]').innerText()).toBe('The queue is empty');
    // Bob agrees on three and disagrees on the last.
    await go(bob, '#/review?status=second', '[data-testid=review-sample]');

    await expect.poll(() => bob.locator('[data-testid=review-position]').innerText()).toBe('Sample 1 of 4');
    await bob.locator('body').click({ position: { x: 5, y: 5 } });
    let disagreed = '';
    for (let i = 0; i < 4; i++) {
      const id = (await shown(bob))!;
      const first = annLabels.get(id)!;
      expect(first).toBeDefined();
      const agree = i < 3;
      if (!agree) disagreed = id;
      const label = agree ? first : first === 'approved' ? 'rejected' : 'approved';
      await bob.keyboard.press(label === 'approved' ? 'a' : 'r');
      await expect
        .poll(() => ui.db.prepare('SELECT second_label AS l, second_curator AS c FROM review_second_pass WHERE sample_id = ?').get(id))
        .toEqual({ l: label, c: 'bob' });
      // the first label stands until a lead decides
      expect(row(id)).toEqual({ status: first, by: 'ann' });
      if (i < 3) await expect.poll(() => shown(bob)).not.toBe(id);
    }
    // 3 of 4 agree; Ann 2/2, Bob 1/3 or 3/1: chance agreement 0.5, so kappa = (0.75 - 0.5) / 0.5 = 0.50
    await page.reload();
    await page.waitForSelector('[data-testid=agreement-summary]');
    await expect.poll(() => page.locator('[data-testid=agreement-summary]').innerText()).toContain('κ 0.50');
    expect(await page.locator('[data-testid=agreement-summary]').innerText()).toContain('raw agreement 75%');
    expect(await page.locator('[data-testid=kappa-overall]').innerText()).toBe('0.50');
    expect(await page.locator('[data-testid=agreement-curators]').innerText()).toContain('bob: 0 first-pass, 4 second-pass');
    expect(await page.locator('[data-testid=review-by-curator]').innerText()).toMatch(/ann 4.*bob 4|bob 4.*ann 4/);
    const dis = page.locator('[data-testid=disagreement]');
    expect(await dis.count()).toBe(1);
    await page.locator('[data-testid=agreement-panel]').scrollIntoViewIfNeeded();
    await ui.wb.screenshot('team-agreement-stats');
    // The lead settles it: the sample takes the lead's label, attributed to the lead.
    await dis.getByRole('button', { name: 'needs review' }).click();
    await expect.poll(() => dis.count()).toBe(0);
    expect(row(disagreed).status).toBe('needs_review');
    expect(row(disagreed).by).not.toBe('ann');
    await noErrorsOnScreen(page);
    await noErrorsOnScreen(bob);
  });

  it('refuses a revoked curator at once', async () => {
    const { revokeCurator } = await import('../../src/core/curation/curators');
    revokeCurator(ui.wb.runtime.session.serviceContext(), 'bob');
    const status = await bob.evaluate(
      async () => (await fetch('/api/curators.me', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' })).status,
    );
    expect(status).toBe(401);
  });
});
