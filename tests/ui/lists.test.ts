// Lists at 1280×800 (issue 17, gap 3): two facts that start alike are told apart on screen, the split
// between list and detail resizes, the full fact is in the tooltip and in the selected row, Decisions
// show the write outcome, Search counts its hits and opens the session at the matching turn, and the
// diff's caption names the sides the way Monaco draws them.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRecorder } from '../../src/recorder';
import { go, noErrorsOnScreen, startUi, type UiFixture } from './support';

let ui: UiFixture;
const FACT_A = 'User lives in Berlin, near the Tempelhof field, since 2019';
const FACT_B = 'User lives in Porto with two cats and a balcony garden';
let writeA = '';
let writeB = '';

beforeAll(async () => {
  ui = await startUi(8);
  await ui.page.setViewportSize({ width: 1280, height: 800 });
  // Two writes whose facts share their first 14 characters, newest of all so they head the list.
  const rec = openRecorder({ workspaceDir: ui.dir });
  const t = Date.now() + 60_000;
  await rec.upsertSession({ id: 'lists-session', channelId: 'telegram', conversationTarget: 'lists', createdAt: t, lastActivityAt: t + 2 });
  for (const [i, fact] of [FACT_A, FACT_B].entries()) {
    const turn = await rec.insertTurn({
      sessionId: 'lists-session',
      userMessage: { content: `note ${fact}` },
      agentReply: { content: 'noted' },
      createdAt: t + i,
    });
    const decisionId = await rec.insertDecision({
      turnId: turn.id,
      sessionId: 'lists-session',
      decision: 'UPDATE_USER',
      reason: 'a fact about the user',
      candidateFact: fact,
      llmCall: { model: 'test' },
      createdAt: t + i,
    });
    const w = await rec.recordWrite({
      decisionId,
      turnId: turn.id,
      sessionId: 'lists-session',
      targetFile: 'USER.md',
      candidateFact: fact,
      status: 'written',
      before: i ? `- ${FACT_A}\n` : '',
      after: i ? `- ${FACT_A}\n- ${fact}\n` : `- ${fact}\n`,
      createdAt: t + i,
    });
    if (i) writeB = w.auditId;
    else writeA = w.auditId;
  }
  rec.close();
});
afterAll(async () => {
  await ui?.close();
});

/** Whether `word` inside `cell` is drawn within the cell's visible box and the window (not clipped away). */
async function wordVisible(page: Page, selector: string, word: string): Promise<boolean> {
  return page.evaluate(
    ([sel, w]) => {
      const cell = document.querySelector(sel);
      if (!cell) return false;
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const at = n.textContent?.indexOf(w) ?? -1;
        if (at < 0) continue;
        const range = document.createRange();
        range.setStart(n, at);
        range.setEnd(n, at + w.length);
        const r = range.getBoundingClientRect();
        const box = cell.getBoundingClientRect();
        return (
          r.width > 0 &&
          r.top >= box.top - 1 &&
          r.bottom <= box.bottom + 1 &&
          r.right <= box.right + 1 &&
          r.bottom <= window.innerHeight &&
          r.right <= window.innerWidth
        );
      }
      return false;
    },
    [selector, word] as const,
  );
}

describe('lists at 1280×800', () => {
  it('Writes: two facts that start alike are told apart on screen; the full fact is in the tooltip', async () => {
    const { page } = ui;
    await go(page, '#/writes', '[data-testid=write-row]');
    const cellA = `[data-testid=write-row][data-id="${writeA}"] [data-testid=write-fact]`;
    const cellB = `[data-testid=write-row][data-id="${writeB}"] [data-testid=write-fact]`;
    await page.waitForSelector(cellA);
    expect(await wordVisible(page, cellA, 'Berlin')).toBe(true);
    expect(await wordVisible(page, cellB, 'Porto')).toBe(true);
    // The whole fact is the cell's tooltip.
    expect(await page.locator(cellA).locator('xpath=..').getAttribute('title')).toBe(FACT_A);
    await ui.wb.screenshot('lists-writes-1280');
  });

  it('Writes: the split between list and detail resizes with the keyboard (and is remembered)', async () => {
    const { page } = ui;
    await go(page, `#/writes?id=${writeB}`, '[data-testid=write-detail]');
    const list = page.locator('[data-testid=split-writes] > .paged-list');
    const before = (await list.boundingBox())!.width;
    const splitter = page.getByRole('separator', { name: /Resize the list/ });
    await splitter.focus();
    for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowRight');
    const after = (await list.boundingBox())!.width;
    expect(after).toBeGreaterThan(before + 40);
    expect(Number(await splitter.getAttribute('aria-valuenow'))).toBe(65);
    // The selected row shows its whole fact (no clamp).
    const fact = page.locator(`[data-testid=write-row][data-id="${writeB}"] [data-testid=write-fact]`);
    const clipped = await fact.evaluate((el) => el.scrollHeight > el.clientHeight + 1);
    expect(clipped).toBe(false);
    for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowLeft');
  });

  it('the diff caption matches how Monaco draws it (inline in a narrow pane, left/right in a wide one)', async () => {
    const { page } = ui;
    await go(page, `#/writes?id=${writeB}`, '[data-testid=diff-view]');
    const caption = page.locator('[data-testid=write-detail] [data-testid=diff-caption]');
    await caption.waitFor({ timeout: 20_000 });
    await page.locator('[data-testid=write-detail] [data-testid=diff-view] .line-insert').first().waitFor({ timeout: 20_000 });
    const check = async () => {
      const layout = await page.locator('[data-testid=write-detail] [data-testid=diff-view]').getAttribute('data-layout');
      // Inline, Monaco shrinks the original editor to its line-number gutter; side by side it is half the frame.
      const originalWidth = await page
        .locator('[data-testid=write-detail] .editor.original')
        .evaluate((el) => el.getBoundingClientRect().width);
      const modifiedWidth = await page
        .locator('[data-testid=write-detail] .editor.modified')
        .evaluate((el) => el.getBoundingClientRect().width);
      const text = await caption.innerText();
      expect(layout).toBe(originalWidth > modifiedWidth / 2 ? 'side-by-side' : 'inline');
      if (layout === 'inline') expect(text).toMatch(/one column/);
      else expect(text).toMatch(/left.*right/);
      return layout;
    };
    const narrow = await check();
    expect(narrow).toBe('inline'); // 1280×800 with the list at half the width leaves too little room
    await ui.wb.screenshot('lists-diff-caption-1280');
    // Widen the detail pane: Monaco goes side by side and the caption follows.
    await page.setViewportSize({ width: 1920, height: 1080 });
    const splitter = page.getByRole('separator', { name: /Resize the list/ });
    await splitter.focus();
    for (let i = 0; i < 12; i++) await page.keyboard.press('ArrowLeft');
    await expect
      .poll(() => page.locator('[data-testid=write-detail] [data-testid=diff-view]').getAttribute('data-layout'), { timeout: 10_000 })
      .toBe('side-by-side');
    const wide = await check();
    expect([narrow, wide]).toContain('side-by-side');
    await ui.wb.screenshot('lists-diff-caption-1920');
    for (let i = 0; i < 12; i++) await page.keyboard.press('ArrowRight');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('Decisions: a write-outcome column', async () => {
    const { page } = ui;
    await go(page, '#/decisions', '[data-testid=decision-row]');
    await page.locator('.list-head').getByText('Write', { exact: true }).waitFor();
    const outcomes = await page.locator('[data-testid=decision-write]').allInnerTexts();
    expect(outcomes.some((t) => /written/.test(t))).toBe(true);
    expect(outcomes.some((t) => /no write/.test(t))).toBe(true);
    await ui.wb.screenshot('lists-decisions-1280');
  });

  it('Search: shows its hit count, and its link opens the session at the matching turn', async () => {
    const { page } = ui;
    await go(page, '#/search', '[data-testid=view-search]');
    await page.getByLabel('Search text').fill('Tempelhof');
    const count = page.locator('[data-testid=search-count]');
    await expect.poll(() => count.innerText().catch(() => ''), { timeout: 10_000 }).toMatch(/^2 hits: 1 turn, 1 decision/);
    const hit = page.locator('[data-testid=search-hit]').filter({ hasText: 'user message' }).first();
    await hit.locator('[data-testid=search-open-turn]').click();
    const focused = page.locator('[data-focused=true]');
    await focused.waitFor({ timeout: 10_000 });
    expect(await focused.innerText()).toContain('Tempelhof');
    await page.locator('[data-testid=from-turn-banner]').waitFor();
    await noErrorsOnScreen(page);
    await ui.wb.screenshot('lists-search-opens-turn');
    expect(ui.pageErrors).toEqual([]);
  });
});
