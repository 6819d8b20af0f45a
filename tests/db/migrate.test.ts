import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openDatabaseFile, openWorkspaceDatabase } from '../../src/core/db/connection';
import { latestVersion, loadMigrations, migrate } from '../../src/core/db/migrate';
import { tempWorkspace } from '../helpers/workspace';

const hashOf = (file: string) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
const tables = (db: Database.Database) =>
  db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").pluck().all() as string[];

describe('migration runner', () => {
  it('applies every migration to a new file and records the latest version', () => {
    const ws = tempWorkspace();
    const { db, migration } = openWorkspaceDatabase(ws);
    expect(migration.from).toBe(0);
    expect(migration.to).toBe(latestVersion());
    expect(migration.applied).toEqual(loadMigrations().map((m) => m.name));
    expect(migration.backupPath).toBeUndefined();
    expect(db.pragma('user_version', { simple: true })).toBe(latestVersion());
    db.close();
    // Opening again applies nothing.
    const again = openWorkspaceDatabase(ws);
    expect(again.migration.applied).toEqual([]);
    again.db.close();
  });

  it('applies all pending steps in one transaction: a failing step leaves nothing of the earlier ones', () => {
    const file = path.join(tempWorkspace(), 'x.db');
    const db = new Database(file);
    const steps = [
      { version: 10, name: '0010_a.sql', sql: 'CREATE TABLE a (x INTEGER) STRICT;' },
      { version: 20, name: '0020_b.sql', sql: 'CREATE TABLE b (x INTEGER) STRICT; INSERT INTO nowhere VALUES (1);' },
    ];
    expect(() => migrate(db, { file, migrations: steps })).toThrow(/0020_b\.sql failed/);
    expect(tables(db)).toEqual([]);
    expect(db.pragma('user_version', { simple: true })).toBe(0);
    db.close();
  });

  it('backs up an older database before migrating it: the backup holds the old version and its data', () => {
    const ws = tempWorkspace();
    const file = path.join(ws, '.openclaw-reflection', 'reflection.db');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const first = loadMigrations().slice(0, 1);
    const old = new Database(file);
    migrate(old, { migrations: first });
    old.prepare("INSERT INTO sessions (id, channel_id, created_at, last_activity_at) VALUES ('kept', 'c', 1, 1)").run();
    old.close();

    const { db, migration } = openWorkspaceDatabase(ws);
    expect(migration.from).toBe(first[0]!.version);
    expect(migration.applied.length).toBe(loadMigrations().length - 1);
    expect(migration.backupPath).toBe(`${file}.v${first[0]!.version}.bak`);
    expect(db.prepare('SELECT id FROM sessions').pluck().all()).toEqual(['kept']);
    expect(tables(db)).toContain('turns_fts');
    db.close();
    const backup = new Database(migration.backupPath!, { readonly: true });
    expect(backup.pragma('user_version', { simple: true })).toBe(first[0]!.version);
    expect(backup.prepare('SELECT id FROM sessions').pluck().all()).toEqual(['kept']);
    expect(tables(backup)).not.toContain('turns_fts');
    expect(backup.pragma('integrity_check', { simple: true })).toBe('ok');
    backup.close();
  });

  it('refuses a database from a newer version with a clear message and leaves it byte-identical', () => {
    const ws = tempWorkspace();
    const file = path.join(ws, '.openclaw-reflection', 'reflection.db');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const future = new Database(file);
    future.exec('CREATE TABLE t (x INTEGER)');
    future.pragma(`user_version = ${latestVersion() + 90}`);
    future.close();
    const before = hashOf(file);
    expect(() => openWorkspaceDatabase(ws)).toThrow(/newer version of Reflection Workbench.*left untouched/s);
    expect(hashOf(file)).toBe(before);
    expect(fs.readdirSync(path.dirname(file)).filter((f) => f.endsWith('.bak'))).toEqual([]);
  });

  it('refuses a corrupt file (random bytes) with a clear message and leaves it byte-identical', () => {
    const dir = tempWorkspace();
    const file = path.join(dir, 'reflection.db');
    fs.writeFileSync(file, crypto.randomBytes(64 * 1024));
    const before = hashOf(file);
    expect(() => openDatabaseFile(file)).toThrow(/not a readable Reflection database.*left untouched/s);
    expect(hashOf(file)).toBe(before);
    expect(fs.readdirSync(dir)).toEqual(['reflection.db']);
  });
});
