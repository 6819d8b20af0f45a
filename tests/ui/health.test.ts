// Memory health in Chromium: the blame gutter on a write, the contradiction queue and its keep
// action, and a write flagged for storing personal data with its one-click removal. Each asserts the
// screen and the file on disk / the database, and saves a screenshot.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dbPathFor } from '../../src/core/db/connection';
import { generateDemoWorkspace } from '../../src/core/demo';
import { openWorkbench, type BrowserSession } from '../helpers/browser';
import { tempWorkspace } from '../helpers/workspace';
import { go, noErrorsOnScreen } from './support';

let dir = '';
let wb: BrowserSession;
let page: Page;
let db: Database.Database;
const pageErrors: string[] = [];

beforeAll(async () => {
  dir = tempWorkspace('reflection-ui-health-');
  generateDemoWorkspace(dir); // the full demo: four phone lines, three coffee lines, Berlin and Lisbon
  wb = await openWorkbench(dir, { waitFor: '[data-testid=view-sessions]' });
  page = wb.page;
  page.on('pageerror', (e) => pageErrors.push(e.message));
  db = new Database(dbPathFor(dir), { readonly: true, fileMustExist: true });
}, 120_000);
afterAll(async () => {
  db?.close();
  await wb?.close();
});

const userMd = () => fs.readFileSync(path.join(dir, 'USER.md'), 'utf8');
const snapshot = (id: string | null) =>
  id ? (db.prepare('SELECT content FROM file_snapshots WHERE id = ?').pluck().get(id) as string) : '';

describe('memory health', () => {
  it('shows a blame gutter; a line opens its write, decision and turn, with rollback one click away', async () => {
    const write = db
      .prepare("SELECT id FROM write_guardian_audit WHERE target_file = 'USER.md' AND status = 'written' ORDER BY created_at DESC LIMIT 1")
      .pluck()
      .get() as string;
    await go(page, `#/writes?id=${write}&tab=blame`, '[data-testid=blame-line]');
    const lines = page.locator('[data-testid=blame-line]');
    expect(await lines.count()).toBe(userMd().replace(/\n$/, '').split('\n').length);
    const phoneLine = lines.filter({ hasText: 'phone for urgent issues' }).first();
    const auditId = (await phoneLine.getAttribute('data-audit'))!;
    const text = (await phoneLine.locator('td').nth(2).innerText()).trim();
    // The blamed write is the one that introduced this line: absent before it, present after it.
    const a = db
      .prepare('SELECT before_snapshot_id, after_snapshot_id, decision_id FROM write_guardian_audit WHERE id = ?')
      .get(auditId) as { before_snapshot_id: string | null; after_snapshot_id: string; decision_id: string };
    expect(snapshot(a.after_snapshot_id)).toContain(text);
    expect(snapshot(a.before_snapshot_id)).not.toContain(text);
    await phoneLine.click();
    const detail = page.locator('[data-testid=blame-detail]');
    await detail.locator('[data-testid=blame-decision]').waitFor({ timeout: 15_000 });
    expect(await detail.locator('[data-testid=blame-decision]').innerText()).toMatch(/UPDATE USER/i);
    await detail.locator('[data-testid=blame-turn]').waitFor();
    expect(await detail.locator('[data-testid=blame-turn]').innerText()).toMatch(/call me at/);
    await noErrorsOnScreen(page);
    await wb.screenshot('health-blame-gutter');
    await detail.locator('[data-testid=blame-rollback] button').click();
    await page.waitForSelector('[data-testid=rollback-flow]', { timeout: 15_000 });
    expect(page.url()).toContain(`id=${auditId}`);
  }, 60_000);

  it('lists the phone, coffee and location contradictions and resolves one by keeping a line', async () => {
    await go(page, '#/health', '[data-testid=finding]');
    const phone = page.locator('[data-testid=finding][data-kind=contradiction][data-attribute=phone]');
    await phone.waitFor({ timeout: 15_000 });
    const queue = page.locator('[data-testid=finding-queue]');
    expect(await queue.locator('[data-testid=finding][data-kind=contradiction]', { hasText: 'coffee' }).count()).toBeGreaterThan(0);
    expect(await queue.locator('[data-testid=finding][data-attribute=location]', { hasText: 'Lisbon' }).count()).toBeGreaterThan(0);
    const phoneLines = await phone.locator('[data-testid=finding-line]').allInnerTexts();
    expect(phoneLines.length).toBeGreaterThanOrEqual(2);
    await noErrorsOnScreen(page);
    await wb.screenshot('health-contradiction-queue');
    await phone.locator('input[type=radio]').first().check();
    const keptNumber = /\+1 415 555 0\d+/.exec(phoneLines[0] ?? '')![0];
    await phone.locator('[data-testid=finding-keep]').click();
    await page.waitForFunction(() => !document.querySelector('[data-testid=finding][data-attribute=phone]'), undefined, {
      timeout: 15_000,
    });
    const phonesNow = userMd()
      .split('\n')
      .filter((l) => /phone for urgent issues/.test(l));
    expect(phonesNow).toHaveLength(1);
    expect(phonesNow[0]).toContain(keptNumber);
    const curator = db
      .prepare("SELECT id FROM write_guardian_audit WHERE source = 'retry' AND target_file = 'USER.md' ORDER BY created_at DESC LIMIT 1")
      .pluck()
      .get() as string;
    expect(db.prepare('SELECT count(*) FROM behavior_corrections WHERE retry_audit_id = ?').pluck().get(curator)).toBe(
      phoneLines.length - 1,
    );
    await noErrorsOnScreen(page);
  }, 60_000);

  it('flags a write that stored an email in the Writes list and removes the value in one click', async () => {
    const flagged = db
      .prepare(
        "SELECT f.audit_id FROM audit_secret_flags f JOIN write_guardian_audit a ON a.id = f.audit_id WHERE f.kinds LIKE '%EMAIL%' AND a.target_file = 'USER.md' AND a.status = 'written' ORDER BY a.created_at DESC LIMIT 1",
      )
      .pluck()
      .get() as string;
    const email = /[\w.]+@example\.com/.exec(
      db.prepare('SELECT diff FROM write_guardian_audit WHERE id = ?').pluck().get(flagged) as string,
    )![0];
    expect(userMd()).toContain(email);
    await go(page, '#/writes?file=USER.md', `[data-testid=write-row][data-id="${flagged}"]`);
    const row = page.locator(`[data-testid=write-row][data-id="${flagged}"]`);
    await row.locator('[data-testid=secret-badge]').waitFor({ timeout: 15_000 });
    expect(await row.locator('[data-testid=secret-badge]').innerText()).toMatch(/email/i);
    await row.click();
    const actions = page.locator('[data-testid=secret-actions]');
    await actions.waitFor({ timeout: 15_000 });
    await noErrorsOnScreen(page);
    await wb.screenshot('health-secret-flagged');
    await actions.locator('[data-testid=remove-secret]').click();
    await page.locator('[data-testid=secret-removed]').waitFor({ timeout: 15_000 });
    expect(userMd()).not.toContain(email);
    expect(userMd()).toContain('[removed]');
    const correction = db.prepare('SELECT corrected_status, apply_to_future FROM behavior_corrections WHERE audit_id = ?').get(flagged);
    expect(correction).toEqual({ corrected_status: 'refused', apply_to_future: 1 });
    await noErrorsOnScreen(page);
    await wb.screenshot('health-secret-removed');
    expect(pageErrors).toEqual([]);
  }, 60_000);

  it('verifies the chain and erases a value across history from the Health view', async () => {
    const email = /[\w.]+@example\.(?:com|cn)/.exec(
      db
        .prepare("SELECT user_message_content FROM conversation_turns WHERE user_message_content LIKE '%@example.%' LIMIT 1")
        .pluck()
        .get() as string,
    )![0];
    await go(page, '#/health', '[data-testid=verify-card]');
    await page.locator('[data-testid=verify-card] button').click();
    await page.locator('[data-testid=verify-result]').waitFor({ timeout: 15_000 });
    expect(await page.locator('[data-testid=verify-result]').innerText()).toMatch(/Every version verifies/);
    const card = page.locator('[data-testid=erase-card]');
    await card.locator('input[aria-label="Value to erase"]').fill(email);
    await card.getByRole('button', { name: 'List every place' }).click();
    await card.locator('table').waitFor({ timeout: 15_000 });
    expect(await card.locator('table').innerText()).toMatch(/conversation_turns\.user_message_content/);
    await noErrorsOnScreen(page);
    await card.scrollIntoViewIfNeeded();
    await wb.screenshot('health-erase-preview');
    await card.getByRole('button', { name: /Erase everywhere/ }).click();
    await card.getByText(/Erased\. The stub/).waitFor({ timeout: 30_000 });
    expect(db.prepare('SELECT count(*) FROM conversation_turns WHERE instr(user_message_content, ?) > 0').pluck().get(email)).toBe(0);
    expect(db.prepare('SELECT count(*) FROM erasures').pluck().get()).toBe(1);
    await noErrorsOnScreen(page);
    // Stats shows flagged writes and the chain, re-chained by the erasure but intact.
    await go(page, '#/stats', '[data-testid=health-card]');
    await page.getByText(/recorded re-chain/).waitFor({ timeout: 15_000 });
    expect(await page.locator('[data-testid=health-chain]').innerText()).toMatch(/intact/);
    expect(await page.locator('[data-testid=health-flagged]').innerText()).toMatch(/^\d+ writes? stored personal data/);
    await page.locator('[data-testid=health-card]').scrollIntoViewIfNeeded();
    await wb.screenshot('health-stats-card');
  }, 60_000);
});
