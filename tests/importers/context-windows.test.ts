// Migration 0178: an importer stores a turn's context as one window row whose items refer to the turns that
// hold their text. The readers must return what the ten rows per turn returned (ids included), and a turn
// that is pruned, purged or erased must neither break the context of a turn that is kept nor leave its text.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { listContextNewestFirst } from '../../src/core/db/repositories/collect';
import { listContextOfTurn } from '../../src/core/db/repositories/turns';
import { listContextOfTurn as recorderContextOfTurn } from '../../src/core/db/repositories/recorder';
import { eraseValue } from '../../src/core/health/erase';
import { importOpenClaw } from '../../src/core/importers';
import { MAX_REFERENCE_DISTANCE } from '../../src/core/importers/contextWindows';
import { ReportBuilder } from '../../src/core/importers/report';
import { ImportStore, type ContextSnapshot } from '../../src/core/importers/store';
import { addExclusion, purgeExclusion } from '../../src/core/lifecycle/exclusions';
import { pruneOldData } from '../../src/core/lifecycle/retention';
import { contextTranscript } from './contextTranscript';
import { allContexts, contextOf, newContext, openclawDir, writeFile } from './helpers';

type Ctx = ReturnType<typeof newContext>;

/**
 * What the readers returned for these sources before 0178, when every item was a conversation_contexts row:
 * the sha256 of [turn id, listContextOfTurn, listContextNewestFirst(4)] of every turn, by turn id.
 */
const BEFORE: Record<string, { turns: number; items: number; sha256: string }> = {
  synthetic: { turns: 4, items: 14, sha256: 'fb0dd99de58e143c5ba9512bc96fb8e6856128e8a33af12dc3539ad8be0c9c67' },
  desktop: { turns: 1, items: 2, sha256: '87366b71d913142cb629eee8ac851e6cac94c1ba57af9ce12ffb83640de5928b' },
  probe: { turns: 1, items: 2, sha256: '9e622f68a2d609a22fb166bd9986f38f7fcdb5f975cb77fe65e7cfa10d885b69' },
  glm: { turns: 1, items: 2, sha256: '02b01bccca7fcf4128497f12f5b8174c2616c9decbdbfbec7982be1737dab0e7' },
  generated: { turns: 120, items: 1179, sha256: 'e6eb0926acb193c90a63212776603934e8bbb78caceb40f27e9ae0eec88b99c2' },
};

function readAll(ctx: Ctx) {
  const ids = ctx.db.prepare('SELECT id FROM conversation_turns ORDER BY id').pluck().all() as string[];
  const read = ids.map((id) => [id, listContextOfTurn(ctx.db, id), listContextNewestFirst(ctx.db, id, 4)] as const);
  return {
    turns: ids.length,
    items: read.reduce((n, r) => n + r[1].length, 0),
    sha256: crypto.createHash('sha256').update(JSON.stringify(read)).digest('hex'),
  };
}

async function importGenerated(ctx: Ctx, turns = 120, pieces: number[] = []): Promise<string> {
  const all = contextTranscript(turns);
  const file = path.join(ctx.workspaceDir, 'sessions', 'ctx-1.jsonl');
  writeFile(file, '');
  for (const end of [...pieces, all.length]) {
    const done = fs.readFileSync(file, 'utf8').split('\n').length - 1;
    fs.appendFileSync(file, `${all.slice(done, end).join('\n')}\n`);
    await importOpenClaw(ctx, { source: file });
  }
  return file;
}

const turnAt = (ctx: Ctx, n: number) =>
  ctx.db.prepare('SELECT id, created_at AS at FROM conversation_turns WHERE turn_number = ?').get(n) as { id: string; at: number };

/** References whose turn does not exist: a reader would return no message for them. */
const dangling = (ctx: Ctx) =>
  ctx.db
    .prepare(
      `SELECT count(*) FROM conversation_context_windows w JOIN conversation_turns t ON t.id = w.turn_id, json_each(w.items) j
       WHERE j.value ->> 3 IS NOT NULL AND NOT EXISTS (SELECT 1 FROM conversation_turns s
         WHERE s.session_id = t.session_id AND s.turn_number = t.turn_number - (j.value ->> 3))`,
    )
    .pluck()
    .get();

/** Reader output of every turn but the deleted ones, before and after. */
const without = (contexts: ReturnType<typeof allContexts>, gone: Set<string>) => contexts.filter(([id]) => !gone.has(id as string));

describe('context windows (migration 0178)', () => {
  it('read exactly as the rows did: roles, messages, order, timestamps and ids, for the fixtures and a generated transcript', async () => {
    const sources: Record<string, string> = {
      synthetic: path.join(openclawDir, 'synthetic-state'),
      desktop: path.join(openclawDir, 'real-desktop-session-8555a0a4.excerpt.jsonl'),
      probe: path.join(openclawDir, 'real-probe-capture-0c751d66.excerpt.jsonl'),
      glm: path.join(openclawDir, 'real-conversation-info-glm.excerpt.jsonl'),
    };
    for (const [name, source] of Object.entries(sources)) {
      const ctx = newContext();
      await importOpenClaw(ctx, { source });
      expect(readAll(ctx), name).toEqual(BEFORE[name]);
    }
    const ctx = newContext();
    await importGenerated(ctx);
    expect(readAll(ctx)).toEqual(BEFORE.generated);
    // The same transcript read in pieces: later runs copy what earlier runs wrote instead of referring to it.
    const pieces = newContext();
    await importGenerated(pieces, 120, [40, 41, 170]);
    expect(readAll(pieces)).toEqual(BEFORE.generated);
    expect(allContexts(pieces.db)).toEqual(allContexts(ctx.db));
  });

  it('stores one row per turn, refers to turns of the same session at most 16 turn numbers back, and the recorder reads it too', async () => {
    const ctx = newContext();
    await importGenerated(ctx);
    expect(ctx.db.prepare('SELECT count(*) FROM conversation_contexts').pluck().get()).toBe(0);
    expect(ctx.db.prepare('SELECT count(*) FROM conversation_context_windows').pluck().get()).toBe(120);
    const refs = ctx.db
      .prepare(`SELECT j.value ->> 3 AS back FROM conversation_context_windows w, json_each(w.items) j WHERE j.value ->> 3 IS NOT NULL`)
      .pluck()
      .all() as number[];
    expect(refs.length).toBe(1179); // every item of a single run refers to a turn
    expect(refs.every((back) => back >= 0 && back <= MAX_REFERENCE_DISTANCE)).toBe(true);
    expect(dangling(ctx)).toBe(0);
    const turn = turnAt(ctx, 50).id;
    expect(recorderContextOfTurn(ctx.db, turn)).toEqual(listContextOfTurn(ctx.db, turn));
  });

  it('copies a deleted turn’s text into the windows that refer to it: a kept turn reads the same context', async () => {
    const ctx = newContext();
    await importGenerated(ctx);
    const before = allContexts(ctx.db);
    const gone = [turnAt(ctx, 7).id, turnAt(ctx, 30).id, turnAt(ctx, 31).id];
    for (const id of gone) ctx.db.prepare('DELETE FROM conversation_turns WHERE id = ?').run(id);
    expect(allContexts(ctx.db)).toEqual(without(before, new Set(gone)));
    expect(dangling(ctx)).toBe(0);
  });

  it('retention keeps the context of the turns after the cutoff', async () => {
    const ctx = newContext();
    await importGenerated(ctx);
    const before = allContexts(ctx.db);
    const days = 30;
    const prunedCtx = { ...ctx, now: () => turnAt(ctx, 60).at + days * 86_400_000 };
    const preview = pruneOldData(prunedCtx, { days, dryRun: true });
    const result = pruneOldData(prunedCtx, { days, confirm: true, previewToken: preview.previewToken, force: true });
    expect(result.deleted).toMatchObject({ conversation_turns: 60, conversation_context_windows: 60 });
    const kept = new Set(ctx.db.prepare('SELECT id FROM conversation_turns').pluck().all() as string[]);
    expect(kept.size).toBe(60);
    expect(allContexts(ctx.db)).toEqual(before.filter(([id]) => kept.has(id as string)));
    // The first kept turns' windows now hold the pruned turns' messages as text, nothing refers to a pruned turn.
    expect(dangling(ctx)).toBe(0);
  });

  it('a purged session takes its windows along; another session’s contexts are untouched', async () => {
    const ctx = newContext();
    await importGenerated(ctx, 40);
    writeFile(path.join(ctx.workspaceDir, 'sessions', 'ctx-2.jsonl'), `${contextTranscript(30, 'ctx-2').join('\n')}\n`);
    await importOpenClaw(ctx, { source: path.join(ctx.workspaceDir, 'sessions', 'ctx-2.jsonl') });
    const sessions = ctx.db.prepare('SELECT DISTINCT session_id FROM conversation_turns ORDER BY session_id').pluck().all() as string[];
    expect(sessions).toHaveLength(2);
    const other = (ctx.db.prepare('SELECT id FROM conversation_turns WHERE session_id = ?').pluck().all(sessions[1]) as string[]).map(
      (id) => [id, contextOf(ctx.db, id)],
    );
    const exclusion = addExclusion(ctx, { kind: 'session', value: sessions[0]! });
    const outcome = purgeExclusion(ctx, exclusion.id, { confirm: true });
    expect(outcome.deleted).toMatchObject({ conversation_turns: 40, conversation_context_windows: 40 });
    expect(ctx.db.prepare('SELECT count(*) FROM conversation_context_windows').pluck().get()).toBe(30);
    expect(other.map(([id]) => [id, contextOf(ctx.db, id as string)])).toEqual(other);
  });

  it('erasure reaches referred and copied messages alike, and leaves no copy', async () => {
    const ctx = newContext();
    // In pieces, so that windows hold both references and copies of the value.
    await importGenerated(ctx, 60, [50, 90]);
    expect(
      ctx.db.prepare("SELECT count(*) FROM conversation_context_windows WHERE instr(items, 'alice@example.com') > 0").pluck().get(),
    ).toBeGreaterThan(0);
    const before = allContexts(ctx.db);
    await eraseValue(ctx, { value: 'alice@example.com', confirm: true });
    const erased = JSON.parse(JSON.stringify(before).replaceAll('alice@example.com', '[erased]'));
    expect(allContexts(ctx.db)).toEqual(erased);
    expect(JSON.stringify(allContexts(ctx.db))).not.toContain('alice@example.com');
    expect(ctx.db.prepare("SELECT count(*) FROM conversation_context_windows WHERE instr(items, 'alice') > 0").pluck().get()).toBe(0);
  });

  it('refers to no turn whose transaction was rolled back, and a turn written at once only to itself', () => {
    const ctx = newContext();
    const store = new ImportStore(ctx.db, new ReportBuilder('openclaw', 'test', 0));
    store.holdTurns();
    store.upsertSession({ id: 's1', channelId: 'openclaw', createdAt: 1, lastActivityAt: 1 });
    const window: ContextSnapshot[] = [];
    const turn = (n: number) => {
      window.push({ role: 'user', message: `q${n}`, timestamp: n * 10 }, { role: 'agent', message: `a${n}`, timestamp: n * 10 + 1 });
      const context = window.slice(-6);
      store.insertTurn({ id: `t${n}`, sessionId: 's1', userContent: `q${n}`, agentContent: `a${n}`, createdAt: n * 10, context });
      return context;
    };
    ctx.db.transaction(() => [0, 1].forEach(turn))();
    store.flushTurns();
    // t2 and t3 are written, then their transaction fails: the store still remembers them.
    expect(() =>
      ctx.db.transaction(() => {
        [2, 3].forEach(turn);
        store.flushTurns();
        throw new Error('a failed batch');
      })(),
    ).toThrow('a failed batch');
    const expected = ctx.db.transaction(() => {
      const c = turn(4);
      store.flushTurns();
      return c;
    })();
    expect(contextOf(ctx.db, 't4')).toEqual(expected.map(({ role, message }) => ({ role, message })));
    const items = JSON.parse(ctx.db.prepare("SELECT items FROM conversation_context_windows WHERE turn_id = 't4'").pluck().get() as string);
    // q2 to a3 were lost with their transaction: they are copies now; t4's own messages are references.
    expect(items.map((i: unknown[]) => i[3] ?? i[2])).toEqual(['q2', 'a2', 'q3', 'a3', 0, 0]);
    expect(dangling(ctx)).toBe(0);

    // Without holding (the importers whose lines run in savepoints): only the turn's own messages are references.
    const direct = new ImportStore(ctx.db, new ReportBuilder('reflection-logs', 'test', 0));
    const context = [
      ...expected,
      { role: 'user' as const, message: 'q5', timestamp: 50 },
      { role: 'agent' as const, message: 'a5', timestamp: 51 },
    ];
    ctx.db.transaction(() =>
      direct.insertTurn({ id: 't5', sessionId: 's1', userContent: 'q5', agentContent: 'a5', createdAt: 50, context }),
    )();
    const direct5 = JSON.parse(
      ctx.db.prepare("SELECT items FROM conversation_context_windows WHERE turn_id = 't5'").pluck().get() as string,
    );
    expect(direct5.filter((i: unknown[]) => i[2] === null).map((i: unknown[]) => i[3])).toEqual([0, 0]);
    expect(contextOf(ctx.db, 't5')).toEqual(context.map(({ role, message }) => ({ role, message })));
  });
});
