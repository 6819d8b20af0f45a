// Demo workspaces with collected, approved samples: the input a fleet export reads.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { dbPathFor, openWorkspaceDatabase } from '../../src/core/db/connection';
import { collectSamples } from '../../src/core/dataset';
import { generateDemoWorkspace } from '../../src/core/demo';

/** A demo workspace whose collected samples were all approved by a curator (quality 0.9). */
export async function curatedWorkspace(dir: string, seed: number, sessions = 5): Promise<void> {
  generateDemoWorkspace(dir, { sessions, seed });
  const { db } = openWorkspaceDatabase(dir);
  try {
    await collectSamples({ db, workspaceDir: dir });
    db.prepare(`UPDATE dataset_samples SET annotation_status = 'approved', annotated_by = 'lead', quality_score = 0.9`).run();
  } finally {
    db.close();
  }
}

/** A workspace folder whose database file is garbage. */
export function corruptWorkspace(dir: string): void {
  const file = dbPathFor(dir);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, Buffer.from('this is not a database, just bytes '.repeat(200)));
}

export function readOnly(dir: string): Database.Database {
  return new Database(dbPathFor(dir), { readonly: true, fileMustExist: true });
}

export async function duck(): Promise<{ conn: DuckDBConnection; all: <T = Record<string, unknown>>(sql: string) => Promise<T[]> }> {
  const conn = await (await DuckDBInstance.create(':memory:')).connect();
  return {
    conn,
    async all<T>(sql: string): Promise<T[]> {
      const r = await conn.runAndReadAll(sql);
      return r.getRowObjectsJson() as T[];
    },
  };
}
