import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { openWorkspaceDatabase } from '../../src/core/db/connection';
import { RecorderCore } from '../../src/core/recorder/recorder';
import { exportConversations, exportsDir, type ArchiveLine } from '../../src/core/lifecycle/archive';
import { addExclusion } from '../../src/core/lifecycle/exclusions';
import { startArchiveSchedule, startConfiguredArchive } from '../../src/core/lifecycle/schedule';
import { repoRoot, tempWorkspace } from '../helpers/workspace';
import { FakeClock } from './fakeClock';

const HOUR = 3600_000;
const DAY = 24 * HOUR;
const D10 = Date.UTC(2026, 2, 10);

function setup() {
  const dir = tempWorkspace();
  const { db } = openWorkspaceDatabase(dir);
  const core = new RecorderCore(db);
  for (const [id, target] of [
    ['channel:discord:kept', 'kept'],
    ['channel:discord:private', 'private'],
  ] as const) {
    core.upsertSession({ id, channelId: 'discord', conversationTarget: target, accountId: 'acct', createdAt: D10, lastActivityAt: D10 });
  }
  /** A turn with a gate decision and, for UPDATE_USER, a write; returns the turn id. */
  const turn = (sessionId: string, at: number, text: string, write = false) => {
    const t = core.insertTurn({ sessionId, userMessage: { content: text }, agentReply: { content: `re: ${text}` }, createdAt: at });
    const decisionId = core.insertDecision({
      turnId: t.id,
      sessionId,
      decision: write ? 'UPDATE_USER' : 'NO_WRITE',
      reason: 'r',
      candidateFact: write ? `fact ${text}` : undefined,
      llmCall: { model: 'm' },
      createdAt: at + 1000,
    });
    if (write) {
      core.recordWrite({
        decisionId,
        turnId: t.id,
        sessionId,
        targetFile: 'USER.md',
        before: '# User\n',
        after: `# User\n- fact ${text}\n`,
        status: 'written',
        createdAt: at + 2000,
      });
    }
    return t.id;
  };
  return { dir, db, core, turn };
}

const readLines = (file: string) =>
  fs
    .readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as ArchiveLine);

describe('conversation archives', () => {
  it('writes scheduled daily archives on the cron schedule, appends late turns, removes old files, skips excluded sessions', async () => {
    const { dir, db, turn } = setup();
    addExclusion({ db, workspaceDir: dir }, { kind: 'session', value: 'channel:discord:private' });
    const clock = new FakeClock(D10 + 8 * HOUR);
    const runs: number[] = [];
    const schedule = startArchiveSchedule(
      { db, workspaceDir: dir },
      {
        schedule: '0 0 * * *',
        retentionDays: 2,
        clock,
        onRun: (_r, at) => runs.push(at),
        onError: (e) => {
          throw e;
        },
      },
    );
    const settle = () => schedule.idle();
    expect(schedule.nextRunAt()).toBe(D10 + DAY);

    turn('channel:discord:kept', D10 + 9 * HOUR, 'monday one', true);
    turn('channel:discord:private', D10 + 9 * HOUR + 5, 'secret monday');
    turn('channel:discord:kept', D10 + 10 * HOUR, 'monday two');
    await clock.advanceTo(D10 + DAY + HOUR, settle);
    expect(runs).toEqual([D10 + DAY]);
    const day10 = path.join(exportsDir(dir), 'conversations-2026-03-10.jsonl');
    let lines = readLines(day10);
    expect(lines.map((l) => l.turn.user.content)).toEqual(['monday one', 'monday two']);
    expect(lines[0]!.decisions).toHaveLength(1);
    expect(lines[0]!.decisions[0]).toMatchObject({ decision: 'UPDATE_USER', candidateFact: 'fact monday one' });
    expect(lines[0]!.writes).toHaveLength(1);
    expect(lines[0]!.writes[0]).toMatchObject({ targetFile: 'USER.md', status: 'written', linesAdded: 1 });
    expect(String(lines[0]!.writes[0]?.diff)).toContain('+- fact monday one');
    expect(lines[1]!.writes).toEqual([]);
    expect(lines[0]!.session).toMatchObject({ id: 'channel:discord:kept', channelId: 'discord' });

    // A turn just before midnight is younger than the settle time at the run: it waits for the next run,
    // and then joins its own day's file.
    turn('channel:discord:kept', D10 + DAY + 12 * HOUR, 'tuesday');
    turn('channel:discord:kept', D10 + 2 * DAY - 30_000, 'tuesday late');
    await clock.advanceTo(D10 + 2 * DAY + HOUR, settle);
    const day11 = path.join(exportsDir(dir), 'conversations-2026-03-11.jsonl');
    expect(readLines(day11).map((l) => l.turn.user.content)).toEqual(['tuesday']);
    await clock.advanceTo(D10 + 3 * DAY + HOUR, settle);
    expect(readLines(day11).map((l) => l.turn.user.content)).toEqual(['tuesday', 'tuesday late']);
    expect(runs).toEqual([D10 + DAY, D10 + 2 * DAY, D10 + 3 * DAY]);
    // retentionDays 2 at 03-13: the 03-10 archive goes, 03-11 stays
    expect(fs.existsSync(day10)).toBe(false);
    expect(fs.existsSync(day11)).toBe(true);
    // nothing was archived twice
    lines = fs.readdirSync(exportsDir(dir)).flatMap((f) => readLines(path.join(exportsDir(dir), f)));
    expect(new Set(lines.map((l) => l.turn.id)).size).toBe(lines.length);
    expect(JSON.stringify(lines)).not.toContain('secret');
    schedule.stop();
    expect(clock.pending()).toBe(0);

    // Closed for two days: at start, the missed run is made up at once.
    turn('channel:discord:kept', D10 + 3 * DAY + 2 * HOUR, 'thursday');
    clock['t'] = D10 + 5 * DAY + 3 * HOUR;
    const restarted = startConfiguredArchive(
      { db, workspaceDir: dir },
      { storage: { jsonlExport: { enabled: true, retentionDays: 30 } } },
      { clock, onRun: (_r, at) => runs.push(at) },
    )!;
    await restarted.idle();
    expect(runs.at(-1)).toBe(D10 + 5 * DAY + 3 * HOUR);
    expect(readLines(path.join(exportsDir(dir), 'conversations-2026-03-13.jsonl')).map((l) => l.turn.user.content)).toEqual(['thursday']);
    expect(restarted.nextRunAt()).toBe(D10 + 6 * DAY);
    restarted.stop();
    expect(
      startConfiguredArchive({ db, workspaceDir: dir }, { storage: { jsonlExport: { enabled: false, retentionDays: 30 } } }),
    ).toBeNull();
    db.close();
  });

  it('exports a time range on demand, streamed, without excluded sessions', async () => {
    const { dir, db, core, turn } = setup();
    core.batch(() => {
      for (let i = 0; i < 1200; i++) turn('channel:discord:kept', D10 + i * 60_000, `msg ${i}`, i % 100 === 0);
    });
    turn('channel:discord:private', D10 + 5 * 60_000, 'private words');
    addExclusion({ db, workspaceDir: dir }, { kind: 'target', value: 'discord:private' });
    const out = path.join(dir, 'out', 'range.jsonl');
    const r = await exportConversations({ db, workspaceDir: dir }, { since: D10 + 100 * 60_000, until: D10 + 1100 * 60_000, output: out });
    expect(r.turns).toBe(1000);
    const lines = readLines(out);
    expect(lines).toHaveLength(1000);
    expect(lines[0]!.turn.user.content).toBe('msg 100');
    expect(lines[999]!.turn.user.content).toBe('msg 1099');
    expect(lines.filter((l) => l.writes.length === 1)).toHaveLength(10);
    expect(fs.readFileSync(out, 'utf8')).not.toContain('private words');
    await expect(exportConversations({ db, workspaceDir: dir }, { since: 5, until: 5 })).rejects.toThrow(/since: must be before until/);
    db.close();

    const cli = spawnSync(
      'node',
      [
        path.join(repoRoot, 'bin', 'reflection.cjs'),
        'export-conversations',
        '--since',
        '2026-03-10T00:00:00Z',
        '--until',
        '2026-03-10T00:10:00Z',
        '--workspace',
        dir,
        '--json',
      ],
      { encoding: 'utf8' },
    );
    expect(cli.stderr).toBe('');
    const res = JSON.parse(cli.stdout) as { file: string; turns: number };
    expect(res.turns).toBe(10);
    expect(path.basename(res.file)).toBe('conversations-2026-03-10_2026-03-10.jsonl');
  }, 60_000);
});
