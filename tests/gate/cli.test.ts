import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Papa from 'papaparse';
import { beforeAll, describe, expect, it } from 'vitest';
import { clip, displayWidth } from '../../src/cli/commands/gate';
import { repoRoot, tempWorkspace } from '../helpers/workspace';

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, [path.join(repoRoot, 'bin', 'reflection.cjs'), ...args], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

let ws: string;

beforeAll(() => {
  ws = path.join(tempWorkspace(), 'demo');
  const r = cli('demo', ws, '--seed', '42', '--sessions', '30');
  expect(r.stderr).toBe('');
  expect(r.stdout).toMatch(/Demo workspace ready/);
}, 60_000);

describe('terminal text', () => {
  it('clips by display width without splitting wide characters, and strips escape sequences', () => {
    expect(displayWidth('早上偏好ab')).toBe(10);
    expect(clip('早上偏好乌龙茶', 7)).toBe('早上偏…');
    expect(displayWidth(clip('早上偏好乌龙茶', 8))).toBeLessThanOrEqual(8);
    expect(clip('red \u001b[31mtext\u001b[0m and \u001b]0;title\u0007bell', 100)).toBe('red text and bell');
  });
});

describe('reflection CLI on a demo workspace', () => {
  it('gate list -d UPDATE_USER -l 5 prints five decisions with their conversation text', () => {
    const r = cli('gate', 'list', '--workspace', ws, '-d', 'UPDATE_USER', '-l', '5');
    expect(r.code).toBe(0);
    const json = JSON.parse(cli('gate', 'list', '--workspace', ws, '-d', 'UPDATE_USER', '-l', '5', '--json').stdout) as {
      items: Array<{ id: string; decision: string; userMessage: string }>;
      nextCursor: string;
    };
    expect(json.items.length).toBe(5);
    expect(json.items.every((i) => i.decision === 'UPDATE_USER')).toBe(true);
    for (const item of json.items) {
      expect(r.stdout).toContain(item.id);
      // The table shows the start of each user message (cut to the column).
      expect(r.stdout).toContain(`User: ${item.userMessage.slice(0, 12)}`);
    }
    expect(r.stdout.match(/UPDATE_USER/g)!.length).toBe(5);
    expect(r.stdout).toMatch(/Agent: /);
    expect(r.stdout).toMatch(/5 decision\(s\); more with --cursor \S+/);
    const next = JSON.parse(
      cli('gate', 'list', '--workspace', ws, '-d', 'UPDATE_USER', '-l', '5', '--cursor', json.nextCursor, '--json').stdout,
    );
    expect(next.items[0]!.id).not.toBe(json.items[0]!.id);
    expect(r.stdout).not.toMatch(/\u001b\[/);
  });

  it('gate list by session with context, and a clear error for a bad decision', () => {
    const r = cli('gate', 'list', 'channel:webchat:security-test', '--workspace', ws, '-c');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('<img src=x onerror=alert(1)>');
    expect(r.stdout).toMatch(/Context of \S+ \(channel:webchat:security-test turn \d\)/);
    // The escape sequence in the hostile agent reply never reaches the terminal.
    expect(r.stdout).not.toContain('\u001b[31m');
    const bad = cli('gate', 'list', '--workspace', ws, '-d', 'MAYBE');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--decision: "MAYBE" is not one of/);
  });

  it('gate show prints the decision, its turn, writes and context', () => {
    const list = JSON.parse(cli('gate', 'list', '--workspace', ws, '-d', 'UPDATE_MEMORY', '-l', '50', '--json').stdout) as {
      items: Array<{ id: string; writeStatus: string | null; userMessage: string }>;
    };
    const written = list.items.find((i) => i.writeStatus === 'written')!;
    const r = cli('gate', 'show', written.id, '--workspace', ws, '-c');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(written.id);
    expect(r.stdout).toContain('Write written');
    expect(r.stdout).toContain('+++ b/MEMORY.md');
    expect(r.stdout).toMatch(/Context window \(\d+ messages\)/);
    const json = JSON.parse(cli('gate', 'show', written.id.slice(0, 16), '--workspace', ws, '--json').stdout);
    expect(json.decision.id).toBe(written.id);
    expect(json.turn.userMessage).toBe(written.userMessage);
    const missing = cli('gate', 'show', '01ZZZZZZZZZZZZZZZZZZZZZZZZ', '--workspace', ws);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/not found/);
  });

  it('gate stats prints counts per decision and average latency, daily and by session', () => {
    const r = cli('gate', 'stats', '--workspace', ws);
    expect(r.code).toBe(0);
    for (const d of ['NO_WRITE', 'UPDATE_MEMORY', 'UPDATE_USER', 'UPDATE_SOUL', 'UPDATE_IDENTITY', 'UPDATE_TOOLS', 'Total'])
      expect(r.stdout).toContain(d);
    const json = JSON.parse(cli('gate', 'stats', '--workspace', ws, '--daily', '--json').stdout);
    expect(json.groupBy).toBe('daily');
    expect(json.buckets.length).toBeGreaterThan(3);
    expect(json.buckets[0].key).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(cli('gate', 'stats', '--workspace', ws, '--by-session').stdout).toContain('channel:');
    expect(cli('gate', 'stats', '--workspace', ws, '--daily', '--weekly').stderr).toMatch(/choose one of/);
  });

  it('gate export --format csv writes valid CSV, to a file or to standard output', () => {
    const out = path.join(path.dirname(ws), 'decisions.csv');
    const r = cli('gate', 'export', '--workspace', ws, '--format', 'csv', '-o', out);
    expect(r.code).toBe(0);
    const parsed = Papa.parse<Record<string, string>>(fs.readFileSync(out, 'utf8'), { header: true, skipEmptyLines: true });
    expect(parsed.errors).toEqual([]);
    expect(r.stderr).toContain(`exported ${parsed.data.length} decision(s) as csv`);
    expect(parsed.meta.fields).toContain('candidate_fact');
    expect(parsed.data.some((row) => row.user_message === '<img src=x onerror=alert(1)>')).toBe(true);
    const stdout = cli('gate', 'export', '--workspace', ws, '--format', 'csv', '-d', 'UPDATE_TOOLS');
    const rows = Papa.parse<Record<string, string>>(stdout.stdout, { header: true, skipEmptyLines: true });
    expect(rows.errors).toEqual([]);
    expect(rows.data.every((row) => row.decision === 'UPDATE_TOOLS')).toBe(true);
    const md = cli('gate', 'export', '--workspace', ws, '--format', 'markdown', '-d', 'UPDATE_SOUL').stdout.trim().split('\n');
    expect(md[1]).toMatch(/^\|( --- \|)+$/);
    const soulCount = JSON.parse(cli('gate', 'stats', '--workspace', ws, '-d', 'UPDATE_SOUL', '--json').stdout).totals.total as number;
    expect(soulCount).toBeGreaterThan(0);
    expect(md.length).toBe(2 + soulCount);
  });

  it('search finds a Chinese phrase and prints its match', () => {
    const r = cli('search', '早上偏好', '--workspace', ws, '-l', '3');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('早上偏好');
    expect(r.stdout).toMatch(/\d hit\(s\)/);
    const json = JSON.parse(cli('search', '早上偏好', '--workspace', ws, '--json').stdout);
    expect(json.mode).toBe('fts');
    expect(json.items.length).toBeGreaterThan(0);
    expect(json.items[0].text).toContain('早上偏好');
    expect(cli('search', 'NEAR("x', '--workspace', ws).code).toBe(0);
    // Chinese text is two columns wide: every line of the table has the same width, so borders line up.
    const tableLines = r.stdout.split('\n').filter((l) => /^[┌│├└]/.test(l));
    expect(new Set(tableLines.map(displayWidth)).size).toBe(1);
    const zhList = cli('gate', 'list', '--workspace', ws, '-q', '早上偏好', '-l', '3')
      .stdout.split('\n')
      .filter((l) => /^[┌│├└]/.test(l));
    expect(zhList.length).toBeGreaterThan(3);
    expect(new Set(zhList.map(displayWidth)).size).toBe(1);
  });
});
