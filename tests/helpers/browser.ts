// Browser-mode harness for UI tests: starts the workbench's HTTP server in-process on a workspace
// (free 127.0.0.1 port, fresh state folder) and drives Debian's Chromium through playwright-core.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { createAppRuntime, type AppRuntime } from '../../src/api/runtime';
import { startWebServer, type WebServer } from '../../src/web/server';
import type { RateLimitOptions } from '../../src/web/security';

// Not imported from ./workspace: that file registers vitest hooks, and this harness also runs from scripts.
const repoRoot = path.resolve(__dirname, '..', '..');

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
export const rendererDir = path.join(repoRoot, 'out', 'renderer');
export const screenshotDir = path.join(repoRoot, 'test-output', 'screenshots');

export interface WorkbenchServer {
  runtime: AppRuntime;
  server: WebServer;
  /** The URL with ?token=, as printed by `reflection open --web`: opening it exchanges the token for the session cookie. */
  url: string;
  origin: string;
  token: string;
  stateDir: string;
  close(): Promise<void>;
}

export interface ServeOptions {
  rateLimit?: RateLimitOptions;
  port?: number;
  /** Folders the page may name paths in (`--allow-dir`); default: the workspace and its plugin root. */
  allowDirs?: string[];
}

/** Starts browser mode on an existing workspace folder (no Chromium). */
export async function serveWorkspace(workspaceDir: string, opts: ServeOptions = {}): Promise<WorkbenchServer> {
  if (!fs.existsSync(path.join(rendererDir, 'index.html'))) {
    throw new Error('out/renderer is not built: run `npx electron-vite build` (npm test does it first)');
  }
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'reflection-state-'));
  const runtime = createAppRuntime({ mode: 'web', stateDir, log: { warn: () => undefined }, allowDirs: opts.allowDirs });
  runtime.session.open(workspaceDir);
  const server = await startWebServer({ runtime, rendererDir, rateLimit: opts.rateLimit, port: opts.port });
  return {
    runtime,
    server,
    url: server.url,
    origin: server.origin,
    token: server.token,
    stateDir,
    async close() {
      await server.close();
      await runtime.close();
      fs.rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

export interface BrowserSession extends WorkbenchServer {
  context: BrowserContext;
  page: Page;
  /** Saves test-output/screenshots/<name>.png and returns its path. */
  screenshot(name: string): Promise<string>;
}

/** A fresh Chromium (its own user-data-dir) as a persistent context; close() also removes the profile. */
export async function launchChromium(
  viewport = { width: 1400, height: 900 },
): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  if (!fs.existsSync(CHROMIUM_PATH)) throw new Error(`${CHROMIUM_PATH} is missing: apt-get install -y chromium`);
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'reflection-chromium-'));
  try {
    const context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: CHROMIUM_FLAGS,
      viewport,
    });
    return {
      context,
      async close() {
        await context.close().catch(() => undefined);
        fs.rmSync(userDataDir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    fs.rmSync(userDataDir, { recursive: true, force: true });
    throw e;
  }
}

export async function saveScreenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(screenshotDir, { recursive: true });
  const file = path.join(screenshotDir, `${name.replace(/[^\w.-]+/g, '_')}.png`);
  await page.screenshot({ path: file, fullPage: false });
  return file;
}

/**
 * Browser mode on `workspaceDir` plus a fresh Chromium page already at the workbench URL.
 * Returns {page, url, token, close, ...}; close() stops the browser and the server.
 */
export async function openWorkbench(
  workspaceDir: string,
  opts: ServeOptions & { viewport?: { width: number; height: number }; path?: string; waitFor?: string } = {},
): Promise<BrowserSession> {
  const served = await serveWorkspace(workspaceDir, opts);
  let chrome: Awaited<ReturnType<typeof launchChromium>> | undefined;
  try {
    chrome = await launchChromium(opts.viewport);
    const { context } = chrome;
    const page = context.pages()[0] ?? (await context.newPage());
    const target = new URL(served.url);
    if (opts.path) target.pathname = opts.path;
    await page.goto(target.toString(), { waitUntil: 'load' });
    if (opts.waitFor) await page.waitForSelector(opts.waitFor, { timeout: 15_000 });
    const closeChrome = chrome.close;
    return {
      ...served,
      context,
      page,
      screenshot: (name: string) => saveScreenshot(page, name),
      async close() {
        await closeChrome();
        await served.close();
      },
    };
  } catch (e) {
    await chrome?.close();
    await served.close();
    throw e;
  }
}
