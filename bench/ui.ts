// UI responsiveness on a big workspace, measured in Chromium through browser mode (run by hand:
// `npx tsx bench/ui.ts [workspace-dir]`). Without a folder, or with an empty one, it first generates a
// demo workspace of BENCH_UI_TURNS turns (default 1,000,000; takes a while). Prints numbers; asserts nothing.
//   - navigation to the first rendered page of Sessions and of Decisions
//   - scrolling 10,000 Decisions rows: long tasks over 50 ms (PerformanceObserver 'longtask')
//   - idle: API calls while Decisions and the rollback preview sit still for 5 s (should be 0)
//   - review: key press to the next sample on screen
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { dbPathFor } from '../src/core/db/connection';
import { DEMO_BASE_TIME, generateDemoWorkspace } from '../src/core/demo';
import { launchChromium, serveWorkspace } from '../tests/helpers/browser';
import { fmt, percentile } from './util';

// The review view records key-press timings on the page's window (ReviewView.tsx declares the field).
type ReviewWindow = Window & { __reviewTimings?: number[] };

const TURNS = Number(process.env.BENCH_UI_TURNS ?? 1_000_000);
const SCROLL_ROWS = 10_000;
const REVIEW_KEYS = 40;
const IDLE_MS = 5000;

function ensureWorkspace(dir: string | undefined): string {
  const target = dir ? path.resolve(dir) : fs.mkdtempSync(path.join(os.tmpdir(), 'reflection-bench-ui-'));
  if (fs.existsSync(dbPathFor(target))) return target;
  const turnsPerSession = 50;
  const sessions = Math.max(1, Math.round(TURNS / turnsPerSession));
  console.log(`generating ${sessions * turnsPerSession} turns into ${target} ...`);
  const s = generateDemoWorkspace(target, {
    sessions,
    turnsPerSession,
    progress: (done, total) => {
      if (done % 100_000 < 2000) process.stdout.write(`  ${done}/${total}\r`);
    },
  });
  console.log(`generated ${s.turns} turns, ${s.decisions} decisions in ${(s.elapsedMs / 1000).toFixed(0)} s`);
  return target;
}

/** ms from navigation start until `selector` is in the DOM (the page's own clock). */
async function firstRender(page: Page, url: string, selector: string): Promise<number> {
  await page.goto(url, { waitUntil: 'commit' });
  const handle = await page.waitForFunction((sel) => (document.querySelector(sel) ? performance.now() : null), selector, {
    timeout: 60_000,
    polling: 'raf',
  });
  return (await handle.jsonValue()) as number;
}

async function scrollRows(page: Page, rows: number): Promise<{ ms: number; longTasks: number[]; reached: number }> {
  return page.evaluate(async (target) => {
    const scroller = document.querySelector('[data-testid=list-scroll]') as HTMLElement;
    const longTasks: number[] = [];
    const obs = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) longTasks.push(e.duration);
    });
    obs.observe({ type: 'longtask', buffered: false });
    const maxIndex = () => {
      let m = 0;
      scroller.querySelectorAll('[data-index]').forEach((el) => (m = Math.max(m, Number((el as HTMLElement).dataset.index))));
      return m;
    };
    const t0 = performance.now();
    // About 25 rows a frame: a fast fling, waiting for pages where the loaded rows end.
    while (maxIndex() < target && performance.now() - t0 < 120_000) {
      scroller.scrollTop += 1000;
      await new Promise((r) => requestAnimationFrame(r));
    }
    const ms = performance.now() - t0;
    await new Promise((r) => setTimeout(r, 200));
    obs.disconnect();
    return { ms, longTasks, reached: maxIndex() };
  }, rows);
}

/** API calls (the event stream aside) a page makes in `ms` after it finished loading `url`. */
async function idleCalls(page: Page, url: string, ms: number): Promise<number> {
  let calls = 0;
  const count = (r: { url(): string }) => {
    const p = new URL(r.url()).pathname;
    if (p.startsWith('/api/') && p !== '/api/events') calls++;
  };
  await page.goto(url, { waitUntil: 'networkidle' });
  await page.waitForTimeout(1000);
  page.on('request', count);
  await page.waitForTimeout(ms);
  page.off('request', count);
  return calls;
}

async function api(origin: string, token: string, channel: string, input: unknown): Promise<unknown> {
  let res: Response | undefined;
  for (let attempt = 0; !res; attempt++) {
    try {
      res = await fetch(`${origin}/api/${channel}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Reflection-Token': token },
        body: JSON.stringify(input),
      });
    } catch (e) {
      // A long job can hold main's event loop; a kept-alive socket may be dropped meanwhile.
      if (attempt >= 5) throw e;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
  const body = (await res.json()) as { ok: boolean; value?: unknown; error?: { message: string } };
  if (!body.ok) throw new Error(`${channel}: ${body.error?.message}`);
  return body.value;
}

async function main() {
  const dir = ensureWorkspace(process.argv[2]);
  const served = await serveWorkspace(dir);
  const chrome = await launchChromium();
  try {
    const page = chrome.context.pages()[0] ?? (await chrome.context.newPage());
    // tsx keeps function names through a __name helper; functions sent to the page need it there too.
    await page.addInitScript({ content: 'window.__name = (f) => f;' });
    const base = served.url; // carries ?token=
    const withHash = (h: string) => `${base}${h}`;
    // Warm the server and the browser cache once, as a curator's second launch would be.
    await firstRender(page, withHash('#/sessions'), '[data-testid=session-row]');

    const sessions: number[] = [];
    const decisions: number[] = [];
    for (let i = 0; i < 3; i++) {
      sessions.push(await firstRender(page, withHash('#/sessions'), '[data-testid=session-row]'));
      decisions.push(await firstRender(page, withHash('#/decisions'), '[data-testid=decision-row]'));
    }
    console.log(
      `first rendered page, Sessions:  median ${fmt(percentile(sessions, 50), 0)} ms (runs: ${sessions.map((x) => x.toFixed(0)).join(', ')})`,
    );
    console.log(
      `first rendered page, Decisions: median ${fmt(percentile(decisions, 50), 0)} ms (runs: ${decisions.map((x) => x.toFixed(0)).join(', ')})`,
    );

    const scroll = await scrollRows(page, SCROLL_ROWS);
    const over50 = scroll.longTasks.filter((d) => d > 50);
    console.log(
      `scroll ${scroll.reached} Decisions rows: ${fmt(scroll.ms / 1000, 1)} s, long tasks: ${scroll.longTasks.length} (over 50 ms: ${over50.length}, longest ${fmt(Math.max(0, ...scroll.longTasks), 0)} ms; all: ${scroll.longTasks.map((d) => d.toFixed(0)).join(' ')})`,
    );

    // Idle: a view that sits still makes no API call (the live event stream aside), the rollback preview
    // included; on a big workspace a reload loop would show up here first.
    const latest = (await api(served.origin, served.token, 'guardian.list', { status: 'written', limit: 1 })) as {
      items: { id: string }[];
    };
    for (const hash of ['#/decisions', ...(latest.items[0] ? [`#/writes?id=${latest.items[0].id}&tab=rollback`] : [])]) {
      const calls = await idleCalls(page, withHash(hash), IDLE_MS);
      console.log(
        `idle ${IDLE_MS / 1000} s on ${hash.split('?')[0]}${hash.includes('rollback') ? ' (rollback preview)' : ''}: ${calls} API calls`,
      );
    }

    // Review: collect the samples of two days (a full collection of a million turns is the dataset bench's
    // job). The demo's first days hold its real file writes; another workspace falls back to its newest days.
    const newest = (await api(served.origin, served.token, 'gate.list', { limit: 1 })) as { items: { createdAt: number }[] };
    const windows = [DEMO_BASE_TIME, (newest.items[0]?.createdAt ?? Date.now()) - 2 * 86_400_000];
    for (const since of windows) {
      const job = (await api(served.origin, served.token, 'dataset.collect', { since, until: since + 2 * 86_400_000 })) as {
        jobId: string;
      };
      let added = 0;
      for (;;) {
        const st = (await api(served.origin, served.token, 'jobs.get', { jobId: job.jobId })) as {
          state: string;
          result: { added: number } | null;
          error: { message: string } | null;
        };
        if (st.state !== 'running') {
          added = st.result?.added ?? 0;
          console.log(`collected ${added} samples for the review queue (${st.state}${st.error ? `: ${st.error.message}` : ''})`);
          break;
        }
        await new Promise((r) => setTimeout(r, 500));
      }
      if (added > 0) break;
    }
    await page.goto(withHash('#/review?status=all'), { waitUntil: 'load' });
    await page.waitForSelector('[data-testid=review-sample]', { timeout: 60_000 });
    for (let i = 0; i < REVIEW_KEYS; i++) {
      await page.keyboard.press(i % 5 === 4 ? 'r' : 'a');
      await page.waitForTimeout(60); // a fast curator: about 16 keys a second
    }
    await page.waitForTimeout(300);
    const timings = (await page.evaluate(() => (window as ReviewWindow).__reviewTimings ?? [])) as number[];
    console.log(
      `review key press to next sample on screen: median ${fmt(percentile(timings, 50), 1)} ms, p95 ${fmt(percentile(timings, 95), 1)} ms, max ${fmt(Math.max(...timings), 1)} ms (${timings.length} keys)`,
    );
    // The same with the queue's filters and sort on (review.queue filters in SQL; the screen does not care).
    await page.goto(withHash('#/review?status=all&minq=0.3&pii=without&sort=quality_desc'), { waitUntil: 'load' });
    await page.waitForSelector('[data-testid=review-sample]', { timeout: 60_000 });
    await page.evaluate(() => ((window as ReviewWindow).__reviewTimings = []));
    for (let i = 0; i < REVIEW_KEYS; i++) {
      await page.keyboard.press(i % 5 === 4 ? 'r' : 'a');
      await page.waitForTimeout(60);
    }
    await page.waitForTimeout(300);
    const filtered = (await page.evaluate(() => (window as ReviewWindow).__reviewTimings ?? [])) as number[];
    console.log(
      `review with filters on (quality >= 0.3, no PII, best first): median ${fmt(percentile(filtered, 50), 1)} ms, p95 ${fmt(percentile(filtered, 95), 1)} ms, max ${fmt(Math.max(...filtered), 1)} ms (${filtered.length} keys)`,
    );
  } finally {
    await chrome.close();
    await served.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
