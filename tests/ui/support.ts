// Shared setup of the UI test files: one demo workspace, one browser-mode server and one Chromium per
// file (each file runs in its own worker), plus read-only access to the workspace database.
import Database from 'better-sqlite3';
import type { Page } from 'playwright-core';
import { dbPathFor } from '../../src/core/db/connection';
import { generateDemoWorkspace, type DemoSummary } from '../../src/core/demo';
import { openWorkbench, type BrowserSession } from '../helpers/browser';
import { tempWorkspace } from '../helpers/workspace';

export interface UiFixture {
  dir: string;
  demo: DemoSummary;
  wb: BrowserSession;
  page: Page;
  /** Errors thrown in the page (uncaught), collected for assertions. */
  pageErrors: string[];
  db: Database.Database;
  close(): Promise<void>;
}

export async function startUi(sessions = 14): Promise<UiFixture> {
  const dir = tempWorkspace('reflection-ui-');
  const demo = generateDemoWorkspace(dir, { sessions, seed: 7 });
  const wb = await openWorkbench(dir, { waitFor: '[data-testid=view-sessions]' });
  const pageErrors: string[] = [];
  wb.page.on('pageerror', (e) => pageErrors.push(e.message));
  const db = new Database(dbPathFor(dir), { readonly: true, fileMustExist: true });
  return {
    dir,
    demo,
    wb,
    page: wb.page,
    pageErrors,
    db,
    async close() {
      db.close();
      await wb.close();
    },
  };
}

/** Client-side navigation: only the hash changes, so the page (and its token) stays. */
export async function go(page: Page, hash: string, ready?: string): Promise<void> {
  await page.evaluate((h) => {
    window.location.hash = h;
  }, hash);
  if (ready) await page.waitForSelector(ready, { timeout: 15_000 });
}

/** Fails with the first error message on screen, so a failing API call explains the failing test. */
export async function noErrorsOnScreen(page: Page): Promise<void> {
  const errors = await page.locator('.error-message').allInnerTexts();
  if (errors.length) throw new Error(`error on screen: ${errors.join(' | ')}`);
}
