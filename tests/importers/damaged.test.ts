import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importEvals, importOpenClaw, importReflectionLogs } from '../../src/core/importers';
import type { ImportReport } from '../../src/shared/contract';
import { dataCounts, evalsDir, lines, newContext, openclawDir, pluginRoot, pluginWorkspace, writeFile } from './helpers';

/** Bytes that are never valid UTF-8 and hold no newline. */
function garbage(): Buffer {
  const b = randomBytes(300);
  for (let i = 0; i < b.length; i++) if (b[i] === 0x0a) b[i] = 0xff;
  return Buffer.concat([Buffer.from([0xff, 0xfe]), b]);
}

const HUGE = `{"timestamp":"2026-03-10T09:00:00.000Z","pad":"${'x'.repeat(20 * 1024 * 1024)}"}`;

function damagedFile(file: string, good: string[], wrongTypes: string): void {
  const mid = Math.floor(good.length / 2);
  const parts: Array<string | Buffer> = [
    ...good.slice(0, mid).map((l) => `${l}\n`),
    `${(good[mid] ?? '{"timestamp":"2026-03-10T09:00:00.000Z","component":"Mess').slice(0, 40)}\n`, // a line cut in the middle
    garbage(),
    '\n',
    `${HUGE}\n`,
    `${wrongTypes}\n`,
    ...good.slice(mid).map((l) => `${l}\n`),
  ];
  writeFile(file, Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p))));
}

const reasons = (r: ImportReport) => r.skipped.map((s) => `${path.basename(s.file)}:${s.line} ${s.reason.replace(/ \(.*$/, '')}`);

describe('damaged input', () => {
  it('reflection logs: skips each bad line with file:line and reason, imports the rest, and exits as failed only when nothing was readable', async () => {
    const day = lines(path.join(pluginRoot, 'logs', 'reflection-2026-03-10.log'));
    // Damage between whole turns, so the valid lines still rebuild everything.
    const good = day.slice(0, 30);
    const ctx = newContext();
    const file = path.join(ctx.workspaceDir, 'logs', 'reflection-2026-03-10.log');
    damagedFile(file, good, JSON.stringify({ timestamp: 12345, level: 1, component: {}, event: [], details: 'x', sessionKey: 5 }));
    fs.appendFileSync(
      file,
      `${JSON.stringify({ timestamp: '2026-03-10T10:00:00.000Z', level: 'info', component: 'MessageHandler', event: 'Buffer message snapshot', details: { bufferMessage: { id: 1, role: 2, message: 3, timestamp: 'x', sessionKey: 4, channelId: 5 } }, sessionKey: 6 })}\n`,
    );
    const report = await importReflectionLogs(ctx, { source: path.dirname(file), workspace: pluginWorkspace });
    expect(report.status).toBe('partial');
    expect(reasons(report)).toEqual([
      'reflection-2026-03-10.log:16 malformed JSON',
      'reflection-2026-03-10.log:17 invalid UTF-8',
      'reflection-2026-03-10.log:18 line too long',
      'reflection-2026-03-10.log:19 timestamp: expected an ISO time string, got number',
      'reflection-2026-03-10.log:35 sessionKey: expected a string, got number',
    ]);
    expect(report.skipped[2]!.reason).toMatch(/^line too long \(2097\d{4} bytes\)$/);

    const clean = newContext();
    writeFile(path.join(clean.workspaceDir, 'logs', 'reflection-2026-03-10.log'), `${good.join('\n')}\n`);
    await importReflectionLogs(clean, { source: path.join(clean.workspaceDir, 'logs'), workspace: pluginWorkspace });
    expect(dataCounts(ctx.db)).toEqual(dataCounts(clean.db));
    expect(dataCounts(ctx.db).conversation_turns).toBe(3);

    const bad = newContext();
    const only = path.join(bad.workspaceDir, 'logs', 'reflection-2026-03-11.log');
    damagedFile(only, [], '{"timestamp":true}');
    const failed = await importReflectionLogs(bad, { source: path.dirname(only), guardianLog: path.join(bad.workspaceDir, 'none.jsonl') });
    expect(failed.status).toBe('failed');
    expect(failed.summary).toMatch(/^Nothing could be read/);
    expect(Object.values(dataCounts(bad.db)).every((n) => n === 0)).toBe(true);
  });

  it('openclaw: the same damage in a transcript, plus unknown entry types and roles', async () => {
    const good = lines(path.join(openclawDir, 'real-probe-capture-0c751d66.excerpt.jsonl'));
    const ctx = newContext();
    const file = path.join(ctx.workspaceDir, 'sessions', 'probe.jsonl');
    damagedFile(file, good, JSON.stringify({ type: 'message', id: 5, parentId: 7, timestamp: false, message: { role: 1, content: 2 } }));
    fs.appendFileSync(
      file,
      `${JSON.stringify({ type: 'hologram', id: 'ffff0001', parentId: 'f11d1d2e', timestamp: '2026-08-03T08:06:00.000Z' })}\n`,
    );
    const report = await importOpenClaw(ctx, { source: file });
    expect(report.status).toBe('partial');
    expect(reasons(report)).toEqual([
      'probe.jsonl:5 malformed JSON',
      'probe.jsonl:6 invalid UTF-8',
      'probe.jsonl:7 line too long',
      'probe.jsonl:8 id: expected a string, got number',
      'probe.jsonl:13 unknown entry type "hologram"',
    ]);
    expect(dataCounts(ctx.db).conversation_turns).toBe(1);

    const bad = newContext();
    const only = path.join(bad.workspaceDir, 'only.jsonl');
    damagedFile(only, [], '{"type":7}');
    const failed = await importOpenClaw(bad, { source: only });
    expect(failed.status).toBe('failed');
    expect(Object.values(dataCounts(bad.db)).every((n) => n === 0)).toBe(true);
  });

  it('evals: damaged scenario lines are skipped, the other scenarios still come in', async () => {
    const ctx = newContext();
    const dir = path.join(ctx.workspaceDir, 'evals');
    const scenarios = lines(path.join(evalsDir, 'shared', 'scenarios.jsonl'));
    damagedFile(
      path.join(dir, 'shared', 'scenarios.jsonl'),
      scenarios,
      JSON.stringify({ scenario_id: 1, task_type: [], title: 2, current_user_message: {}, current_agent_reply: null }),
    );
    for (const f of ['memory-gate/benchmark.jsonl', 'write-guardian/benchmark.jsonl'])
      fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.copyFileSync(path.join(evalsDir, 'memory-gate', 'benchmark.jsonl'), path.join(dir, 'memory-gate', 'benchmark.jsonl'));
    fs.copyFileSync(path.join(evalsDir, 'write-guardian', 'benchmark.jsonl'), path.join(dir, 'write-guardian', 'benchmark.jsonl'));
    const report = await importEvals(ctx, { source: dir });
    expect(reasons(report)).toEqual([
      'scenarios.jsonl:17 malformed JSON',
      'scenarios.jsonl:18 invalid UTF-8',
      'scenarios.jsonl:19 line too long',
      'scenarios.jsonl:20 scenario_id: expected a string, got number',
    ]);
    // The cut line is a copy of the scenario that follows it whole: all 32 still come in.
    expect(report.status).toBe('partial');
    expect(report.inserted.dataset_samples).toBe(32);
  });
});
