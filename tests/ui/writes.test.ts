// The curator's write paths in Chromium: see a write's Monaco diff, roll it back through the preview,
// and record a correction side by side. Each asserts the screen and the database / the file on disk.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { go, noErrorsOnScreen, startUi, type UiFixture } from './support';

let ui: UiFixture;
beforeAll(async () => {
  ui = await startUi();
});
afterAll(async () => {
  await ui?.close();
});

interface AuditPick {
  id: string;
  target_file: string;
  before_snapshot_id: string | null;
}

/** A write that replaced lines (the diff has both inserted and removed lines). */
function editingWrite(): AuditPick {
  const row = ui.db
    .prepare(
      `SELECT id, target_file, before_snapshot_id FROM write_guardian_audit
       WHERE status = 'written' AND (lines_removed > 0 OR lines_modified > 0) ORDER BY created_at DESC LIMIT 1`,
    )
    .get() as AuditPick | undefined;
  if (!row) throw new Error('the demo workspace has no write that replaced lines');
  return row;
}

/** The newest write of some file: nothing later touched that file, so it rolls back cleanly. */
function latestWrite(): AuditPick {
  const row = ui.db
    .prepare(
      `SELECT a.id, a.target_file, a.before_snapshot_id FROM write_guardian_audit a
       WHERE a.status = 'written' AND a.lines_added > 0 AND a.before_snapshot_id IS NOT NULL
         AND a.created_at = (SELECT max(created_at) FROM write_guardian_audit b WHERE b.target_file = a.target_file AND b.after_snapshot_id IS NOT NULL)
       ORDER BY a.created_at DESC LIMIT 1`,
    )
    .get() as AuditPick | undefined;
  if (!row) throw new Error('the demo workspace has no write to roll back');
  return row;
}

const flat = (s: string) => s.replace(/[\s\u00a0]+/g, ' ');

describe('writes', () => {
  it('opens a write and shows the Monaco diff with inserted and removed lines', async () => {
    const { page } = ui;
    const audit = editingWrite();
    await go(page, `#/writes`, '[data-testid=write-row]');
    await page.locator(`[data-testid=write-row]`).first().waitFor();
    await go(page, `#/writes?id=${audit.id}`, '[data-testid=write-detail]');
    const diff = page.locator('[data-testid=diff-view]');
    await diff.locator('.line-insert').first().waitFor({ timeout: 20_000 });
    await diff.locator('.line-delete').first().waitFor({ timeout: 20_000 });
    expect(await diff.locator('.line-insert').count()).toBeGreaterThan(0);
    expect(await diff.locator('.line-delete').count()).toBeGreaterThan(0);
    // The fact this write added is on screen in the modified side.
    const fact = (ui.db.prepare('SELECT candidate_fact FROM write_guardian_audit WHERE id = ?').get(audit.id) as { candidate_fact: string })
      .candidate_fact;
    await expect.poll(async () => flat(await diff.innerText())).toContain(flat(fact).slice(0, 20));
    await noErrorsOnScreen(page);
    await ui.wb.screenshot('writes-diff');
  });

  it('rolls a write back through the dry-run preview and a reason, restoring the file on disk', async () => {
    const { page } = ui;
    const audit = latestWrite();
    const file = path.join(ui.dir, audit.target_file);
    const before = (ui.db.prepare('SELECT content FROM file_snapshots WHERE id = ?').get(audit.before_snapshot_id) as { content: string })
      .content;
    expect(fs.readFileSync(file, 'utf8')).not.toBe(before);

    await go(page, `#/writes?id=${audit.id}&tab=rollback`, '[data-testid=rollback-flow]');
    await page.locator('[data-testid=rollback-mode]').waitFor();
    // The preview shows the resulting file as a diff, and nothing is written yet.
    await page.locator('[data-testid=rollback-flow] [data-testid=diff-view] .line-delete').first().waitFor({ timeout: 20_000 });
    expect(fs.readFileSync(file, 'utf8')).not.toBe(before);
    await ui.wb.screenshot('writes-rollback-preview');

    await page.getByRole('button', { name: 'Continue to reason…' }).click();
    const apply = page.getByRole('button', { name: 'Apply rollback' });
    expect(await apply.isDisabled()).toBe(true); // a reason is required
    await page.getByLabel('Rollback reason').fill('The user only mentioned this once; not a lasting fact.');
    await apply.click();
    await page.locator('[data-testid=rollback-done]').waitFor();

    expect(fs.readFileSync(file, 'utf8')).toBe(before);
    const rb = ui.db.prepare('SELECT reason, mode FROM rollbacks WHERE audit_id = ?').get(audit.id) as { reason: string; mode: string };
    expect(rb.reason).toBe('The user only mentioned this once; not a lasting fact.');
    const status = ui.db.prepare('SELECT status FROM write_guardian_audit WHERE id = ?').get(audit.id) as { status: string };
    expect(status.status).toBe('rolled_back');
    await noErrorsOnScreen(page);
    await ui.wb.screenshot('writes-rollback-done');
  });

  it('records a correction side by side, validated, with a draft that survives navigating away', async () => {
    const { page } = ui;
    const audit = ui.db
      .prepare(
        `SELECT id, candidate_fact FROM write_guardian_audit WHERE status = 'written' AND candidate_fact IS NOT NULL ORDER BY created_at ASC LIMIT 1`,
      )
      .get() as { id: string; candidate_fact: string };
    await go(page, `#/corrections?audit=${audit.id}`, '[data-testid=correction-form]');
    const original = page.locator('[data-testid=correction-original]');
    await expect.poll(() => original.innerText()).toContain(audit.candidate_fact.slice(0, 20));

    // Validation: no reason, no correction.
    await page.getByRole('radio', { name: 'should have written' }).check();
    await page.getByRole('button', { name: 'Record correction' }).click();
    await page.getByText('Say why the original was wrong.').waitFor();
    const count = () =>
      (ui.db.prepare('SELECT count(*) AS n FROM behavior_corrections WHERE audit_id = ?').get(audit.id) as { n: number }).n;
    expect(count()).toBe(0);

    const fact = 'The user prefers short answers in the morning.';
    await page.getByLabel('Corrected fact').fill(fact);
    await page.getByLabel('Corrected target file').selectOption('USER.md');
    await page.getByLabel('Correction reason').fill('This is a preference about the user, not project memory.');
    await page.getByLabel('Apply to future turns').check();
    await page.getByLabel('Correction pattern').fill('preferences about answer style');

    // Leave and come back: the draft is still there.
    await go(page, '#/sessions', '[data-testid=view-sessions]');
    await go(page, `#/corrections?audit=${audit.id}`, '[data-testid=correction-form]');
    expect(await page.getByLabel('Correction reason').inputValue()).toBe('This is a preference about the user, not project memory.');

    // The right-hand preview shows the file as it would read with the corrected fact.
    const corrected = page.locator('[data-testid=correction-editor] .side-by-side').nth(1);
    await expect.poll(async () => flat(await corrected.innerText()), { timeout: 20_000 }).toContain(fact);
    await page.getByRole('button', { name: 'Record correction' }).click();
    await page.locator('[data-testid=correction-saved]').waitFor();
    const row = ui.db
      .prepare(
        'SELECT corrected_status, corrected_candidate_fact, corrected_target_file, correction_reason, apply_to_future, correction_pattern FROM behavior_corrections WHERE audit_id = ?',
      )
      .get(audit.id) as Record<string, unknown>;
    expect(row).toEqual({
      corrected_status: 'written',
      corrected_candidate_fact: fact,
      corrected_target_file: 'USER.md',
      correction_reason: 'This is a preference about the user, not project memory.',
      apply_to_future: 1,
      correction_pattern: 'preferences about answer style',
    });
    await noErrorsOnScreen(page);
    await ui.wb.screenshot('corrections-side-by-side');
    expect(ui.pageErrors).toEqual([]);
  });
});
