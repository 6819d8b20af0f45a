// Issue 17, gaps 5 and 6 in Chromium: the Settings view (live capture, retention days, archive schedule)
// validated by main's schemas, retention refusing 0.5 days, a warning for an exclusion that matches
// no session, a retry that asks for a reason, and status chips at WCAG AA contrast (4.5:1).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { go, noErrorsOnScreen, startUi, type UiFixture } from './support';

let ui: UiFixture;
beforeAll(async () => {
  ui = await startUi(6);
  await ui.page.setViewportSize({ width: 1280, height: 800 });
});
afterAll(async () => {
  await ui?.close();
});

const settingsFile = () => path.join(ui.dir, '.openclaw-reflection', 'workbench.json');
const stored = (): Record<string, unknown> => (fs.existsSync(settingsFile()) ? JSON.parse(fs.readFileSync(settingsFile(), 'utf8')) : {});

describe('Settings view', () => {
  it('shows the schema’s problems while typing, refuses to save them, and saves valid values to workbench.json', async () => {
    const { page } = ui;
    await go(page, '#/settings', '[data-testid=view-settings]');
    const save = page.getByRole('button', { name: 'Save settings' });
    await page.getByLabel('Retention days', { exact: true }).fill('0.5');
    await page
      .getByText(/storage\.retentionDays/)
      .first()
      .waitFor({ timeout: 10_000 });
    await page.getByLabel('Archive schedule').fill('every day');
    await page
      .getByText(/storage\.jsonlExport\.schedule/)
      .first()
      .waitFor({ timeout: 10_000 });
    expect(await save.isDisabled()).toBe(true);
    await page.locator('[data-testid=settings-invalid]').waitFor();
    await ui.wb.screenshot('settings-invalid');
    expect(stored()).toEqual({});

    const pluginRoot = path.join(ui.dir, 'plugin');
    fs.mkdirSync(pluginRoot, { recursive: true });
    await page.getByLabel('Plugin root folder').fill(pluginRoot);
    await page.getByLabel('Retention days', { exact: true }).fill('30');
    await page.getByLabel('Archive on a schedule').check();
    await page.getByLabel('Archive schedule').fill('0 3 * * *');
    await expect.poll(() => save.isDisabled(), { timeout: 10_000 }).toBe(false);
    await save.click();
    await page.locator('[data-testid=settings-saved]').waitFor();
    const saved = stored() as {
      pluginRoot?: string;
      storage?: { retentionDays?: number; jsonlExport?: { enabled?: boolean; schedule?: string } };
    };
    expect(saved.pluginRoot).toBe(pluginRoot);
    expect(saved.storage?.retentionDays).toBe(30);
    expect(saved.storage?.jsonlExport).toMatchObject({ enabled: true, schedule: '0 3 * * *' });
    await noErrorsOnScreen(page);
    await ui.wb.screenshot('settings-saved');
  });
});

describe('privacy follow-ups', () => {
  it('retention refuses 0.5 days with the schema’s message', async () => {
    const { page } = ui;
    await go(page, '#/privacy', '[data-testid=retention-panel]');
    await page.getByLabel('Retention days').fill('0.5');
    await page.getByRole('button', { name: 'Preview prune' }).click();
    const error = page.locator('[data-testid=retention-panel] .error-message');
    await error.waitFor({ timeout: 10_000 });
    expect(await error.innerText()).toMatch(/whole days/);
    expect(await page.locator('[data-testid=prune-preview]').count()).toBe(0);
  });

  it('an exclusion that matches no session warns', async () => {
    const { page } = ui;
    await page.getByLabel('Exclusion kind').selectOption('target');
    await page.getByLabel('Exclusion value').fill('telegarm:family-group');
    await page.getByRole('button', { name: 'Exclude' }).click();
    const warning = page.locator('[data-testid=exclusion-unmatched]');
    await warning.waitFor({ timeout: 10_000 });
    expect(await warning.innerText()).toMatch(/matches 0 sessions/);
    await ui.wb.screenshot('exclusion-unmatched-warning');
  });
});

describe('retry', () => {
  it('asks for a reason before saving, and keeps it in the audit', async () => {
    const { page } = ui;
    const a = ui.db
      .prepare(`SELECT id FROM write_guardian_audit WHERE status = 'written' AND candidate_fact IS NOT NULL ORDER BY created_at LIMIT 1`)
      .get() as { id: string };
    await go(page, `#/writes?id=${a.id}&tab=retry`, '[data-testid=retry-flow]');
    await page.getByLabel('Corrected fact').fill('User prefers oolong tea');
    await page.getByRole('button', { name: 'Preview with this fact' }).click();
    const save = page.getByRole('button', { name: /^Save / });
    await save.waitFor({ timeout: 15_000 });
    expect(await save.isDisabled()).toBe(true);
    await page.getByLabel('Retry reason').fill('The user said oolong.');
    await save.click();
    await page.locator('[data-testid=retry-saved]').waitFor({ timeout: 10_000 });
    const row = ui.db
      .prepare(`SELECT reason FROM write_guardian_audit WHERE related_audit_id = ? AND source = 'retry' ORDER BY created_at DESC LIMIT 1`)
      .get(a.id) as { reason: string };
    expect(row.reason).toBe('The user said oolong.');
  });
});

describe('status chips', () => {
  const KINDS = [
    'written',
    'approved',
    'auto_approved',
    'refused',
    'rejected',
    'failed',
    'rolled_back',
    'needs_review',
    'skipped',
    'conflict',
    'pending',
    'external',
    'retry',
    'rollback',
    'no_write',
    'update_memory',
    'update_user',
    'update_soul',
    'update_identity',
    'update_tools',
  ];

  for (const scheme of ['light', 'dark'] as const) {
    it(`meet WCAG AA (4.5:1) at their size, ${scheme} scheme`, async () => {
      const { page } = ui;
      await page.emulateMedia({ colorScheme: scheme });
      await go(page, '#/writes', '[data-testid=write-row]');
      const ratios = await page.evaluate((kinds) => {
        const host = document.createElement('div');
        document.querySelector('main')!.appendChild(host);
        const rgb = (c: string) => (c.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number);
        const lum = (c: number[]) => {
          const [r = 0, g = 0, b = 0] = c.map((v) => v / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
          return 0.2126 * r + 0.7152 * g + 0.0722 * b;
        };
        const out: Record<string, number> = {};
        for (const k of kinds) {
          const chip = document.createElement('span');
          chip.className = `chip chip-${k.replace(/_/g, '-')}`;
          chip.textContent = k;
          host.appendChild(chip);
          const style = getComputedStyle(chip);
          const bg = style.backgroundColor === 'rgba(0, 0, 0, 0)' ? getComputedStyle(document.body).backgroundColor : style.backgroundColor;
          const [a, b] = [lum(rgb(style.color)), lum(rgb(bg))];
          out[k] = Math.round(((Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)) * 100) / 100;
        }
        host.remove();
        return out;
      }, KINDS);
      const low = Object.entries(ratios).filter(([, r]) => r < 4.5);
      expect(low).toEqual([]);
      await page.emulateMedia({ colorScheme: 'light' });
    });
  }
});
