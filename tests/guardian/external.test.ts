import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { recordExternalChanges } from '../../src/core/guardian/external';
import { makeFixture } from './fixture';

describe('recordExternalChanges', () => {
  it('records a baseline first, then each manual edit, creation and deletion as an external audit', () => {
    const f = makeFixture();
    f.write('USER.md', '# User\n- likes tea\n');
    expect(recordExternalChanges(f.ctx)).toEqual([]);
    expect(f.db.prepare('SELECT count(*) FROM write_guardian_audit').pluck().get()).toBe(0);
    expect(
      f.db
        .prepare("SELECT content FROM file_snapshots s JOIN file_state fs ON fs.snapshot_id = s.id WHERE fs.file_name = 'USER.md'")
        .pluck()
        .get(),
    ).toBe('# User\n- likes tea\n');

    f.write('USER.md', '# User\n- likes coffee\n');
    f.write('MEMORY.md', '# Memory\n');
    const changes = recordExternalChanges(f.ctx);
    expect(changes.map((c) => [c.fileName, c.kind])).toEqual([
      ['MEMORY.md', 'created'],
      ['USER.md', 'modified'],
    ]);
    const userAudit = f.db
      .prepare('SELECT * FROM write_guardian_audit WHERE id = ?')
      .get(changes.find((c) => c.fileName === 'USER.md')!.auditId) as Record<string, unknown>;
    expect(userAudit).toMatchObject({ source: 'external', status: 'written', lines_modified: 1 });
    expect(String(userAudit.diff)).toContain('+- likes coffee');

    // Nothing changed: nothing recorded.
    expect(recordExternalChanges(f.ctx)).toEqual([]);

    fs.rmSync(path.join(f.dir, 'MEMORY.md'));
    const deleted = recordExternalChanges(f.ctx);
    expect(deleted).toHaveLength(1);
    expect(deleted[0]).toMatchObject({ fileName: 'MEMORY.md', kind: 'deleted', afterSnapshotId: null });
    f.close();
  });

  it('does not mistake a recorded plugin write for an external edit', () => {
    const f = makeFixture();
    recordExternalChanges(f.ctx);
    f.pluginWrite('USER.md', '# User\n- fact\n');
    expect(recordExternalChanges(f.ctx)).toEqual([]);
    f.write('USER.md', '# User\n- fact\n- edited by hand\n');
    expect(recordExternalChanges(f.ctx)).toHaveLength(1);
    f.close();
  });
});

describe('migration 0030 on a database with recorded writes', () => {
  it('starts file_state from the newest recorded content, so an unrecorded edit is caught', async () => {
    const { migrate, loadMigrations } = await import('../../src/core/db/migrate');
    const Database = (await import('better-sqlite3')).default;
    const { RecorderCore } = await import('../../src/core/recorder/recorder');
    const dir = (await import('../helpers/workspace')).tempWorkspace();
    const db = new Database(path.join(dir, 'old.db'));
    db.pragma('foreign_keys = ON');
    migrate(db, { migrations: loadMigrations().filter((m) => m.version < 30) });
    new RecorderCore(db).recordWrite({
      targetFile: 'SOUL.md',
      before: null,
      after: '# Soul\n- v1\n',
      status: 'written',
      source: 'retry',
      createdAt: 10,
    });
    new RecorderCore(db).recordWrite({
      targetFile: 'SOUL.md',
      before: '# Soul\n- v1\n',
      after: '# Soul\n- v2\n',
      status: 'written',
      source: 'retry',
      createdAt: 20,
    });
    migrate(db);
    fs.writeFileSync(path.join(dir, 'SOUL.md'), '# Soul\n- v2\n- edited outside\n');
    const changes = recordExternalChanges({ db, workspaceDir: dir, now: () => 30 }, ['SOUL.md']);
    expect(changes).toHaveLength(1);
    expect(db.prepare('SELECT diff FROM write_guardian_audit WHERE id = ?').pluck().get(changes[0]!.auditId)).toContain(
      '+- edited outside',
    );
    db.close();
  });
});
