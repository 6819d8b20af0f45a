// Issue 12 in the browser: the per-field sample editor checks the sample type as the curator types,
// the raw JSON fallback cannot save a field the type lacks, a cluster shows its near-duplicates and
// takes the curator's pick, and an export shows what it included and its label balance.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWorkspaceDatabase, type DB } from '../../src/core/db/connection';
import { collectSamples } from '../../src/core/dataset';
import { go, noErrorsOnScreen, startUi, type UiFixture } from '../ui/support';

let ui: UiFixture;
let db: DB;

beforeAll(async () => {
  ui = await startUi(10);
  db = openWorkspaceDatabase(ui.dir).db;
  await collectSamples({ db, workspaceDir: ui.dir }, { autoApprove: true });
}, 120_000);

afterAll(async () => {
  db?.close();
  await ui?.close();
});

const one = <T>(sql: string, ...params: unknown[]) => db.prepare(sql).get(...params) as T;

describe('sample editor and clusters in review', () => {
  it('edits field by field, names the field that does not fit, and refuses a raw JSON field the type lacks', async () => {
    const { id } = one<{ id: string }>(
      "SELECT id FROM dataset_samples WHERE sample_type = 'write_guardian_decision' AND annotation_status <> 'rejected' ORDER BY rowid LIMIT 1",
    );
    const page = ui.page;
    await go(page, `#/review?status=all&id=${id}`, `[data-testid=review-sample][data-sample-id="${id}"]`);
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('e');
    await page.waitForSelector('[data-testid=editor-fields]');
    const fact = page.locator('[data-field="candidateFact"] textarea');
    await fact.fill('');
    await expect.poll(() => page.locator('[data-testid=editor-issues]').innerText()).toContain('candidateFact');
    expect(await page.locator('[data-testid=editor-save]').isDisabled()).toBe(true);
    await ui.wb.screenshot('dataset-sample-editor-field-error');
    await fact.fill('prefers short standups');
    await expect.poll(() => page.locator('[data-testid=editor-issues]').count()).toBe(0);
    await page.locator('[data-testid=editor-raw-json]').click();
    const raw = page.getByLabel('Sample content (JSON)');
    const text = await raw.inputValue();
    await raw.fill(text.replace('{', '{\n  "bogus": 1,'));
    await page.locator('[data-testid=editor-save]').click();
    await expect.poll(() => page.locator('[data-testid=editor-issues]').innerText()).toContain('bogus');
    expect(JSON.parse(one<{ content: string }>('SELECT content FROM dataset_samples WHERE id = ?', id).content).bogus).toBeUndefined();
    await raw.fill(text.replace(/"candidateFact": "[^"]*"/, '"candidateFact": "prefers short standups"'));
    await raw.press('Control+Enter');
    await expect
      .poll(() => JSON.parse(one<{ content: string }>('SELECT content FROM dataset_samples WHERE id = ?', id).content).candidateFact)
      .toBe('prefers short standups');
    await expect.poll(() => page.locator('[data-testid=edit-dialog]').count()).toBe(0);
    await noErrorsOnScreen(page);
  });

  it('shows how many near-duplicates a sample has and exports the member the curator picks', async () => {
    const c = one<{ cluster_id: string; n: number }>(
      `SELECT cluster_id, count(*) AS n FROM dataset_samples WHERE cluster_id IS NOT NULL GROUP BY cluster_id HAVING n >= 2 ORDER BY n DESC LIMIT 1`,
    );
    expect(c?.n).toBeGreaterThanOrEqual(2);
    const member = one<{ id: string }>(
      'SELECT id FROM dataset_samples WHERE cluster_id = ? AND id <> cluster_id ORDER BY rowid DESC LIMIT 1',
      c.cluster_id,
    );
    const page = ui.page;
    await go(page, `#/review?status=all&id=${member.id}`, '[data-testid=cluster-panel]');
    await expect
      .poll(async () => (await page.locator('[data-testid=cluster-count]').innerText()).toLowerCase())
      .toBe(`${c.n - 1} near-duplicates`);
    await ui.wb.screenshot('dataset-cluster-panel');
    const before = page.locator('[data-testid=cluster-pick]');
    const picks = await before.count();
    expect(picks).toBeGreaterThan(0);
    await before.first().click();
    await expect
      .poll(() => one<{ n: number }>('SELECT count(*) AS n FROM dataset_cluster_picks WHERE cluster_id = ?', c.cluster_id)?.n ?? 0)
      .toBe(1);
    await noErrorsOnScreen(page);
  });

  it('an export shows what it included and the label balance', async () => {
    const page = ui.page;
    await go(page, '#/datasets', '[data-testid=export-panel]');
    await page.getByLabel('Export format').selectOption('alpaca');
    await page.locator('[data-testid=write-export]').click();
    await page.waitForSelector('[data-testid=export-summary]', { timeout: 60_000 });
    expect(await page.locator('[data-testid=export-summary]').innerText()).toContain('approved, auto_approved');
    expect(await page.locator('[data-testid=export-balance]').innerText()).toMatch(/NO_WRITE \d+/);
    await ui.wb.screenshot('dataset-export-summary');
    const writer = page.locator('[data-testid=writer-quality]');
    await expect.poll(() => writer.innerText()).toMatch(/judged decisions|No judged decisions yet/);
    await writer.scrollIntoViewIfNeeded();
    await ui.wb.screenshot('dataset-writer-quality');
    await noErrorsOnScreen(page);
  });
});
