// Chromium on browser mode: hostile conversation text is shown as text and nothing in it runs.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoWorkspace, HOSTILE_SESSION_ID } from '../../src/core/demo';
import { openWorkbench, type BrowserSession } from '../helpers/browser';
import { tempWorkspace } from '../helpers/workspace';

describe('hostile text in Chromium', () => {
  let wb: BrowserSession;
  const dialogs: string[] = [];
  const navigations: string[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    const dir = tempWorkspace('reflection-xss-');
    generateDemoWorkspace(dir, { sessions: 4, seed: 3 });
    wb = await openWorkbench(dir, { waitFor: '[data-testid=view-sessions]' });
    wb.page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    wb.page.on('framenavigated', (f) => navigations.push(f.url()));
    wb.page.on('pageerror', (e) => pageErrors.push(e.message));
  });
  afterAll(async () => {
    await wb?.close();
  });

  it('takes the token out of the address bar; the page never holds it (HttpOnly cookie)', async () => {
    expect(wb.page.url()).not.toContain('token=');
    expect(
      await wb.page.evaluate(() => `${document.cookie}|${JSON.stringify(sessionStorage)}|${JSON.stringify(localStorage)}`),
    ).not.toContain(wb.token);
    await wb.page.reload({ waitUntil: 'load' });
    await wb.page.waitForSelector('[data-testid=view-sessions]');
    expect(await wb.page.locator('.error-message').count()).toBe(0);
  });

  it('shows <img onerror> and a javascript: markdown link as text; nothing runs, nothing navigates', async () => {
    const { page } = wb;
    await page.evaluate((id) => {
      window.location.hash = `#/sessions?id=${encodeURIComponent(id)}`;
    }, HOSTILE_SESSION_ID);
    await page.waitForSelector('[data-testid=turn]', { timeout: 15_000 });
    const img = page.getByText('<img src=x onerror=alert(1)>', { exact: true }).first();
    await img.waitFor({ timeout: 10_000 });
    expect(await img.isVisible()).toBe(true);
    const link = page.getByText('[click me](javascript:alert(1))', { exact: false }).first();
    expect(await link.isVisible()).toBe(true);
    navigations.length = 0;
    const before = page.url();
    await link.click();
    await img.click();
    await page.waitForTimeout(500);
    const dom = await page.evaluate(() => ({
      injectedImages: document.querySelectorAll('img[src="x"], img[onerror]').length,
      handlerAttributes: [...document.querySelectorAll('*')].filter((el) => [...el.attributes].some((a) => a.name.startsWith('on'))).length,
      javascriptLinks: [...document.querySelectorAll('a[href]')].filter((a) => /^\s*javascript:/i.test(a.getAttribute('href') ?? ''))
        .length,
      scripts: [...document.querySelectorAll('script')].filter((s) => !s.src).length,
    }));
    expect(dom).toEqual({ injectedImages: 0, handlerAttributes: 0, javascriptLinks: 0, scripts: 0 });
    expect(dialogs).toEqual([]);
    expect(page.url()).toBe(before);
    expect(navigations.filter((u) => !u.startsWith(wb.origin))).toEqual([]);
    expect(pageErrors).toEqual([]);
    await img.scrollIntoViewIfNeeded();
    const file = await wb.screenshot('app-hostile-text');
    expect(file).toMatch(/app-hostile-text\.png$/);
  });

  it("downloads an export through the page's link: the cookie gets a one-use ticket, the link holds no credential", async () => {
    const dir = wb.runtime.session.dir;
    const exportDir = path.join(dir, '.openclaw-reflection', 'exports', 'page-link');
    fs.mkdirSync(exportDir, { recursive: true });
    fs.writeFileSync(path.join(exportDir, 'train.jsonl'), '{"page":1}\n');
    wb.runtime.session.db
      .prepare(
        `INSERT INTO dataset_exports (id, export_name, export_format, sample_types, file_path, files, exported_at)
      VALUES ('exp-page', 'page-link', 'openai', '[]', ?, ?, 1)`,
      )
      .run(exportDir, JSON.stringify([{ name: 'train.jsonl' }]));
    const link = '/api/download?exportId=exp-page&file=train.jsonl';
    const got = await wb.page.evaluate(async (href) => {
      const r = await fetch(href);
      return { status: r.status, url: r.url, body: await r.text() };
    }, link);
    expect(got.status).toBe(200);
    expect(got.body).toBe('{"page":1}\n');
    expect(got.url).toMatch(/\/api\/download\?ticket=/);
    expect(got.url).not.toContain(wb.token);
  });
});
