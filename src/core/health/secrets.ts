// Secrets and personal data in memory: every write is scanned as it is recorded (the lines it
// added), and the current files can be scanned on demand. Only detector kinds and positions are
// stored, never the values. Removing a value is a curator write plus a correction of the write
// that introduced it, so the gate learns not to store such values.
import type { MemoryFileName } from '../../shared/domain';
import { MEMORY_FILES } from '../../shared/domain';
import type { DB } from '../db/connection';
import {
  deleteScanPosition,
  findLastAuditRowid,
  findScanPosition,
  listSecretFlagKinds,
  listSecretFlagsFor,
  listWritesToScan,
  saveScanPosition,
  upsertSecretFlag,
} from '../db/repositories/secretFlags';
import { detectPii, type PiiSpan, type PiiType } from '../pii';

/** Kinds that never belong in memory files. Person names are too uncertain to flag. */
export const FLAGGED_KINDS: readonly PiiType[] = [
  'EMAIL',
  'PHONE',
  'CREDIT_CARD',
  'BANK_CARD',
  'CN_ID',
  'IP_ADDRESS',
  'URL_CREDENTIALS',
  'API_KEY',
  'PRIVATE_KEY',
  'PASSWORD',
  'IBAN',
];
const SECRET_KINDS = new Set<PiiType>(['API_KEY', 'PRIVATE_KEY', 'PASSWORD', 'URL_CREDENTIALS']);

export const isSecretKind = (t: PiiType): boolean => SECRET_KINDS.has(t);

export function sensitiveSpans(text: string): PiiSpan[] {
  return detectPii(text, { minConfidence: 0.5 }).filter((s) => FLAGGED_KINDS.includes(s.type));
}

/** The lines a unified diff added (without the leading '+'). */
export function addedLines(diff: string | null): string[] {
  if (!diff) return [];
  return diff
    .split('\n')
    .filter((l) => l.startsWith('+') && !l.startsWith('+++'))
    .map((l) => l.slice(1));
}

/** Flags one write whose added lines carry a secret or personal data. */
export function flagWriteIfSensitive(db: DB, auditId: string, diff: string | null, at: number): void {
  const added = addedLines(diff);
  if (!added.length) return;
  const spans = sensitiveSpans(added.join('\n'));
  if (!spans.length) return;
  upsertSecretFlag(db, auditId, JSON.stringify([...new Set(spans.map((s) => s.type))].sort()), spans.length, at);
}

/**
 * Scans the writes recorded since the last scan (all of them the first time) and flags those whose
 * added lines hold a secret or personal data. Every list and count of flags calls it first, so a
 * write is flagged before anything shows it. Returns how many writes were scanned.
 */
export function flagNewWrites(db: DB): number {
  let from = findScanPosition(db, SCAN_NAME);
  const last = findLastAuditRowid(db);
  let scanned = 0;
  while (from < last) {
    const rows = listWritesToScan(db, from, SCAN_CHUNK);
    const upTo = rows.length === SCAN_CHUNK ? rows[rows.length - 1]!.rowid : last;
    const run = () => {
      rows.forEach((r) => flagWriteIfSensitive(db, r.id, r.diff, r.created_at));
      saveScanPosition(db, SCAN_NAME, upTo);
    };
    if (db.inTransaction) run();
    else db.transaction(run).immediate();
    scanned += rows.length;
    from = upTo;
  }
  return scanned;
}

const SCAN_CHUNK = 2000;
const SCAN_NAME = 'secrets';

/** Scans every write again from the start (after the detector improved). */
export function rescanAllWrites(db: DB): number {
  deleteScanPosition(db, SCAN_NAME);
  return flagNewWrites(db);
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
        out.push({
          fileName: file,
          line: i + 1,
          text,
          kind: s.type,
          secret: isSecretKind(s.type),
          start: s.start,
          end: s.end,
          value: s.value,
        });
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
  flagNewWrites(db);
  const out = new Map<string, WriteFlag>();
  if (!auditIds.length) return out;
  for (const r of listSecretFlagsFor(db, auditIds))
    out.set(r.audit_id, { auditId: r.audit_id, kinds: JSON.parse(r.kinds) as PiiType[], count: r.count });
  return out;
}

export function flaggedWriteCount(db: DB): { writes: number; secrets: number } {
  flagNewWrites(db);
  const rows = listSecretFlagKinds(db);
  const secrets = rows.filter((k) => (JSON.parse(k) as PiiType[]).some(isSecretKind)).length;
  return { writes: rows.length, secrets };
}
