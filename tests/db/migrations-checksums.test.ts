// Released migrations are frozen: migrations/CHECKSUMS lists the SHA-256 of every migration that has
// shipped, and an edit to one of them fails here. Databases in the field already ran the old text, so a
// change must come as a new numbered migration. Migrations not yet listed are unreleased work in progress.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadMigrations } from '../../src/core/db/migrate';
import { repoRoot, tempWorkspace } from '../helpers/workspace';

const migrationsDir = path.join(repoRoot, 'migrations');

/** `<sha256>  <file>` lines, as `sha256sum` writes them; `#` starts a comment. */
function readChecksums(dir: string): Map<string, string> {
  const listed = new Map<string, string>();
  for (const [i, raw] of fs.readFileSync(path.join(dir, 'CHECKSUMS'), 'utf8').split('\n').entries()) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const m = /^([0-9a-f]{64}) [ *]?(\S+)$/.exec(line);
    if (!m) throw new Error(`migrations/CHECKSUMS line ${i + 1} is not "<sha256>  <file>": ${line}`);
    const [, sum = '', file = ''] = m; // both groups are required by the pattern
    if (listed.has(file)) throw new Error(`migrations/CHECKSUMS lists ${file} twice`);
    listed.set(file, sum);
  }
  return listed;
}

const sha256 = (file: string) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');

/** Listed migrations whose file is gone or differs from its checksum. */
function changedReleased(dir: string): string[] {
  return [...readChecksums(dir)]
    .filter(([file, sum]) => !fs.existsSync(path.join(dir, file)) || sha256(path.join(dir, file)) !== sum)
    .map(([file]) => file);
}

describe('released migrations', () => {
  const dir = migrationsDir;
  const listed = readChecksums(dir);

  it('lists the first migrations, at least up to the last landed one', () => {
    expect(listed.has('0010_init.sql')).toBe(true);
    expect(listed.has('0090_dataset_indexes.sql')).toBe(true);
  });

  it('are unchanged since release', () => {
    const changed = changedReleased(dir);
    expect(changed, `released migrations were edited or removed (add a new migration instead): ${changed.join(', ')}`).toEqual([]);
  });

  it('come before every unreleased one, so a new migration never slips in under a released number', () => {
    const all = loadMigrations(dir).map((m) => m.name);
    const newestReleased = Math.max(...[...listed.keys()].map((f) => Number(f.slice(0, 4))));
    const late = all.filter((f) => !listed.has(f) && Number(f.slice(0, 4)) < newestReleased);
    expect(late, `unlisted migrations numbered below released ${newestReleased}: databases past it would never run them`).toEqual([]);
  });

  it('the check notices an edited and a removed migration in a copy of the folder', () => {
    const copy = tempWorkspace('reflection-migrations-');
    fs.cpSync(dir, copy, { recursive: true });
    expect(changedReleased(copy)).toEqual([]);
    fs.appendFileSync(path.join(copy, '0050_dataset.sql'), '\n-- a comment is an edit too\n');
    fs.rmSync(path.join(copy, '0020_fts.sql'));
    expect(changedReleased(copy)).toEqual(['0020_fts.sql', '0050_dataset.sql']);
  });
});
