import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { blameFile } from '../../src/core/health/blame';
import { tempWorkspace } from '../helpers/workspace';
import { generateHistory, type TrackedLine } from './historyGenerator';

const WRITES = Number(process.env.HEALTH_BLAME_WRITES ?? 10_000);

function expectMatches(blamed: ReturnType<typeof blameFile>, truth: TrackedLine[]) {
  expect(blamed.lines.map((l) => l.text)).toEqual(truth.map((l) => l.text));
  const wrongWriter = blamed.lines.filter((l, i) => l.write?.auditId !== truth[i]?.producer);
  expect(wrongWriter.map((l) => `${l.line}: ${l.text}`)).toEqual([]);
  const linked = truth.map((t, i) => ({ t, b: blamed.lines[i]! })).filter((x) => x.t.prevProducer); // same length, checked above
  const wrongHistory = linked.filter((x) => x.b.history[0]?.write.auditId !== x.t.prevProducer);
  expect(wrongHistory.map((x) => x.b.text)).toEqual([]);
  return linked.length;
}

describe('blame over a long generated history', () => {
  it(`attributes every line like a brute-force replay of ${WRITES} writes with moves, rewrites, external edits and rollbacks`, async () => {
    const dir = tempWorkspace();
    const h = await generateHistory(dir, WRITES);
    expect(h.counts.rollback).toBeGreaterThan(WRITES / 100);
    expect(h.counts.external).toBeGreaterThan(WRITES / 40);
    const blamed = blameFile(h.ctx, { file: 'USER.md' });
    expect(blamed.diskDiffers).toBe(false);
    expect(blamed.versions).toBeGreaterThanOrEqual(WRITES);
    const linked = expectMatches(blamed, h.lines);
    expect(linked).toBeGreaterThan(0);
    // Past versions answer from their stored line maps as well.
    for (const c of h.checkpoints) expectMatches(blameFile(h.ctx, { file: 'USER.md', seq: c.seq }), c.lines);

    // Views read the stored map: a second blame maps nothing new and is fast.
    const t0 = performance.now();
    blameFile(h.ctx, { file: 'USER.md' });
    expect(h.db.prepare('SELECT count(*) FROM memory_versions WHERE line_map IS NULL').pluck().get()).toBe(0);
    const one = blameFile(h.ctx, { file: 'USER.md', line: 5 });
    expect(one.lines).toHaveLength(1);
    expect(one.lines[0]?.write?.auditId).toBe(h.lines[4]!.producer);
    expect(performance.now() - t0).toBeLessThan(2000); // generous: a sanity bound, the bench measures

    // An edit on disk that nobody recorded yet has no write.
    fs.appendFileSync(path.join(dir, 'USER.md'), '- typed by hand\n');
    const dirty = blameFile(h.ctx, { file: 'USER.md' });
    expect(dirty.diskDiffers).toBe(true);
    expect(dirty.lines.at(-1)).toMatchObject({ text: '- typed by hand', write: null });
    expect(dirty.lines[0]?.write?.auditId).toBe(h.lines[0]!.producer);
    h.db.close();
  }, 600_000);

  it('names what is wrong for bad input', async () => {
    const dir = tempWorkspace();
    const h = await generateHistory(dir, 20);
    expect(() => blameFile(h.ctx, { file: 'NOTES.md' })).toThrow(/not a memory file/);
    expect(() => blameFile(h.ctx, { file: 'USER.md', line: 10_000 })).toThrow(/has \d+ line/);
    expect(() => blameFile(h.ctx, { file: 'USER.md', seq: 999 })).toThrow(/no version 999/);
    h.db.close();
  });
});
