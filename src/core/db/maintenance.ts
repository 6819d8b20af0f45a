// File-level upkeep after deleting or rewriting data: zeroing freed pages while it runs, handing free
// pages back, emptying the write-ahead log, rebuilding the file, and the checks that say it is whole.
import type { DB } from './connection';

/** Runs fn with secure_delete on (freed pages are zeroed, so removed text does not linger), then restores it. */
export function withSecureDelete<T>(db: DB, fn: () => T): T {
  const before = db.pragma('secure_delete', { simple: true });
  db.pragma('secure_delete = ON');
  try {
    return fn();
  } finally {
    db.pragma(`secure_delete = ${before ? 'ON' : 'OFF'}`);
  }
}

/** Gives free pages back to the file system (auto_vacuum = INCREMENTAL); returns how many. */
export function reclaimFreePages(db: DB): number {
  const freeBefore = db.pragma('freelist_count', { simple: true }) as number;
  db.pragma('incremental_vacuum');
  return Math.max(0, freeBefore - (db.pragma('freelist_count', { simple: true }) as number));
}

export interface WalCheckpoint {
  /** 1 when another connection kept the checkpoint from completing. */
  busy: number;
  log: number;
  checkpointed: number;
}

/** Copies the write-ahead log into the database and truncates it; says whether a reader held pages back. */
export function checkpointWal(db: DB): WalCheckpoint | undefined {
  const [wal] = db.pragma('wal_checkpoint(TRUNCATE)') as WalCheckpoint[];
  return wal;
}

/** Rebuilds the whole file without free space (slow: it rewrites every page). */
export function vacuumDatabase(db: DB): void {
  db.exec('VACUUM');
}

/** SQLite's quick_check: 'ok' when the file is whole. */
export function quickCheck(db: DB): string {
  return String(db.pragma('quick_check', { simple: true }));
}

/** SQLite's full integrity_check, its findings joined ('ok' when none). */
export function integrityCheck(db: DB): string {
  return (db.pragma('integrity_check') as { integrity_check: string }[]).map((r) => r.integrity_check).join('; ');
}

/** Changes whenever another connection commits to the file (this connection's own writes do not count). */
export function dataVersion(db: DB): number {
  return db.pragma('data_version', { simple: true }) as number;
}
