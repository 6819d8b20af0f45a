// The dataset paths in Chromium: collect, review ten samples with the keyboard only (with undo, also
// after a reload), reject a PII span and see the redacted text change, export OpenAI JSONL.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { go, noErrorsOnScreen, startUi, type UiFixture } from './support';

let ui: UiFixture;
beforeAll(async () => {
  ui = await startUi(16);
});
afterAll(async () => {
  await ui?.close();
});

const statusOf = (id: string) =>
  (ui.db.prepare('SELECT annotation_status AS s FROM dataset_samples WHERE id = ?').get(id) as { s: string }).s;
const shownSample = () => ui.page.locator('[data-testid=review-sample]').getAttribute('data-sample-id');

describe('dataset curation', () => {
  it('collects samples from the recorded workspace with a progress bar', async () => {
    const { page } = ui;
    await go(page, '#/datasets', '[data-testid=collect-panel]');
    await page.locator('[data-testid=collect-panel]').getByRole('button', { name: 'Collect', exact: true }).click();
    await page.locator('[data-testid=collect-result]').waitFor({ timeout: 30_000 });
    const n = (ui.db.prepare('SELECT count(*) AS n FROM dataset_samples').get() as { n: number }).n;
    expect(n).toBeGreaterThan(15);
    expect(await page.locator('[data-testid=collect-result]').innerText()).toContain(`Added ${n.toLocaleString('en-US')} samples`);
    await noErrorsOnScreen(page);
  });

  it('reviews ten samples with the keyboard only, including an undo, and undo works after a reload', async () => {
    const { page } = ui;
    await go(page, '#/review', '[data-testid=review-sample]');
    await page.locator('body').click({ position: { x: 5, y: 5 } }); // focus the page, not a field
    const plan = ['a', 'r', 'a', 'n', 'a', 'u', 'r', 'a', 'j', 'k', 'a', 'a', 'r', 'a'];
    const expected = new Map<string, string>();
    const labelled: string[] = [];
    for (const key of plan) {
      const before = await shownSample();
      await page.keyboard.press(key);
      if (key === 'u') {
        // The undone sample comes back on screen, pending again.
        const undone = labelled.pop()!;
        await expect.poll(shownSample).toBe(undone);
        await expect.poll(() => statusOf(undone)).toBe('pending');
        expected.delete(undone);
        continue;
      }
      if (key === 'j' || key === 'k') {
        await expect.poll(shownSample).not.toBe(before);
        continue;
      }
      const status = { a: 'approved', r: 'rejected', n: 'needs_review' }[key]!;
      expected.set(before!, status);
      labelled.push(before!);
      await expect.poll(shownSample).not.toBe(before);
    }
    expect(expected.size).toBe(10);
    for (const [id, status] of expected) await expect.poll(() => statusOf(id)).toBe(status);
    expect(await page.locator('[data-testid=review-throughput]').innerText()).toMatch(/samples\/min/);
    await page.keyboard.press('?');
    await page.locator('[data-testid=keys-overlay]').waitFor();
    await ui.wb.screenshot('review-keys-overlay');
    await page.keyboard.press('Escape');
    await noErrorsOnScreen(page);
    await ui.wb.screenshot('review-queue');

    // Undo survives a reload: the server keeps the review log.
    const last = labelled.at(-1);
    if (!last) throw new Error('nothing was labelled');
    await page.reload();
    await page.waitForSelector('[data-testid=review-sample]');
    await page.keyboard.press('u');
    await expect.poll(() => statusOf(last)).toBe('pending');
    await expect.poll(shownSample).toBe(last);
  });

  it('rejects one PII span and shows its value in the redacted text', async () => {
    const { page } = ui;
    const sample = ui.db
      .prepare(
        `SELECT id, pii_spans FROM dataset_samples WHERE contains_pii = 1 AND pii_spans IS NOT NULL ORDER BY created_at DESC LIMIT 1`,
      )
      .get() as { id: string; pii_spans: string } | undefined;
    if (!sample) throw new Error('no collected sample contains PII');
    const spans = JSON.parse(sample.pii_spans) as { id: string; value: string; type: string; accepted: boolean }[];
    const span = spans[0];
    if (!span) throw new Error('the sample has no PII span');
    await go(page, `#/review?status=all&id=${encodeURIComponent(sample.id)}`, `[data-testid=review-sample][data-sample-id="${sample.id}"]`);
    const redacted = page.locator('[data-testid=redacted-text]');
    await expect.poll(() => redacted.innerText()).not.toContain(span.value);
    expect(await page.locator('[data-testid=review-sample] .pii').count()).toBeGreaterThan(0);

    await page.locator('[data-testid=pii-span-row]').first().getByRole('button', { name: 'keep' }).click();
    await expect.poll(() => redacted.innerText()).toContain(span.value);
    await expect.poll(() => page.locator(`[data-testid=review-sample] .pii.keep`).count()).toBeGreaterThan(0);
    await expect
      .poll(() => {
        const row = ui.db.prepare('SELECT pii_spans, pii_redacted_content FROM dataset_samples WHERE id = ?').get(sample.id) as {
          pii_spans: string;
          pii_redacted_content: string | null;
        };
        // Keeping a value keeps every span of it: the export hides a value wherever it appears.
        const same = (JSON.parse(row.pii_spans) as { value: string; type: string; accepted: boolean }[]).filter(
          (s) => s.value === span.value && s.type === span.type,
        );
        return (
          same.length > 0 &&
          same.every((s) => !s.accepted) &&
          (row.pii_redacted_content === null || row.pii_redacted_content.includes(span.value))
        );
      })
      .toBe(true);
    await noErrorsOnScreen(page);
    await ui.wb.screenshot('review-pii');
  });

  it('edits a sample from the keyboard (e, then Ctrl+Enter) and saves the new content', async () => {
    const { page } = ui;
    await go(page, '#/review', '[data-testid=review-sample]');
    const id = (await shownSample())!;
    await page.keyboard.press('e');
    // the editor opens field by field; raw JSON is the fallback the keyboard flow uses here
    await page.locator('[data-testid=editor-raw-json]').click();
    const editor = page.getByLabel('Sample content (JSON)');
    await editor.waitFor();
    const content = JSON.parse(await editor.inputValue()) as Record<string, unknown>;
    const edited = { ...content, reason: 'Edited by the curator: 编辑过的理由。' };
    await editor.fill(JSON.stringify(edited, null, 2));
    await editor.press('Control+Enter');
    await page.locator('[data-testid=edit-dialog]').waitFor({ state: 'detached' });
    await expect
      .poll(() => (ui.db.prepare('SELECT content FROM dataset_samples WHERE id = ?').get(id) as { content: string }).content)
      .toContain('编辑过的理由');
    await noErrorsOnScreen(page);
  });

  it('exports OpenAI JSONL: the preview matches the file written, with its checksum', async () => {
    const { page } = ui;
    await go(page, '#/datasets', '[data-testid=export-panel]');
    await page.getByLabel('Export format').selectOption('openai');
    await page.getByLabel('Export name').fill('ui-openai');
    const preview = page.locator('[data-testid=export-preview] li');
    await preview.first().waitFor();
    const firstRecord = await preview.first().innerText();
    expect(() => JSON.parse(firstRecord)).not.toThrow();
    await page.getByLabel('Include PII').check();
    await page.locator('[data-testid=pii-warning]').waitFor();
    await page.getByLabel('Include PII').uncheck();
    await page.locator('[data-testid=write-export]').click();
    await page.locator('[data-testid=export-result]').waitFor({ timeout: 30_000 });

    const exp = ui.db
      .prepare(`SELECT file_path, files, include_pii, total_samples FROM dataset_exports WHERE export_name = 'ui-openai'`)
      .get() as {
      file_path: string;
      files: string;
      include_pii: number;
      total_samples: number;
    };
    expect(exp.include_pii).toBe(0);
    const files = JSON.parse(exp.files) as { name: string; sha256: string; bytes: number }[];
    const folder = fs.statSync(exp.file_path).isDirectory() ? exp.file_path : path.dirname(exp.file_path);
    const lines: string[] = [];
    for (const f of files.filter((x) => x.name.endsWith('.jsonl'))) {
      const bytes = fs.readFileSync(path.join(folder, f.name));
      expect(crypto.createHash('sha256').update(bytes).digest('hex')).toBe(f.sha256);
      lines.push(...bytes.toString('utf8').split('\n').filter(Boolean));
    }
    expect(lines.length).toBe(exp.total_samples);
    for (const line of lines) {
      const rec = JSON.parse(line) as { messages: { role: string; content: string }[] };
      expect(rec.messages.some((m) => m.role === 'assistant')).toBe(true);
    }
    expect(lines).toContain(firstRecord);
    // The past exports list shows it with a download link (browser mode) and its checksum.
    const row = page.locator('[data-testid=export-row]', { hasText: 'ui-openai' });
    await row.waitFor();
    expect(await row.locator('[data-testid=export-download]').count()).toBeGreaterThan(0);
    expect(await row.innerText()).toContain(files[0]!.sha256.slice(0, 16));
    await noErrorsOnScreen(page);
    await ui.wb.screenshot('datasets-export');
    expect(ui.pageErrors).toEqual([]);
  });
});
