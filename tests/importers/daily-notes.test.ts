import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { WorkspaceSession } from '../../src/api/session';
import { buildHandlers } from '../../src/api/handlers';
import { JobManager } from '../../src/api/jobs/manager';
import { createRegistry } from '../../src/api/registry';
import { importDailyNotes, listDailyNotes, searchDailyNotes } from '../../src/core/importers';
import { repoRoot, tempWorkspace } from '../helpers/workspace';
import { count, newContext, writeFile } from './helpers';

const NOTE_20 = '# 2026-11-20\n\n- 和 Ada 开会：季度预算会议纪要已整理。\n- Decided to move the launch to Friday.\n';
const NOTE_21 = '# Vendor pitch\n\nThe vendor pitch went well; follow up on pricing.\n';

function buildWorkspace(dir: string): string {
  const memory = path.join(dir, 'memory');
  writeFile(path.join(memory, '2026-11-20.md'), NOTE_20);
  // OpenClaw's session-memory hook names notes <date>-<slug>.md.
  writeFile(path.join(memory, '2026-11-21-vendor-pitch.md'), NOTE_21);
  writeFile(path.join(memory, 'ideas.md'), 'not a daily note');
  writeFile(path.join(memory, '2026-02-30.md'), 'no such day');
  return memory;
}

describe('import daily notes', () => {
  it('imports memory/YYYY-MM-DD.md notes read-only, by date, and again only when a note changed', async () => {
    const ctx = newContext();
    const oc = path.join(ctx.workspaceDir, 'openclaw-workspace');
    const memory = buildWorkspace(oc);
    const report = await importDailyNotes(ctx, { source: oc });
    expect(report.inserted).toEqual({ daily_notes: 2 });
    expect(listDailyNotes(ctx, '2026-11-20', '2026-11-21').map((n) => [n.date, path.basename(n.path)])).toEqual([
      ['2026-11-20', '2026-11-20.md'],
      ['2026-11-21', '2026-11-21-vendor-pitch.md'],
    ]);
    expect(listDailyNotes(ctx, '2026-11-21', '2026-11-21')).toHaveLength(1);
    expect(() => listDailyNotes(ctx, '2026-01-01', '2026-12-31')).toThrow(/at most 62 days/);
    expect(() => listDailyNotes(ctx, '2026-11-21', '2026-11-20')).toThrow(/not a valid range/);

    const again = await importDailyNotes(ctx, { source: oc });
    expect(again.status).toBe('nothing_new');
    // The note on disk changed: its copy follows; the file itself is never written.
    fs.appendFileSync(path.join(memory, '2026-11-20.md'), '- 新增：供应商合同续签。\n');
    const before = fs.readFileSync(path.join(memory, '2026-11-20.md'), 'utf8');
    const third = await importDailyNotes(ctx, { source: memory });
    expect(third.inserted).toEqual({ 'daily notes updated from disk': 1 });
    expect(count(ctx.db, 'daily_notes')).toBe(2);
    expect(searchDailyNotes(ctx, '供应商合同').map((h) => h.date)).toEqual(['2026-11-20']);
    expect(fs.readFileSync(path.join(memory, '2026-11-20.md'), 'utf8')).toBe(before);
  });

  it('finds notes by Chinese and English terms, short ones included, through the API', async () => {
    const ctx = newContext();
    buildWorkspace(path.join(ctx.workspaceDir, 'oc'));
    await importDailyNotes(ctx, { source: path.join(ctx.workspaceDir, 'oc') });
    const hits = searchDailyNotes(ctx, '预算会议');
    expect(hits.map((h) => h.date)).toEqual(['2026-11-20']);
    expect(hits[0]!.snippet.slice(hits[0]!.matches[0]!.start, hits[0]!.matches[0]!.end)).toBe('预算会议');
    // Two-character Chinese words are below the trigram length: checked with instr instead.
    expect(searchDailyNotes(ctx, '预算').map((h) => h.date)).toEqual(['2026-11-20']);
    expect(searchDailyNotes(ctx, 'vendor pricing').map((h) => h.date)).toEqual(['2026-11-21']);
    expect(searchDailyNotes(ctx, 'launch 预算').map((h) => h.date)).toEqual(['2026-11-20']);
    expect(searchDailyNotes(ctx, '"nothing like this"')).toEqual([]);

    const session = new WorkspaceSession({ stateDir: tempWorkspace('reflection-state-') });
    session.open(ctx.workspaceDir);
    const registry = createRegistry(buildHandlers(), { mode: 'web', version: 't', session, jobs: new JobManager(() => undefined) });
    const found = await registry.dispatch('notes.search', { text: '会议纪要' });
    expect(found).toMatchObject({ ok: true, value: [{ date: '2026-11-20' }] });
    const listed = await registry.dispatch('notes.list', { from: '2026-11-21', to: '2026-11-21' });
    expect(listed).toMatchObject({ ok: true, value: [{ date: '2026-11-21', content: NOTE_21 }] });
    const bad = await registry.dispatch('notes.list', { from: '21/11/2026', to: '2026-11-21' });
    expect(bad).toMatchObject({ ok: false, error: { kind: 'Invalid' } });
    session.close();
  });

  it('names the problem with a source that holds no notes', async () => {
    const ctx = newContext();
    await expect(importDailyNotes(ctx, { source: path.join(ctx.workspaceDir, 'missing') })).rejects.toThrow(/does not exist/);
    const file = writeFile(path.join(ctx.workspaceDir, 'notes.md'), 'x');
    await expect(importDailyNotes(ctx, { source: file })).rejects.toThrow(/not a daily note/);
    const empty = await importDailyNotes(ctx, { source: ctx.workspaceDir });
    expect(empty.summary).toMatch(/No daily notes/);
  });

  it('imports, searches and shows notes from the CLI', () => {
    const ws = tempWorkspace();
    buildWorkspace(ws);
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, [path.join(repoRoot, 'bin', 'reflection.cjs'), ...args, '--workspace', ws], {
        encoding: 'utf8',
        timeout: 60_000,
      });
    const imported = cli('import', 'daily-notes', '--json');
    expect(imported.status).toBe(0);
    expect(JSON.parse(imported.stdout).inserted).toEqual({ daily_notes: 2 });
    const found = cli('notes', 'search', '会议纪要');
    expect(found.stdout).toMatch(/^2026-11-20 .*季度预算会议纪要/m);
    expect(cli('notes', 'show', '2026-11-21').stdout).toContain('The vendor pitch went well');
    const bad = cli('notes', 'show', '2026-11-21', '2026-11-01');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/not a valid range of days/);
  });
});
