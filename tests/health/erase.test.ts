import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openWorkspaceDatabase } from '../../src/core/db/connection';
import { collectSamples, exportDataset } from '../../src/core/dataset';
import { generateDemoWorkspace } from '../../src/core/demo';
import type { ServiceContext } from '../../src/core/context';
import { blameFile } from '../../src/core/health/blame';
import { eraseValue, ERASED_MARK, listErasures } from '../../src/core/health/erase';
import { verifyChains } from '../../src/core/health/verify';
import { exportConversations } from '../../src/core/lifecycle/archive';
import { sha256 } from '../../src/core/text/diff';
import { tempWorkspace } from '../helpers/workspace';

function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

const holding = (dir: string, value: string) => filesUnder(dir).filter((f) => fs.readFileSync(f).includes(Buffer.from(value)));

const counts = (ctx: ServiceContext) =>
  Object.fromEntries(
    [
      'conversation_turns',
      'memory_gate_decisions',
      'write_guardian_audit',
      'dataset_samples',
      'memory_versions',
      'behavior_corrections',
    ].map((t) => [t, ctx.db.prepare(`SELECT count(*) FROM ${t}`).pluck().get()]),
  );

describe('erasure across history', () => {
  it('leaves no byte of a planted email in the database, archives or listed exports, and keeps the rest of history', async () => {
    const dir = tempWorkspace();
    generateDemoWorkspace(dir);
    const { db } = openWorkspaceDatabase(dir);
    const ctx: ServiceContext = { db, workspaceDir: dir, actor: 'tester' };
    const userMd = () => fs.readFileSync(path.join(dir, 'USER.md'), 'utf8');
    const emails = [...new Set(userMd().match(/[\w.]+@example\.com/g))];
    const value = emails[0];
    if (!value) throw new Error('the demo USER.md holds an example.com address');
    await collectSamples(ctx);
    await exportConversations(ctx, {});
    await exportDataset(ctx, { format: 'raw', includePii: true, includeUnreviewed: true, includeBelowQuality: true });
    // An export the curator wrote outside the workspace is found through its recorded path.
    const outside = path.join(tempWorkspace('reflection-export-'), 'my-export');
    await exportDataset(ctx, { format: 'openai', includePii: true, includeUnreviewed: true, includeBelowQuality: true, outDir: outside });
    expect(holding(outside, value).length).toBeGreaterThan(0);
    db.pragma('wal_checkpoint(TRUNCATE)');
    expect(holding(dir, value).length).toBeGreaterThan(2); // the db, the memory file, the archive, the export
    const before = counts(ctx);

    const preview = await eraseValue(ctx, { value, dryRun: true });
    const kinds = new Set(preview.places.map((p) => p.kind));
    expect(preview.places.filter((p) => p.kind === 'export').map((p) => p.action)).toEqual(['keep', 'keep']); // listed only, unless asked
    expect(preview.places.some((p) => p.kind === 'export' && path.resolve(dir, p.place) === outside)).toBe(true);
    expect([...kinds].sort()).toEqual(['archive', 'database', 'export', 'memory_file']);
    const tables = preview.places.filter((p) => p.kind === 'database').map((p) => p.place);
    for (const t of [
      'file_snapshots.content',
      'write_guardian_audit.diff',
      'conversation_turns.user_message_content',
      'memory_gate_decisions.candidate_fact',
      'dataset_samples.content',
    ])
      expect(tables).toContain(t);
    expect(userMd()).toContain(value); // a dry run changes nothing
    await expect(eraseValue(ctx, { value })).rejects.toThrow(/--yes/);
    await expect(eraseValue(ctx, { value: 'abc', confirm: true })).rejects.toThrow(/at least 5 characters/);

    const done = await eraseValue(ctx, { value, confirm: true, deleteExports: true, by: 'dpo' });
    expect(done.blocked).toEqual([]);
    expect(done.warnings).toEqual([]);
    expect(done.rechained).toContain('USER.md');
    db.pragma('wal_checkpoint(TRUNCATE)');
    expect(holding(dir, value)).toEqual([]);
    expect(fs.existsSync(outside)).toBe(false);
    expect(fs.readFileSync(db.name).includes(Buffer.from(value))).toBe(false);
    expect(userMd()).toContain(ERASED_MARK);

    // The rest of history is intact: same rows, other values kept, blame and the chain still answer.
    expect(counts(ctx)).toEqual(before);
    for (const other of emails.slice(1)) expect(userMd()).toContain(other);
    expect(blameFile(ctx, { file: 'USER.md' }).lines.find((l) => l.text.includes(ERASED_MARK))?.write).not.toBeNull();
    const verify = verifyChains(ctx);
    expect(verify.breaks).toEqual([]);
    expect(verify.events.some((e) => e.erasureId === done.erasureId && e.fileName === 'USER.md')).toBe(true);

    // The stub: who and when, a salted hash, never the value.
    const [stub] = listErasures(db);
    expect(stub).toMatchObject({ id: done.erasureId, erasedBy: 'dpo' });
    const row = db.prepare('SELECT salt, value_hash FROM erasures').get() as { salt: string; value_hash: string };
    expect(row.value_hash).toBe(sha256(`${row.salt}${value}`));
    expect(JSON.stringify(stub)).not.toContain(value);
    db.close();
  }, 120_000);
});

describe('erasure of a value that JSON escapes', () => {
  it('finds and erases it in JSON columns as well as in plain text', async () => {
    const dir = tempWorkspace();
    generateDemoWorkspace(dir, { sessions: 4 });
    const { db } = openWorkspaceDatabase(dir);
    const ctx: ServiceContext = { db, workspaceDir: dir };
    const value = 'pass"word\\42';
    const turn = db.prepare('SELECT id, session_id FROM conversation_turns LIMIT 1').get() as { id: string; session_id: string };
    db.prepare('UPDATE conversation_turns SET user_message_content = ?, user_metadata = ? WHERE id = ?').run(
      `my password is ${value}`,
      JSON.stringify({ note: value }),
      turn.id,
    );
    const dry = await eraseValue(ctx, { value, dryRun: true });
    expect(dry.places.map((p) => p.place)).toEqual(
      expect.arrayContaining(['conversation_turns.user_message_content', 'conversation_turns.user_metadata']),
    );
    await eraseValue(ctx, { value, confirm: true });
    const row = db.prepare('SELECT user_message_content, user_metadata FROM conversation_turns WHERE id = ?').get(turn.id) as {
      user_message_content: string;
      user_metadata: string;
    };
    expect(row.user_message_content).toBe(`my password is ${ERASED_MARK}`);
    expect(JSON.parse(row.user_metadata)).toEqual({ note: ERASED_MARK });
    db.close();
  });
});

describe('erasure that makes two versions identical', () => {
  it('merges their snapshots, keeps every write pointing at content, and the chain verifies', async () => {
    const { RecorderCore } = await import('../../src/core/recorder/recorder');
    const dir = tempWorkspace();
    const { db } = openWorkspaceDatabase(dir);
    const rec = new RecorderCore(db);
    const ctx: ServiceContext = { db, workspaceDir: dir };
    const value = 'sam@example.org';
    const v = ['# USER\n', `# USER\n- mail ${value}\n`, `# USER\n- mail ${ERASED_MARK}\n`, `# USER\n- mail ${ERASED_MARK}\n- likes tea\n`];
    for (let i = 1; i < v.length; i++)
      rec.recordWrite({ targetFile: 'USER.md', before: v[i - 1]!, after: v[i]!, status: 'written', source: 'retry', createdAt: 1000 * i });
    fs.writeFileSync(path.join(dir, 'USER.md'), v[3]!);
    const snapshotsBefore = db.prepare('SELECT count(*) FROM file_snapshots').pluck().get() as number;
    await eraseValue(ctx, { value, confirm: true });
    expect(db.prepare('SELECT count(*) FROM file_snapshots').pluck().get()).toBe(snapshotsBefore - 1);
    const dangling = db
      .prepare(
        'SELECT count(*) FROM write_guardian_audit a WHERE (a.after_snapshot_id IS NOT NULL AND a.after_snapshot_id NOT IN (SELECT id FROM file_snapshots)) OR (a.before_snapshot_id IS NOT NULL AND a.before_snapshot_id NOT IN (SELECT id FROM file_snapshots))',
      )
      .pluck()
      .get();
    expect(dangling).toBe(0);
    expect(verifyChains(ctx).breaks).toEqual([]);
    const blamed = blameFile(ctx, { file: 'USER.md' }).lines.map((l) => l.text);
    expect(blamed).toEqual(['# USER', `- mail ${ERASED_MARK}`, '- likes tea']);
    expect(fs.readFileSync(db.name).includes(Buffer.from(value))).toBe(false);
    db.close();
  });
});

describe('erasure while another connection reads', () => {
  it('says when the write-ahead log could not be emptied, and a second run completes it', async () => {
    const Database = (await import('better-sqlite3')).default;
    const dir = tempWorkspace();
    generateDemoWorkspace(dir, { sessions: 6 });
    const { db } = openWorkspaceDatabase(dir);
    const ctx: ServiceContext = { db, workspaceDir: dir };
    const value = (db.prepare('SELECT user_message_content FROM conversation_turns LIMIT 1').pluck().get() as string).slice(0, 12);
    const reader = new Database(db.name, { readonly: true });
    reader.prepare('BEGIN').run();
    reader.prepare('SELECT count(*) FROM conversation_turns').get();
    const first = await eraseValue(ctx, { value, confirm: true });
    expect(first.warnings).toHaveLength(1);
    expect(first.warnings[0]).toMatch(/write-ahead log/);
    reader.prepare('COMMIT').run();
    reader.close();
    const second = await eraseValue(ctx, { value, confirm: true });
    expect(second.warnings).toEqual([]);
    expect(fs.readFileSync(db.name).includes(Buffer.from(value))).toBe(false);
    const wal = `${db.name}-wal`;
    expect(!fs.existsSync(wal) || !fs.readFileSync(wal).includes(Buffer.from(value))).toBe(true);
    db.close();
  });
});
