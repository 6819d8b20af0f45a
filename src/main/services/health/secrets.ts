// Secrets and personal data in memory: every write is scanned as it is recorded (the lines it
// added), and the current files can be scanned on demand. Only detector kinds and positions are
// stored, never the values. Removing a value is a curator write plus a correction of the write
// that introduced it, so the gate learns not to store such values.
import type Database from 'better-sqlite3';
import type { MemoryFileName } from '../../../shared/domain';
import { MEMORY_FILES } from '../../../shared/domain';
import type { DB } from '../../db/connection';
import { detectPii, type PiiSpan, type PiiType } from '../pii';

/** Kinds that never belong in memory files. Person names are too uncertain to flag. */
export const FLAGGED_KINDS: readonly PiiType[] = [
  'EMAIL', 'PHONE', 'CREDIT_CARD', 'BANK_CARD', 'CN_ID', 'IP_ADDRESS', 'URL_CREDENTIALS', 'API_KEY', 'PRIVATE_KEY', 'PASSWORD', 'IBAN',
];
const SECRET_KINDS = new Set<PiiType>(['API_KEY', 'PRIVATE_KEY', 'PASSWORD', 'URL_CREDENTIALS']);

export const isSecretKind = (t: PiiType): boolean => SECRET_KINDS.has(t);

export function sensitiveSpans(text: string): PiiSpan[] {
  return detectPii(text, { minConfidence: 0.5 }).filter((s) => FLAGGED_KINDS.includes(s.type));
}

/** The lines a unified diff added (without the leading '+'). */
export function addedLines(diff: string | null): string[] {
  if (!diff) return [];
  return diff.split('\n').filter((l) => l.startsWith('+') && !l.startsWith('+++')).map((l) => l.slice(1));
}

const flagStatements = new WeakMap<DB, Database.Statement<unknown[]>>();

/** Flags a just-recorded write whose added lines carry a secret or personal data. Call in the recording transaction. */
export function flagWriteIfSensitive(db: DB, auditId: string, diff: string | null, at: number): void {
  const added = addedLines(diff);
  if (!added.length) return;
  const spans = sensitiveSpans(added.join('\n'));
  if (!spans.length) return;
  let stmt = flagStatements.get(db);
  if (!stmt) {
    stmt = db.prepare('INSERT OR REPLACE INTO audit_secret_flags (audit_id, kinds, count, scanned_at) VALUES (?, ?, ?, ?)');
    flagStatements.set(db, stmt);
  }
  stmt.run(auditId, JSON.stringify([...new Set(spans.map((s) => s.type))].sort()), spans.length, at);
}

/** Flags older writes recorded before scanning existed (or by another tool). Returns how many were scanned. */
export function scanUnflaggedWrites(db: DB, sinceRowid = 0): number {
  const rows = db
    .prepare(
      `SELECT a.id, a.diff, a.created_at FROM write_guardian_audit a
       WHERE a.rowid > ? AND a.diff IS NOT NULL AND a.status IN ('written', 'rolled_back')
         AND NOT EXISTS (SELECT 1 FROM audit_secret_flags f WHERE f.audit_id = a.id)`,
    )
    .all(sinceRowid) as Array<{ id: string; diff: string; created_at: number }>;
  db.transaction(() => rows.forEach((r) => flagWriteIfSensitive(db, r.id, r.diff, r.created_at)))();
  return rows.length;
}

export interface SecretInMemory {
  fileName: MemoryFileName;
  line: number;
  text: string;
  kind: PiiType;
  secret: boolean;
  start: number;
  end: number;
  value: string;
}

/** Finds flagged values in the current content of the memory files. */
export function scanMemoryContents(contents: Partial<Record<MemoryFileName, string | null>>): SecretInMemory[] {
  const out: SecretInMemory[] = [];
  for (const file of MEMORY_FILES) {
    const content = contents[file];
    if (!content) continue;
    content.split('\n').forEach((text, i) => {
      for (const s of sensitiveSpans(text)) {
        out.push({ fileName: file, line: i + 1, text, kind: s.type, secret: isSecretKind(s.type), start: s.start, end: s.end, value: s.value });
      }
    });
  }
  return out;
}

export interface WriteFlag {
  auditId: string;
  kinds: PiiType[];
  count: number;
}

export function flagsForAudits(db: DB, auditIds: string[]): Map<string, WriteFlag> {
  const out = new Map<string, WriteFlag>();
  if (!auditIds.length) return out;
  const rows = db
    .prepare(`SELECT audit_id, kinds, count FROM audit_secret_flags WHERE audit_id IN (SELECT value FROM json_each(?))`)
    .all(JSON.stringify(auditIds)) as Array<{ audit_id: string; kinds: string; count: number }>;
  for (const r of rows) out.set(r.audit_id, { auditId: r.audit_id, kinds: JSON.parse(r.kinds) as PiiType[], count: r.count });
  return out;
}

export function flaggedWriteCount(db: DB): { writes: number; secrets: number } {
  const rows = db.prepare('SELECT kinds FROM audit_secret_flags').pluck().all() as string[];
  const secrets = rows.filter((k) => (JSON.parse(k) as PiiType[]).some(isSecretKind)).length;
  return { writes: rows.length, secrets };
}
