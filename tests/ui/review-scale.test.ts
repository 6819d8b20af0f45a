// Review at scale in Chromium: one per-value PII decision applied across samples and undone, the
// queue's filters and sort with a bulk approve and its single undo, the guidelines panel (Markdown
// rendered safely), notes, reject reasons, skip, history, and digits that never leave Review.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listPiiValues } from '../../src/core/curation/piiValues';
import { collectSamples } from '../../src/core/dataset';
import { go, noErrorsOnScreen, startUi, type UiFixture } from './support';

let ui: UiFixture;
beforeAll(async () => {
  process.env.REFLECTION_STATE_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'reflection-state-'));
  ui = await startUi(16);
  await collectSamples(ui.wb.runtime.session.serviceContext(), {});
}, 120_000);
afterAll(async () => {
  await ui?.close();
});

const n = (sql: string, ...p: unknown[]) => (ui.db.prepare(sql).get(...p) as { n: number }).n;
const shownSample = () => ui.page.locator('[data-testid=review-sample]').getAttribute('data-sample-id');
/** Spans of a value across the workspace: how many there are and how many are redacted. */
function spansOf(value: string): { spans: number; redacted: number; samples: number } {
  return ui.db
    .prepare(
      `SELECT count(*) AS spans, coalesce(sum(json_extract(j.value, '$.accepted')), 0) AS redacted, count(DISTINCT s.id) AS samples
       FROM dataset_samples s, json_each(s.pii_spans) j WHERE s.pii_spans IS NOT NULL AND lower(json_extract(j.value, '$.value')) = lower(?)`,
    )
    .get(value) as { spans: number; redacted: number; samples: number };
}

describe('PII review at scale', () => {
  it('keeps one value in every sample of the workspace at once, shows how many, and undoes it', async () => {
    const { page } = ui;
    const ctx = ui.wb.runtime.session.serviceContext();
    const value = listPiiValues(ctx).find((v) => v.workspaceSamples >= 2 && v.redacted === v.spans)!;
    expect(value).toBeDefined();
    const sampleId = (
      ui.db.prepare('SELECT id FROM dataset_samples WHERE instr(lower(pii_spans), lower(?)) > 0 LIMIT 1').get(value.value) as { id: string }
    ).id;
    const before = spansOf(value.value);
    expect(before.redacted).toBe(before.spans);
    await go(page, `#/review?status=all&id=${sampleId}`, '[data-testid=privacy-panel]');
    const row = page.locator(`[data-testid=pii-span-row][data-value="${value.value}"]`);
    await expect.poll(() => row.locator('[data-testid=pii-covers]').innerText()).toBe(`${value.workspaceSamples} samples`);
    await row.getByRole('button', { name: 'keep' }).click();
    await expect.poll(() => spansOf(value.value).redacted).toBe(0);
    const decision = page.locator('[data-testid=pii-value-decision]').first();
    await expect.poll(() => decision.innerText()).toContain(`${value.workspaceSamples} samples`);
    expect(await decision.innerText()).toContain('this workspace');
    // Highlights are never hidden in a collapsed section, and a value never wraps mid-way.
    const marks = page.locator('[data-testid=review-sample] .pii');
    expect(await marks.count()).toBeGreaterThan(0);
    for (const m of await marks.all()) expect(await m.isVisible()).toBe(true);
    expect(await marks.first().evaluate((el) => getComputedStyle(el).whiteSpace)).toBe('nowrap');
    await ui.wb.screenshot('review-pii-value-kept-workspace');
    await decision.getByRole('button', { name: 'undo' }).click();
    await expect.poll(() => spansOf(value.value).redacted).toBe(before.spans);
    await expect.poll(() => decision.innerText()).toContain('undone');
    await ui.wb.screenshot('review-pii-value-undone');
    await noErrorsOnScreen(page);
  });
});

describe('queue filters, sort and bulk actions', () => {
  it('filters by type with the true size, sorts by quality, bulk-approves and undoes the batch at once', async () => {
    const { page } = ui;
    await go(page, '#/review', '[data-testid=review-filters]');
    await page.locator('[data-testid=filter-type]').selectOption('memory_gate_positive');
    const open = n(
      "SELECT count(*) AS n FROM dataset_samples WHERE sample_type = 'memory_gate_positive' AND annotation_status = 'pending'",
    );
    expect(open).toBeGreaterThan(1);
    await expect.poll(() => page.locator('[data-testid=review-position]').innerText()).toBe(`Sample 1 of ${open}`);
    await page.locator('[data-testid=filter-sort]').selectOption('quality_asc');
    const lowest = (
      ui.db
        .prepare(
          "SELECT id FROM dataset_samples WHERE sample_type = 'memory_gate_positive' AND annotation_status = 'pending' ORDER BY coalesce(quality_score, -1) ASC, id ASC LIMIT 1",
        )
        .get() as { id: string }
    ).id;
    await expect.poll(shownSample).toBe(lowest);
    expect((await page.locator('[data-testid=review-sample]').innerText()).toLowerCase()).toContain('memory gate positive');
    await page.locator('[data-testid=bulk-approve]').click();
    const dialog = page.locator('[data-testid=bulk-confirm]');
    await expect.poll(() => dialog.innerText()).toContain(`Approve ${open} samples?`);
    await ui.wb.screenshot('review-filters-bulk-confirm');
    await dialog.getByRole('button', { name: `Approve ${open}` }).click();
    await expect
      .poll(() =>
        n("SELECT count(*) AS n FROM dataset_samples WHERE sample_type = 'memory_gate_positive' AND annotation_status = 'approved'"),
      )
      .toBeGreaterThanOrEqual(open);
    await expect.poll(() => page.locator('[data-testid=review-position]').innerText()).toBe('The queue is empty');
    await ui.wb.screenshot('review-filters-bulk-approved');
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('u');
    await expect
      .poll(() =>
        n("SELECT count(*) AS n FROM dataset_samples WHERE sample_type = 'memory_gate_positive' AND annotation_status = 'pending'"),
      )
      .toBe(open);
    await expect.poll(() => page.locator('[data-testid=review-position]').innerText()).toBe(`Sample 1 of ${open}`);
    await noErrorsOnScreen(page);
  });
});

describe('guidelines, notes, reasons, skip, history and keys', () => {
  it('renders the team guidelines beside the sample, Markdown only, raw HTML as text', async () => {
    const { page } = ui;
    await go(page, '#/review', '[data-testid=guidelines-panel]');
    await page.locator('[data-testid=guidelines-panel]').getByRole('button', { name: 'edit' }).click();
    const md =
      '# Team rules\n\n- **Approve** facts the user stated\n- Reject guesses\n\n<img src=x onerror="window.__pwned=1"> is text\n\n[bad](javascript:alert(1)) [docs](https://example.com)';
    await page.locator('[data-testid=guidelines-editor]').fill(md);
    await page.locator('[data-testid=reasons-editor]').fill('Wrong fact\nNot worth remembering\nPrivate data');
    await page.locator('[data-testid=review-settings-save]').click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await page.getByRole('button', { name: 'Close' }).click();
    const panel = page.locator('[data-testid=guidelines-text]');
    await panel.waitFor();
    expect(await panel.locator('h3').textContent()).toBe('Team rules');
    expect(await panel.locator('strong').innerText()).toBe('Approve');
    expect(await panel.innerText()).toContain('<img src=x onerror="window.__pwned=1">');
    expect(await panel.locator('img').count()).toBe(0);
    expect(await panel.locator('a').count()).toBe(1);
    expect(await panel.locator('a').getAttribute('href')).toBe('https://example.com');
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(fs.readFileSync(path.join(ui.dir, '.openclaw-reflection', 'review-guidelines.md'), 'utf8')).toBe(md);
    await expect.poll(() => page.locator('[data-testid=reject-reasons] button').count()).toBe(3);
    await ui.wb.screenshot('review-guidelines-panel');
    // The same guidelines are edited in Settings, and Review shows the change.
    await go(page, '#/settings', '[data-testid=guidelines-editor]');
    expect(await page.locator('[data-testid=guidelines-editor]').inputValue()).toBe(md);
    await page.locator('[data-testid=guidelines-editor]').fill(`${md}\n\n## Edited in Settings`);
    await page.locator('[data-testid=review-settings-save]').click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await ui.wb.screenshot('settings-review-guidelines');
    await go(page, '#/review', '[data-testid=guidelines-text]');
    await expect.poll(() => page.locator('[data-testid=guidelines-text] h4').textContent()).toBe('Edited in Settings');
  });

  it('saves notes and a reject reason, skips, keeps digits inside Review, and jumps back from history', async () => {
    const { page } = ui;
    await go(page, '#/review', '[data-testid=review-sample]');
    const first = (await shownSample())!;
    await page.locator('[data-testid=review-notes]').fill('contradicts USER.md');
    await page.locator('[data-testid=reject-reasons]').getByRole('button', { name: 'Private data' }).click();
    await expect
      .poll(() =>
        ui.db
          .prepare('SELECT annotation_status AS s, reject_reason AS r, annotation_notes AS t FROM dataset_samples WHERE id = ?')
          .get(first),
      )
      .toEqual({ s: 'rejected', r: 'Private data', t: 'contradicts USER.md' });
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    const second = (await shownSample())!;
    await page.keyboard.press('Shift+R');
    await page.locator('[data-testid=reason-picker]').waitFor();
    await page.keyboard.press('2');
    await expect
      .poll(() => ui.db.prepare('SELECT reject_reason AS r FROM dataset_samples WHERE id = ?').get(second))
      .toEqual({ r: 'Not worth remembering' });
    expect(await page.locator('[data-testid=view-review]').count()).toBe(1);
    const third = (await shownSample())!;
    await page.keyboard.press('s');
    await expect.poll(shownSample).not.toBe(third);
    // the hold goes back once the calls made before the skip have been answered
    await expect.poll(() => n('SELECT count(*) AS n FROM review_reservations WHERE sample_id = ?', third)).toBe(0);
    await page.keyboard.press('3'); // a digit: still in Review
    expect(await page.locator('[data-testid=view-review]').count()).toBe(1);
    const history = page.locator('[data-testid=review-history] button');
    await expect.poll(() => history.count()).toBeGreaterThanOrEqual(2);
    // the newest decision heads the list once its response has come back
    await expect.poll(() => history.first().innerText()).toContain('Not worth remembering');
    await history.nth(1).click();
    await expect.poll(shownSample).toBe(first);
    await ui.wb.screenshot('review-notes-reasons-history');
    await page.keyboard.press('?');
    expect(await page.locator('[data-testid=keys-overlay]').innerText()).toContain('digits never leave');
    await page.keyboard.press('Escape');
    await noErrorsOnScreen(page);
  });
});
