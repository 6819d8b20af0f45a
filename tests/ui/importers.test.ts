// What the importers bring in, seen in Chromium: models compared on the same eval scenarios in
// Stats, and OpenClaw's daily notes beside the sessions of their day.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWorkspaceDatabase } from '../../src/core/db/connection';
import { importDailyNotes, importEvals } from '../../src/core/importers';
import { evalsDir, writeFile } from '../importers/helpers';
import { go, noErrorsOnScreen, startUi, type UiFixture } from './support';

/** The local calendar day, as OpenClaw names its notes and the panel asks for them. */
const localDay = (t: number) => {
  const d = new Date(t);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
};

let ui: UiFixture;
let sessionId: string;
const NOTE = '# 今日笔记\n\n- 用户说以后默认用中文回复。\n- <b>not html</b>\n';

function run(model: string, ids: string[], failFirst: number) {
  return {
    runId: `run-${model}`,
    timestamp: '2026-03-08T17:56:26.650Z',
    suite: 'memory-gate',
    models: [
      { modelId: model, modelLabel: model.toUpperCase(), results: ids.map((scenarioId, i) => ({ scenarioId, pass: i >= failFirst })) },
    ],
  };
}

beforeAll(async () => {
  ui = await startUi(3);
  const root = path.join(ui.dir, 'plugin');
  fs.cpSync(evalsDir, path.join(root, 'evals', 'datasets'), { recursive: true });
  const ids = fs
    .readFileSync(path.join(evalsDir, 'memory-gate', 'benchmark.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l).scenario_id as string);
  writeFile(path.join(root, 'evals', 'results', 'a.json'), JSON.stringify(run('model-a', ids, 1)));
  writeFile(path.join(root, 'evals', 'results', 'b.json'), JSON.stringify(run('model-b', ids, 6)));
  const session = ui.db.prepare('SELECT id, created_at AS at FROM sessions ORDER BY created_at LIMIT 1').get() as {
    id: string;
    at: number;
  };
  sessionId = session.id;
  writeFile(path.join(ui.dir, 'oc', 'memory', `${localDay(session.at)}.md`), NOTE);
  const { db } = openWorkspaceDatabase(ui.dir);
  const ctx = { db, workspaceDir: ui.dir };
  await importEvals(ctx, { source: root });
  await importDailyNotes(ctx, { source: path.join(ui.dir, 'oc') });
  db.close();
}, 60_000);
afterAll(async () => {
  await ui?.close();
});

describe('imported eval runs and daily notes', () => {
  it('compares models on the same scenarios in Stats', async () => {
    const { page } = ui;
    await page.reload();
    await go(page, '#/stats', '[data-testid=eval-models-table]');
    const rows = page.locator('[data-testid=eval-models-table] tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.nth(0).innerText()).toMatch(/MODEL-A\s+17\/18 \(94%\)/);
    expect(await rows.nth(1).innerText()).toMatch(/MODEL-B\s+12\/18 \(67%\)/);
    await page.locator('[data-testid=eval-models] summary').click();
    expect(await page.locator('[data-testid=eval-scenarios-table] tbody tr').count()).toBe(12);
    await noErrorsOnScreen(page);
    await page.locator('[data-testid=eval-models]').scrollIntoViewIfNeeded();
    await ui.wb.screenshot('stats-eval-models');
  });

  it('shows the daily note of the session’s day beside its timeline, as text', async () => {
    const { page } = ui;
    await go(page, `#/sessions?id=${encodeURIComponent(sessionId)}`, '[data-testid=daily-notes]');
    await page.locator('[data-testid=daily-notes] summary').click();
    const note = page.locator('[data-testid=daily-note]');
    await expect.poll(() => note.count()).toBe(1);
    expect(await note.locator('pre').innerText()).toContain('用户说以后默认用中文回复。');
    // Untrusted text: the tag is shown, never rendered.
    expect(await note.locator('pre').innerText()).toContain('<b>not html</b>');
    expect(await note.locator('b').count()).toBe(0);
    await noErrorsOnScreen(page);
    await ui.wb.screenshot('sessions-daily-notes');
  });
});
