import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openWorkspaceDatabase } from '../../src/core/db/connection';
import { generateDemoWorkspace } from '../../src/core/demo';
import type { ServiceContext } from '../../src/core/context';
import { verifyChains } from '../../src/core/health/verify';
import { tempWorkspace } from '../helpers/workspace';

function demo(): ServiceContext {
  const dir = tempWorkspace();
  generateDemoWorkspace(dir);
  const { db } = openWorkspaceDatabase(dir);
  return { db, workspaceDir: dir };
}

const middle = (ctx: ServiceContext) =>
  ctx.db.prepare("SELECT seq, audit_id FROM memory_versions WHERE file_name = 'USER.md' ORDER BY seq LIMIT 1 OFFSET 3").get() as {
    seq: number;
    audit_id: string;
  };

describe('tamper evidence', () => {
  it('a recorded workspace verifies, with every written write in a chain', () => {
    const ctx = demo();
    const r = verifyChains(ctx);
    expect(r.breaks).toEqual([]);
    expect(r.ok).toBe(true);
    const written = ctx.db
      .prepare(
        "SELECT count(*) FROM write_guardian_audit WHERE status IN ('written','rolled_back') AND (after_snapshot_id IS NOT NULL OR diff IS NOT NULL)",
      )
      .pluck()
      .get();
    expect(r.files.reduce((n, f) => n + f.versions, 0)).toBe(written);
    ctx.db.close();
  });

  it('reports content edited in the database', () => {
    const ctx = demo();
    const v = middle(ctx);
    ctx.db
      .prepare(
        "UPDATE file_snapshots SET content = content || 'x' WHERE id = (SELECT after_snapshot_id FROM write_guardian_audit WHERE id = ?)",
      )
      .run(v.audit_id);
    const r = verifyChains(ctx);
    expect(r.ok).toBe(false);
    expect(r.breaks).toContainEqual(expect.objectContaining({ kind: 'edited_content', fileName: 'USER.md', seq: v.seq }));
    ctx.db.close();
  });

  it('reports an edited version row and a missing version', () => {
    const ctx = demo();
    const v = middle(ctx);
    ctx.db.prepare("UPDATE memory_versions SET content_hash = ? WHERE file_name = 'USER.md' AND seq = ?").run('a'.repeat(64), v.seq);
    expect(verifyChains(ctx).breaks.map((b) => b.kind)).toContain('edited_version');
    const ctx2 = demo();
    const w = middle(ctx2);
    ctx2.db.prepare("DELETE FROM memory_versions WHERE file_name = 'USER.md' AND seq = ?").run(w.seq);
    const r = verifyChains(ctx2);
    expect(r.breaks).toContainEqual(expect.objectContaining({ kind: 'missing_version', seq: w.seq + 1 }));
    expect(r.breaks).toContainEqual(expect.objectContaining({ kind: 'unchained_write', auditId: w.audit_id }));
    ctx.db.close();
    ctx2.db.close();
  });

  it('reports a file on disk that matches no recorded version', () => {
    const ctx = demo();
    fs.appendFileSync(path.join(ctx.workspaceDir, 'SOUL.md'), '- edited behind the recorder\n');
    const r = verifyChains(ctx);
    expect(r.breaks).toEqual([expect.objectContaining({ kind: 'disk_unrecorded', fileName: 'SOUL.md' })]);
    ctx.db.close();
  });

  it('chains writes of a database recorded before the chain existed', () => {
    const ctx = demo();
    const total = ctx.db.prepare('SELECT count(*) FROM memory_versions').pluck().get() as number;
    ctx.db.prepare('DELETE FROM memory_versions').run();
    const r = verifyChains(ctx);
    expect(r.breaks).toEqual([]);
    expect(r.chained).toBe(total);
    ctx.db.close();
  });
});

describe('history recorded out of order', () => {
  it('inserts an older write in place, re-chains the later versions with a recorded event, and blame follows the time order', async () => {
    const { RecorderCore } = await import('../../src/core/recorder/recorder');
    const { blameFile } = await import('../../src/core/health/blame');
    const dir = tempWorkspace();
    const { db } = openWorkspaceDatabase(dir);
    const rec = new RecorderCore(db);
    const w = (before: string | null, after: string, at: number) =>
      rec.recordWrite({ targetFile: 'USER.md', before, after, status: 'written', source: 'retry', createdAt: at }).auditId;
    const a = w(null, '- one\n', 1000);
    const c = w('- one\n- two\n', '- one\n- two\n- three\n', 3000);
    const b = w('- one\n', '- one\n- two\n', 2000); // imported late
    fs.writeFileSync(path.join(dir, 'USER.md'), '- one\n- two\n- three\n');
    const order = db.prepare("SELECT audit_id FROM memory_versions WHERE file_name = 'USER.md' ORDER BY seq").pluck().all();
    expect(order).toEqual([a, b, c]);
    const ctx = { db, workspaceDir: dir };
    const r = verifyChains(ctx);
    expect(r.breaks).toEqual([]);
    expect(r.events).toEqual([
      expect.objectContaining({ fileName: 'USER.md', fromSeq: 2, reason: expect.stringMatching(/recorded after later ones/) }),
    ]);
    expect(blameFile(ctx, { file: 'USER.md' }).lines.map((l) => l.write?.auditId)).toEqual([a, b, c]);
    // More old history imported right after: one event covers the run, and the chain still verifies.
    w(null, '- zero\n', 500);
    w('- zero\n', '- one\n', 900);
    const again = verifyChains(ctx);
    expect(again.breaks).toEqual([]);
    expect(again.events).toHaveLength(1);
    expect(again.events[0]!.fromSeq).toBe(1);
    db.close();
  });
});

describe('deleted writes', () => {
  it('a write deleted by a purge or retention is a recorded event, not a break', () => {
    const ctx = demo();
    const v = middle(ctx);
    ctx.db.pragma('foreign_keys = OFF');
    ctx.db.prepare('DELETE FROM write_guardian_audit WHERE id = ?').run(v.audit_id);
    const r = verifyChains(ctx);
    expect(r.breaks).toEqual([]);
    expect(r.events).toContainEqual(
      expect.objectContaining({ fileName: 'USER.md', fromSeq: v.seq, reason: expect.stringMatching(/deleted/) }),
    );
    ctx.db.close();
  });
});
