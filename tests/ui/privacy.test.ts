// The collection strategy form writes workbench.json; the Privacy & retention view adds an exclusion
// to the database, and its purge dry run shows counts without changing any table.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { go, noErrorsOnScreen, startUi, type UiFixture } from './support';

let ui: UiFixture;
beforeAll(async () => {
  ui = await startUi(12);
});
afterAll(async () => {
  await ui?.close();
});

const settingsFile = () => path.join(ui.dir, '.openclaw-reflection', 'workbench.json');

// Every table but api_idempotency: a dry run is a mutating call, so browser mode stores its Idempotency-Key.
function tableCounts(): Record<string, number> {
  const tables = ui.db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'api_idempotency' ORDER BY name")
    .pluck()
    .all() as string[];
  return Object.fromEntries(
    tables.map((t) => [
      t,
      ui.db
        .prepare(`SELECT count(*) FROM "${t.replace(/"/g, '""')}"`)
        .pluck()
        .get() as number,
    ]),
  );
}

describe('privacy and strategy settings', () => {
  it('edits the collection strategy, refuses a bad value naming it, and saves to workbench.json', async () => {
    const { page } = ui;
    await go(page, '#/datasets', '[data-testid=collect-panel]');
    await page.locator('[data-testid=strategy-details] summary').click();
    const form = page.locator('[data-testid=strategy-form]');
    const minQ = form.getByLabel('Minimum quality score');
    await minQ.fill('1.5');
    await expect
      .poll(() => page.locator('[data-testid=strategy-problems]').innerText())
      .toContain('datasetCollection.positiveCriteria.minQualityScore');
    expect(await form.getByRole('button', { name: 'Save strategy' }).isDisabled()).toBe(true);
    expect(fs.existsSync(settingsFile())).toBe(false);

    await minQ.fill('0.55');
    await form.getByLabel('Not rolled back within days').fill('14');
    await form.getByLabel('guardian refused').uncheck();
    await form.getByLabel('Redact patterns').fill('api[_-]?key\npassword\ninternal[_-]id');
    await form.getByRole('button', { name: 'Save strategy' }).click();
    await page.locator('[data-testid=strategy-saved]').waitFor();
    await ui.wb.screenshot('datasets-strategy-form');

    const saved = JSON.parse(fs.readFileSync(settingsFile(), 'utf8')) as {
      datasetCollection: {
        positiveCriteria: Record<string, unknown>;
        negativeCriteria: Record<string, unknown>;
        privacyFiltering: { redactPatterns: string[] };
      };
    };
    expect(saved.datasetCollection.positiveCriteria.minQualityScore).toBe(0.55);
    expect(saved.datasetCollection.positiveCriteria.notRolledBackWithinDays).toBe(14);
    expect(saved.datasetCollection.negativeCriteria.guardianRefused).toBe(false);
    expect(saved.datasetCollection.privacyFiltering.redactPatterns).toEqual(['api[_-]?key', 'password', 'internal[_-]id']);
    // The form shows the stored values again after the reload from settings.get.
    expect(await minQ.inputValue()).toBe('0.55');
    await noErrorsOnScreen(page);
  });

  it('adds a session exclusion through the UI, and a purge dry run shows counts and changes nothing', async () => {
    const { page } = ui;
    const session = ui.db
      .prepare(
        'SELECT s.id FROM sessions s WHERE EXISTS (SELECT 1 FROM conversation_turns t WHERE t.session_id = s.id) ORDER BY s.id LIMIT 1',
      )
      .pluck()
      .get() as string;
    const turns = ui.db.prepare('SELECT count(*) FROM conversation_turns WHERE session_id = ?').pluck().get(session) as number;
    expect(turns).toBeGreaterThan(0);

    await go(page, '#/privacy', '[data-testid=exclusions-panel]');
    const panel = page.locator('[data-testid=exclusions-panel]');
    await panel.getByLabel('Exclusion kind').selectOption('session');
    await panel.getByLabel('Exclusion value').fill(session);
    await panel.getByLabel('Exclusion reason').fill('user asked to be forgotten');
    await panel.getByRole('button', { name: 'Exclude' }).click();
    const row = panel.locator('[data-testid=exclusion-row]', { hasText: session });
    await row.waitFor();
    const stored = ui.db.prepare('SELECT id, kind, value, reason FROM exclusions').all() as {
      id: string;
      kind: string;
      value: string;
      reason: string;
    }[];
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ kind: 'session', value: session, reason: 'user asked to be forgotten' });
    expect(await row.innerText()).toContain('user asked to be forgotten');

    const before = tableCounts();
    await row.getByRole('button', { name: 'Purge…' }).click();
    const preview = page.locator('[data-testid=purge-preview]');
    await preview.locator('[data-testid=purge-counts]').waitFor();
    const previewText = await preview.innerText();
    expect(previewText).toContain('Dry run: 1 session;');
    expect(previewText).toContain('conversation_turns');
    // Not confirmed yet: the irreversible button stays disabled.
    expect(await preview.getByRole('button', { name: 'Purge permanently' }).isDisabled()).toBe(true);
    await ui.wb.screenshot('privacy-purge-dry-run');
    expect(tableCounts()).toEqual(before);
    expect(ui.db.prepare('SELECT count(*) FROM conversation_turns WHERE session_id = ?').pluck().get(session)).toBe(turns);

    await preview.getByRole('button', { name: 'Cancel' }).click();
    await preview.waitFor({ state: 'detached' });
    expect(tableCounts()).toEqual(before);
    await noErrorsOnScreen(page);
    expect(ui.pageErrors).toEqual([]);
  });

  it('previews a prune without deleting, and archives conversations as a job without the excluded session', async () => {
    const { page } = ui;
    await go(page, '#/privacy', '[data-testid=retention-panel]');
    const before = tableCounts();
    const retention = page.locator('[data-testid=retention-panel]');
    await retention.getByLabel('Retention days').fill('30'); // whole days, at least the schema's minimum
    await retention.getByRole('button', { name: 'Preview prune' }).click();
    await retention.locator('[data-testid=prune-preview]').waitFor();
    expect(await retention.locator('[data-testid=prune-preview]').innerText()).toContain('Dry run: would delete');
    expect(await retention.getByRole('button', { name: 'Apply prune' }).isDisabled()).toBe(true);
    expect(tableCounts()).toEqual(before);

    const excluded = ui.db.prepare("SELECT value FROM exclusions WHERE kind = 'session'").pluck().get() as string;
    const archive = page.locator('[data-testid=archive-panel]');
    await archive.getByRole('button', { name: 'Export conversations' }).click();
    await archive.locator('[data-testid=archive-result]').waitFor({ timeout: 30_000 });
    await ui.wb.screenshot('privacy-retention-archive');
    const dir = path.join(ui.dir, '.openclaw-reflection', 'exports');
    const file = fs.readdirSync(dir).find((f) => f.startsWith('conversations-') && f.endsWith('.jsonl'));
    expect(file).toBeDefined();
    const lines = fs.readFileSync(path.join(dir, file!), 'utf8').trim().split('\n');
    expect(await archive.locator('[data-testid=archive-result]').innerText()).toContain(`Wrote ${lines.length} turns`);
    expect(lines.length).toBeGreaterThan(0);
    const sessions = new Set(lines.map((l) => (JSON.parse(l) as { session: { id: string } }).session.id));
    expect(sessions.size).toBeGreaterThan(1);
    expect(sessions.has(excluded)).toBe(false);
    await noErrorsOnScreen(page);
  });
});
