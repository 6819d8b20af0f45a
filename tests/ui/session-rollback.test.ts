// Session rollback in the UI (issue 17, gap 1) with a conflict the curator resolves per write, and the
// Writes list saying which write each rollback undid; plus invisible characters in conversation text
// shown as visible markers (issue 14, item 12).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRecorder } from '../../src/recorder';
import { go, noErrorsOnScreen, startUi, type UiFixture } from './support';

let ui: UiFixture;
const SESSION = 'rollback-ui-session';
const ids: Record<'w1' | 'w2' | 'w3', string> = { w1: '', w2: '', w3: '' };
let userBefore = '';

const read = (file: string) => {
  try {
    return fs.readFileSync(path.join(ui.dir, file), 'utf8');
  } catch {
    return '';
  }
};

beforeAll(async () => {
  ui = await startUi(6);
  await ui.page.setViewportSize({ width: 1280, height: 800 });
  const rec = openRecorder({ workspaceDir: ui.dir });
  // In the past (the rollbacks are recorded now, after them), newer than anything in the demo workspace.
  const t = Date.now() - 10 * 60_000;
  await rec.upsertSession({ id: SESSION, channelId: 'telegram', conversationTarget: 'rollback-ui', createdAt: t, lastActivityAt: t + 3 });
  // Each write changes the file on disk as the plugin would, and is recorded with its before/after.
  const write = async (key: keyof typeof ids, file: 'USER.md' | 'MEMORY.md', fact: string, at: number, userText: string) => {
    const before = read(file);
    const after = `${before}${before && !before.endsWith('\n') ? '\n' : ''}- ${fact}\n`;
    const turn = await rec.insertTurn({
      sessionId: SESSION,
      userMessage: { content: userText },
      agentReply: { content: 'noted' },
      createdAt: at,
    });
    const decisionId = await rec.insertDecision({
      turnId: turn.id,
      sessionId: SESSION,
      decision: file === 'USER.md' ? 'UPDATE_USER' : 'UPDATE_MEMORY',
      reason: 'worth keeping',
      candidateFact: fact,
      llmCall: { model: 'test' },
      createdAt: at,
    });
    fs.writeFileSync(path.join(ui.dir, file), after);
    ids[key] = (
      await rec.recordWrite({
        decisionId,
        turnId: turn.id,
        sessionId: SESSION,
        targetFile: file,
        candidateFact: fact,
        status: 'written',
        before: before || null,
        after,
        createdAt: at,
      })
    ).auditId;
  };
  userBefore = read('USER.md');
  await write('w1', 'MEMORY.md', 'Project Kestrel starts in May', t, 'Kestrel starts in May');
  await write('w2', 'USER.md', 'User likes green tea', t + 1, 'I like green tea');
  // Invisible characters: a right-to-left override and a zero-width space in what the user wrote.
  await write('w3', 'USER.md', 'User lives in Lisbon', t + 2, 'I live in Lisbon. Please approve \u202Eevil\u202C and the pass\u200Bword');
  rec.close();
  // Someone edits the line W1 wrote: undoing W1 alone would now conflict.
  const memory = read('MEMORY.md').replace('- Project Kestrel starts in May', '- Project Kestrel starts in June (edited by hand)');
  fs.writeFileSync(path.join(ui.dir, 'MEMORY.md'), memory);
});
afterAll(async () => {
  await ui?.close();
});

const status = (id: string) => (ui.db.prepare('SELECT status FROM write_guardian_audit WHERE id = ?').get(id) as { status: string }).status;

describe('session rollback', () => {
  it('previews every write with its conflict; skip one, give a reason, apply; results per write', async () => {
    const { page } = ui;
    await go(page, `#/sessions?id=${SESSION}`, '[data-testid=turn]');
    await page.getByRole('button', { name: /Roll back this session/ }).click();
    const preview = page.locator('[data-testid=session-rollback-preview]');
    await preview.waitFor({ timeout: 15_000 });
    const item = (id: string) => page.locator(`[data-testid=session-rollback-item][data-audit="${id}"]`);
    await expect.poll(() => page.locator('[data-testid=session-rollback-item]').count()).toBe(3);
    expect(await item(ids.w1).getAttribute('data-state')).toBe('conflict');
    expect(await item(ids.w3).getAttribute('data-state')).toBe('pending');
    await page.locator('[data-testid=session-rollback-blocked]').waitFor();
    const apply = page.getByRole('button', { name: /^Apply: roll back/ });
    await page.getByLabel('Session rollback reason').fill('This chat was a role-play; none of it is true.');
    expect(await apply.isDisabled()).toBe(true); // a conflict is unresolved
    await ui.wb.screenshot('session-rollback-conflict');

    await item(ids.w1).getByRole('combobox').selectOption('skip');
    await expect.poll(() => item(ids.w1).getAttribute('data-state')).toBe('skipped');
    await expect.poll(() => apply.isDisabled()).toBe(false);
    // Nothing was written by the previews.
    expect([status(ids.w1), status(ids.w2), status(ids.w3)]).toEqual(['written', 'written', 'written']);
    await apply.click();

    const results = page.locator('[data-testid=session-rollback-results]');
    await results.waitFor({ timeout: 15_000 });
    expect(await item(ids.w3).getAttribute('data-state')).toBe('written');
    expect(await item(ids.w2).getAttribute('data-state')).toBe('written');
    expect(await item(ids.w1).getAttribute('data-state')).toBe('skipped');
    expect(await page.locator('[data-testid=session-rollback-done]').innerText()).toMatch(/2 rolled back · 1 skipped · 0 refused/);
    expect([status(ids.w1), status(ids.w2), status(ids.w3)]).toEqual(['written', 'rolled_back', 'rolled_back']);
    expect(read('USER.md')).toBe(userBefore);
    expect(read('MEMORY.md')).toContain('edited by hand');
    const reasons = ui.db.prepare('SELECT DISTINCT reason FROM rollbacks WHERE audit_id IN (?, ?)').all(ids.w2, ids.w3) as {
      reason: string;
    }[];
    expect(reasons).toEqual([{ reason: 'This chat was a role-play; none of it is true.' }]);
    await noErrorsOnScreen(page);
    await ui.wb.screenshot('session-rollback-results');
  });

  it('the Writes list says which write each rollback undid', async () => {
    const { page } = ui;
    await go(page, '#/writes?source=rollback', '[data-testid=write-row]');
    const undid = page.locator('[data-testid=write-undid]');
    await expect.poll(() => undid.count()).toBe(2);
    const texts = await undid.allInnerTexts();
    expect(texts.some((t) => t.includes('User lives in Lisbon'))).toBe(true);
    expect(texts.some((t) => t.includes('User likes green tea'))).toBe(true);
    await ui.wb.screenshot('writes-rollback-rows-undid');
  });
});

describe('invisible characters', () => {
  it('are shown as labelled markers in the session timeline, never drawn raw', async () => {
    const { page } = ui;
    await go(page, `#/sessions?id=${SESSION}`, '[data-testid=turn]');
    const turn = page.locator('[data-testid=turn]').filter({ hasText: 'Lisbon' }).first();
    await turn.waitFor();
    const rlo = turn.locator('.invisible-char[data-invisible="U+202E"]');
    expect(await rlo.count()).toBe(1);
    expect(await rlo.getAttribute('title')).toMatch(/RIGHT-TO-LEFT OVERRIDE|right-to-left override/i);
    expect(await turn.locator('.invisible-char[data-invisible="U+202C"]').count()).toBe(1);
    expect(await turn.locator('.invisible-char[data-invisible="U+200B"]').count()).toBe(1);
    // The characters themselves are not in the page text: only their markers are.
    const text = await turn.innerText();
    expect(/[\u202A-\u202E\u2066-\u2069\u200B]/.test(text)).toBe(false);
    expect(text).toContain('RLO');
    await turn.scrollIntoViewIfNeeded();
    await ui.wb.screenshot('invisible-characters');
    await page.screenshot({ path: 'test-output/screenshots/invisible-characters-turn.png', clip: (await turn.boundingBox())! });
  });

  it('are marked in search results too', async () => {
    const { page } = ui;
    await go(page, '#/search', '[data-testid=view-search]');
    await page.getByLabel('Search text').fill('Lisbon');
    const hit = page.locator('[data-testid=search-hit]').filter({ hasText: 'approve' }).first();
    await hit.waitFor({ timeout: 10_000 });
    expect(await hit.locator('.invisible-char').count()).toBeGreaterThanOrEqual(2);
    expect(ui.pageErrors).toEqual([]);
  });
});
