// Generates a long, realistic history of one memory file: plugin writes (add, delete, reword, move,
// consolidate), external edits and rollbacks, through the real recorder, the real external-change
// detection and the real rollback. Alongside, it replays every operation on tracked line
// identities: the brute-force ground truth of which write last produced each line.
import fs from 'node:fs';
import path from 'node:path';
import { openWorkspaceDatabase, type DB } from '../../src/core/db/connection';
import { RecorderCore } from '../../src/core/recorder/recorder';
import { recordExternalChanges } from '../../src/core/guardian/external';
import { rollbackWrite } from '../../src/core/guardian/rollback';
import type { ServiceContext } from '../../src/core/context';

export interface TrackedLine {
  id: number;
  text: string;
  producer: string;
  /** The write that produced the line before its last reword or move, when that is unambiguous. */
  prevProducer?: string;
}

type OpKind = 'add' | 'delete' | 'reword' | 'move' | 'consolidate';

export interface GeneratedHistory {
  db: DB;
  ctx: ServiceContext;
  file: 'USER.md';
  lines: TrackedLine[];
  /** Ground truth of past versions, by version seq. */
  checkpoints: Array<{ seq: number; lines: TrackedLine[] }>;
  counts: Record<'plugin' | 'external' | 'rollback', number>;
}

const WORDS = ['coffee', 'green tea', 'Berlin', 'Lisbon', 'chess', 'trail running', '咖啡', '上海', 'jazz', 'sushi', 'cycling', '围棋'];

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

export async function generateHistory(dir: string, writes: number, seed = 7): Promise<GeneratedHistory> {
  const { db } = openWorkspaceDatabase(dir);
  const rec = new RecorderCore(db);
  const rand = rng(seed);
  const pick = <T>(a: T[]) => a[Math.floor(rand() * a.length)]!; // callers pass non-empty lists (at least six facts)
  let now = Date.UTC(2026, 0, 1);
  const ctx: ServiceContext = { db, workspaceDir: dir, now: () => now, actor: 'tester' };
  const file = 'USER.md' as const;
  const filePath = path.join(dir, file);
  let nextId = 1;
  let lines: TrackedLine[] = [];
  const render = (ls: TrackedLine[]) => ls.map((l) => `${l.text}\n`).join('');
  const factText = (id: number, v: number) => `- fact ${id}: the user likes ${pick(WORDS)} (v${v})`;
  rec.upsertSession({ id: 'gen:session', channelId: 'gen', createdAt: now, lastActivityAt: now });
  let decisionId = '';
  const counts: GeneratedHistory['counts'] = { plugin: 0, external: 0, rollback: 0 };
  const checkpoints: GeneratedHistory['checkpoints'] = [];
  let last: { auditId: string; kind: OpKind; before: TrackedLine[]; touched: Set<number> } | null = null;

  const newDecision = () => {
    const turn = rec.insertTurn({
      sessionId: 'gen:session',
      userMessage: { content: `turn at ${now}` },
      agentReply: { content: 'ok' },
      createdAt: now,
    });
    decisionId = rec.insertDecision({
      turnId: turn.id,
      sessionId: 'gen:session',
      decision: 'UPDATE_USER',
      reason: 'generated',
      candidateFact: 'x',
      llmCall: { model: 'gen' },
      createdAt: now,
    });
  };

  /** Applies one operation to a copy of the lines; returns the new lines and the ids it touched. */
  const operate = (kind: OpKind, producer: string): { next: TrackedLine[]; touched: Set<number> } => {
    const next = lines.map((l) => ({ ...l }));
    const facts = next.map((l, i) => ({ l, i })).filter((x) => x.l.id > 0);
    const touched = new Set<number>();
    if (kind === 'add' || facts.length < 6) {
      const id = nextId++;
      next.splice(3 + Math.floor(rand() * (next.length - 2)), 0, { id, text: factText(id, 1), producer });
      touched.add(id);
    } else if (kind === 'delete') {
      const { l, i } = pick(facts);
      next.splice(i, 1);
      touched.add(l.id);
    } else if (kind === 'reword') {
      const { l } = pick(facts);
      const v = Number(/\(v(\d+)\)/.exec(l.text)![1]) + 1;
      l.prevProducer = l.producer;
      l.producer = producer;
      l.text = factText(l.id, v);
      touched.add(l.id);
    } else if (kind === 'move') {
      const from = pick(facts).i;
      const choices = facts.map((f) => f.i).filter((i) => Math.abs(i - from) >= 3);
      const [l] = next.splice(from, 1);
      if (!l) throw new Error(`no line at ${from}`);
      const to = pick(choices);
      next.splice(to > from ? to - 1 : to, 0, l);
      l.prevProducer = l.producer;
      l.producer = producer;
      touched.add(l.id);
    } else {
      const { i } = pick(facts.slice(0, -1));
      if (next[i + 1]!.id <= 0) return operate('add', producer); // i is not the last fact
      const [a, b] = next.splice(i, 2, { id: nextId, text: `- fact ${nextId}: merged from line ${i} (v1)`, producer });
      if (!a || !b) throw new Error(`no two lines at ${i}`);
      touched.add(a.id).add(b.id).add(nextId++);
    }
    return { next, touched };
  };

  const applyWrite = (kind: OpKind, external: boolean): void => {
    const before = lines;
    const beforeText = render(lines);
    const { next, touched } = operate(kind, '(pending)');
    const afterText = render(next);
    fs.writeFileSync(filePath, afterText);
    let auditId: string;
    if (external) {
      auditId = recordExternalChanges(ctx, [file])[0]!.auditId; // the file was just changed on disk
      counts.external++;
    } else {
      auditId = rec.recordWrite({
        targetFile: file,
        decisionId,
        before: beforeText,
        after: afterText,
        status: 'written',
        source: 'plugin',
        createdAt: now,
      }).auditId;
      counts.plugin++;
    }
    for (const l of next) if (l.producer === '(pending)') l.producer = auditId;
    lines = next;
    last = { auditId, kind, before, touched };
  };

  const applyRollback = async (): Promise<void> => {
    const undone = last!;
    const r = await rollbackWrite(ctx, { auditId: undone.auditId, reason: 'generated rollback' });
    const current = new Map(lines.map((l) => [l.id, l]));
    lines = undone.before.map((l) => {
      if (!undone.touched.has(l.id)) return { ...current.get(l.id)! };
      const now = current.get(l.id);
      // Re-created lines belong to the rollback; a reword or move undone links back to the write it undid.
      const linked = now && (undone.kind === 'reword' || undone.kind === 'move');
      return { ...l, producer: r.rollbackAuditId!, prevProducer: linked ? now.producer : undefined };
    });
    counts.rollback++;
    last = null;
  };

  // The first version: a header and a few facts.
  newDecision();
  lines = [
    { id: -1, text: '# USER', producer: '' },
    { id: -2, text: 'Who the user is and how they like to work.', producer: '' },
    { id: -3, text: '## Learned', producer: '' },
  ];
  for (let k = 0; k < 8; k++) {
    const id = nextId++;
    lines.push({ id, text: factText(id, 1), producer: '' });
  }
  const first = rec.recordWrite({
    targetFile: file,
    decisionId,
    before: null,
    after: render(lines),
    status: 'written',
    source: 'plugin',
    createdAt: now,
  });
  fs.writeFileSync(filePath, render(lines));
  for (const l of lines) l.producer = first.auditId;
  recordExternalChanges(ctx, [file]);

  for (let i = 1; i < writes; i++) {
    now += 1000;
    if (i % 100 === 0) newDecision();
    if (i % 50 === 0 && last) {
      await applyRollback();
    } else {
      const size = lines.length;
      const r = rand();
      const kind: OpKind =
        size > 120
          ? r < 0.6
            ? 'delete'
            : 'reword'
          : r < 0.35
            ? 'add'
            : r < 0.5
              ? 'delete'
              : r < 0.75
                ? 'reword'
                : r < 0.93
                  ? 'move'
                  : 'consolidate';
      applyWrite(kind, i % 20 === 7);
    }
    if (i % Math.max(1, Math.floor(writes / 8)) === 0) {
      const seq = db.prepare("SELECT max(seq) FROM memory_versions WHERE file_name = 'USER.md'").pluck().get() as number;
      checkpoints.push({ seq, lines: lines.map((l) => ({ ...l })) });
    }
  }
  return { db, ctx, file, lines, checkpoints, counts };
}
