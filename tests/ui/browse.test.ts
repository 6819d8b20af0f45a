// Reading the workspace in Chromium: the sessions timeline, decision filters kept in the URL,
// full-text search of a Chinese phrase with highlighted matches, and the stats charts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOUR_SESSION_ID } from '../../src/core/demo';
import { openRecorder } from '../../src/recorder';
import { go, noErrorsOnScreen, startUi, type UiFixture } from './support';

let ui: UiFixture;
beforeAll(async () => {
  ui = await startUi();
});
afterAll(async () => {
  await ui?.close();
});

describe('browsing', () => {
  it('lists sessions and opens one as a timeline of turns with decisions and writes inline', async () => {
    const { page } = ui;
    await go(page, '#/sessions', '[data-testid=session-row]');
    const sessions = (ui.db.prepare('SELECT count(*) AS n FROM sessions').get() as { n: number }).n;
    expect(await page.locator('[data-testid=session-row]').count()).toBe(sessions);
    await go(page, `#/sessions?id=${encodeURIComponent(TOUR_SESSION_ID)}`, '[data-testid=turn]');
    const firstTurn = ui.db
      .prepare('SELECT user_message_content AS u FROM conversation_turns WHERE session_id = ? ORDER BY turn_number LIMIT 1')
      .get(TOUR_SESSION_ID) as { u: string };
    await expect.poll(() => page.locator('[data-testid=turn]').first().innerText()).toContain(firstTurn.u);
    expect(await page.locator('[data-testid=decision-inline]').count()).toBeGreaterThan(0);
    expect(await page.locator('[data-testid=write-inline]').count()).toBeGreaterThan(0);
    // The context window opens on demand.
    await page.locator('[data-testid=turn]').nth(1).locator('summary', { hasText: 'Context window' }).click();
    await page.locator('[data-testid=context-window]').first().waitFor();
    await noErrorsOnScreen(page);
    await ui.wb.screenshot('sessions-timeline');
    // The list walks with the keyboard: ↓ selects the next session and opens its timeline.
    const selected = () => page.evaluate(() => new URLSearchParams(location.hash.split('?')[1]).get('id'));
    const first = await selected();
    await page.locator('[data-testid=view-sessions] [data-testid=list-scroll]').first().focus();
    await page.keyboard.press('ArrowDown');
    await expect.poll(selected).not.toBe(first);
    await page.locator('[data-testid=turn]').first().waitFor();
  });

  it('filters decisions by type and text, keeps the filters in the URL, and expands a row', async () => {
    const { page } = ui;
    await go(page, '#/decisions', '[data-testid=decision-row]');
    await page.getByLabel('Decision type').selectOption('UPDATE_USER');
    await expect.poll(() => page.evaluate(() => location.hash)).toContain('type=UPDATE_USER');
    await expect
      .poll(async () => {
        const chips = await page.locator('[data-testid=decision-row] [data-testid=decision-type] .chip').allInnerTexts();
        return chips.length > 0 && chips.every((c) => c.toLowerCase() === 'update user');
      })
      .toBe(true);
    const expected = (
      ui.db.prepare(`SELECT count(*) AS n FROM memory_gate_decisions WHERE decision = 'UPDATE_USER'`).get() as { n: number }
    ).n;
    await expect
      .poll(() => page.locator('[data-testid=decision-row]').count())
      .toBe(Math.min(expected, await page.locator('[data-testid=decision-row]').count()));
    // A reload returns to the same view.
    await page.reload();
    await page.waitForSelector('[data-testid=decision-row]');
    expect(await page.getByLabel('Decision type').inputValue()).toBe('UPDATE_USER');
    await page.locator('[data-testid=decision-row] .list-row').first().click();
    await page.locator('[data-testid=decision-detail] [data-testid=context-window]').waitFor();
    expect(await page.locator('[data-testid=decision-detail]').innerText()).toContain('Reason');
    await noErrorsOnScreen(page);
    await ui.wb.screenshot('decisions-filtered');
  });

  it('searches a Chinese phrase and highlights the matches', async () => {
    const { page } = ui;
    const phrase = '发票请寄到';
    const expected = (
      ui.db.prepare(`SELECT count(*) AS n FROM conversation_turns WHERE user_message_content LIKE '%' || ? || '%'`).get(phrase) as {
        n: number;
      }
    ).n;
    expect(expected).toBeGreaterThan(0);
    await go(page, '#/search', '[data-testid=view-search]');
    await page.getByLabel('Search text').fill(phrase);
    await page.locator('[data-testid=search-hit]').first().waitFor();
    await expect.poll(() => page.evaluate(() => decodeURIComponent(location.hash))).toContain(`q=${phrase}`);
    const marks = await page.locator('[data-testid=search-hit] mark').allInnerTexts();
    expect(marks.length).toBeGreaterThanOrEqual(expected);
    for (const m of marks) expect(m).toBe(phrase);
    await noErrorsOnScreen(page);
    await ui.wb.screenshot('search-chinese');
  });

  it('refreshes by itself when the plugin records a turn while the window is open', async () => {
    const { page } = ui;
    await go(page, '#/sessions', '[data-testid=session-row]');
    const before = await page.locator('[data-testid=session-row]').count();
    // Another process (the plugin's recorder) writes to the same database.
    const recorder = openRecorder({ workspaceDir: ui.dir });
    try {
      const now = Date.now();
      await recorder.upsertSession({
        id: 'channel:telegram:live-check',
        channelId: 'telegram',
        conversationTarget: 'live-check',
        createdAt: now,
        lastActivityAt: now,
      });
      await recorder.insertTurn({
        sessionId: 'channel:telegram:live-check',
        turnNumber: 0,
        userMessage: { content: '实时刷新 live refresh' },
        agentReply: { content: 'ok' },
        createdAt: now,
      });
    } finally {
      recorder.close();
    }
    await expect.poll(() => page.locator('[data-testid=session-row]').count(), { timeout: 15_000 }).toBe(before + 1);
    expect(await page.locator('[data-testid=session-row]').first().innerText()).toContain('live-check');
  });

  it('shows a failed call as a readable message naming the action, and keeps working', async () => {
    const { page } = ui;
    await go(page, '#/writes?id=no-such-write', '[data-testid=view-writes]');
    const error = page.locator('[data-testid=write-detail] .error-message', { hasText: 'Loading the write failed' });
    await error.waitFor();
    expect(await error.innerText()).toMatch(/Loading the write failed\s+NotFound\s+\S+/);
    // The list beside it still works.
    await page.locator('[data-testid=write-row]').first().click();
    await page.locator('[data-testid=write-detail] [data-testid=diff-view]').waitFor();
  });

  it('draws the stats charts', async () => {
    const { page } = ui;
    await go(page, '#/stats', '[data-testid=view-stats]');
    await expect.poll(() => page.locator('[data-testid=view-stats] canvas').count()).toBe(4);
    await noErrorsOnScreen(page);
    await ui.wb.screenshot('stats');
    expect(ui.pageErrors).toEqual([]);
  });
});
