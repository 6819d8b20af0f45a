// The workbench must not hammer itself (issue 14, items 15 and 16): a view that sits idle makes no API
// call apart from the live event stream, the rollback preview included; and the status-bar counts
// follow change events, including writes made by another process (the CLI, an import, the plugin).
import type { Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRecorder } from '../../src/recorder';
import { go, noErrorsOnScreen, startUi, type UiFixture } from './support';

let ui: UiFixture;
const calls: string[] = [];
beforeAll(async () => {
  ui = await startUi(8);
  ui.page.on('request', (r: Request) => {
    const url = new URL(r.url());
    if (url.pathname.startsWith('/api/') && url.pathname !== '/api/events') calls.push(url.pathname.slice(5));
  });
});
afterAll(async () => {
  await ui?.close();
});

/** Lets the view finish loading, then counts the API calls made during `ms` of idleness. */
async function idleCalls(ms: number): Promise<string[]> {
  await ui.page.waitForLoadState('networkidle');
  await ui.page.waitForTimeout(800);
  calls.length = 0;
  await ui.page.waitForTimeout(ms);
  return [...calls];
}

function latestWrite(): string {
  return (
    ui.db
      .prepare(
        `SELECT a.id FROM write_guardian_audit a WHERE a.status = 'written' AND a.after_snapshot_id IS NOT NULL
         AND a.created_at = (SELECT max(created_at) FROM write_guardian_audit b WHERE b.target_file = a.target_file)
         ORDER BY a.created_at DESC LIMIT 1`,
      )
      .get() as { id: string }
  ).id;
}

describe('idle views make no API calls', () => {
  it('the rollback preview, idle for 5 s, calls nothing (it used to loop on its own dry run)', async () => {
    const id = latestWrite();
    await go(ui.page, `#/writes?id=${id}&tab=rollback`, '[data-testid=rollback-flow]');
    await ui.page.locator('[data-testid=rollback-mode], [data-testid=rollback-conflict]').first().waitFor({ timeout: 15_000 });
    expect(await idleCalls(5000)).toEqual([]);
    const idempotency = (ui.db.prepare('SELECT count(*) AS n FROM api_idempotency').get() as { n: number }).n;
    expect(idempotency).toBe(0);
    await noErrorsOnScreen(ui.page);
  });

  it('every view (sessions with a timeline, decisions, writes, stats, privacy, settings, search, datasets, review, memory health) stays quiet for 5 s', async () => {
    const session = (ui.db.prepare('SELECT id FROM sessions ORDER BY last_activity_at DESC LIMIT 1').get() as { id: string }).id;
    const views: [string, string][] = [
      [`#/sessions?id=${session}`, '[data-testid=turn]'],
      ['#/decisions', '[data-testid=decision-row]'],
      [`#/writes?id=${latestWrite()}`, '[data-testid=diff-view]'],
      ['#/stats', '[data-testid=view-stats]'],
      ['#/privacy', '[data-testid=view-privacy]'],
      ['#/settings', '[data-testid=view-settings]'],
      ['#/search?q=coffee', '[data-testid=search-hit]'],
      ['#/datasets', '[data-testid=view-datasets]'],
      ['#/review', '[data-testid=view-review]'],
      ['#/health', '[data-testid=view-health]'],
    ];
    for (const [hash, ready] of views) {
      await go(ui.page, hash, ready).catch((e: Error) => {
        throw new Error(`${hash}: ${e.message}`);
      });
      expect({ hash, calls: await idleCalls(5000) }).toEqual({ hash, calls: [] });
    }
  }, 150_000);
});

describe('a change reloads only the views that show it', () => {
  it('a settings change reloads nothing on the Writes view; a correction of a write reloads its list and detail', async () => {
    const id = latestWrite();
    await go(ui.page, `#/writes?id=${id}`, '[data-testid=diff-view]');
    await idleCalls(300);
    calls.length = 0;
    const set = await ui.wb.runtime.registry.dispatch('settings.set', { patch: { liveCapture: { pollIntervalMs: 700 } } });
    expect(set.ok).toBe(true);
    await ui.page.waitForTimeout(1500);
    // Nothing on this screen reads settings: lists, details and the status bar declare their areas, and
    // components that do not (useAsync) learnt theirs from the channels they called.
    expect(calls).toEqual([]);
    const corrected = await ui.wb.runtime.registry.dispatch('guardian.correct', {
      auditId: id,
      status: 'refused',
      reason: 'not a lasting fact',
    });
    expect(corrected.ok).toBe(true);
    await expect
      .poll(() => [...new Set(calls)].sort(), { timeout: 5000 })
      .toEqual(expect.arrayContaining(['guardian.list', 'guardian.show']));
    // Views of other areas stay as they are.
    expect(calls.filter((c) => /^(gate|sessions|turns|search|settings|exclusions)\./.test(c))).toEqual([]);
  });
});

describe('status-bar counts', () => {
  it('follow a write made by another process within a few seconds, without a reload', async () => {
    await go(ui.page, '#/sessions', '[data-testid=session-row]');
    const bar = ui.page.locator('[data-testid=statusbar]');
    const sessionsShown = async () => Number((/([\d,]+) sessions/.exec(await bar.innerText())?.[1] ?? '-1').replace(/,/g, ''));
    const before = await sessionsShown();
    expect(before).toBe(8);
    // Another connection, as the CLI or the plugin would write.
    const rec = openRecorder({ workspaceDir: ui.dir });
    const now = Date.now();
    await rec.upsertSession({ id: 'idle-test-session', channelId: 'cli', createdAt: now, lastActivityAt: now });
    await rec.insertTurn({
      sessionId: 'idle-test-session',
      userMessage: { content: 'hello' },
      agentReply: { content: 'hi' },
      createdAt: now,
    });
    rec.close();
    await expect.poll(sessionsShown, { timeout: 8000 }).toBe(before + 1);
    // The list that shows sessions reloaded too (it was at the top).
    await expect.poll(() => ui.page.locator('[data-testid=session-row]').count(), { timeout: 8000 }).toBeGreaterThan(0);
    await ui.page
      .getByText('idle-test-session')
      .first()
      .waitFor({ timeout: 8000 })
      .catch(() => undefined);
    await ui.wb.screenshot('statusbar-after-external-write');
  });
});
