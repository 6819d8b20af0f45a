// Imports the memory-management plugin's fact store (facts, their provenance and lifecycle events),
// joins each fact to the plugin write that established it, and labels the file's re-render (the
// plugin rewrites the managed region right after a write, with no log line) as part of that write.
import fs from 'node:fs';
import path from 'node:path';
import { MEMORY_FILES } from '../../shared/domain';
import { writeTx, type DB } from '../db/connection';
import { parseRegion, storePath } from '../guardian/managed';
import {
  deleteExternalAudit,
  externalChangeBetween,
  findFirstExternalChangeAfter,
  findLatestPluginWriteOfFile,
  findTurnOfMessage,
  insertManagedFactEventIfNew,
  joinManagedFact,
  listPluginWritesOfFile,
  listPluginWritesWithoutChange,
  listUnexplainedManagedChanges,
  listUnjoinedManagedFacts,
  moveChangeOntoWrite,
  moveFileStateAudit,
  pluginWriteBetween,
  relabelAsManagedRender,
  upsertManagedFact,
} from '../db/repositories/managedFacts';

interface StoreFile {
  facts?: Array<{
    id: string;
    fileName: string;
    text: string;
    status: string;
    createdAt: string;
    updatedAt: string;
    provenance?: { sessionKey?: string; sourceMessageId?: string; decision?: string; reason?: string; recordedAt?: string };
  }>;
  factEvents?: Array<{
    id: string;
    factId: string;
    type: string;
    fileName?: string;
    text?: string;
    proposalId?: string;
    timestamp: string;
  }>;
}

export interface ManagedImport {
  facts: number;
  events: number;
  joined: number;
  rendersClaimed: number;
  problem?: string;
}

const ms = (iso: string | undefined) => {
  const t = iso ? Date.parse(iso) : NaN;
  return Number.isFinite(t) ? t : null;
};
const normalize = (t: string) => t.trim().replace(/^-\s*/, '');
// The plugin records a fact after write_guardian's write and the reaction: seconds at most.
const JOIN_WINDOW_MS = 60_000;
const RENDER_WINDOW_MS = 10_000;
// Live capture's audit match window: a write's own change comes at most this long before its line.
const OWN_CHANGE_WINDOW_MS = 5000;

/** Reads the store (when the workspace has one) into managed_facts and managed_fact_events. */
export function importManagedStore(db: DB, workspaceDir: string, now: number): ManagedImport {
  const result: ManagedImport = { facts: 0, events: 0, joined: 0, rendersClaimed: 0 };
  let store: StoreFile;
  try {
    store = JSON.parse(fs.readFileSync(storePath(workspaceDir), 'utf8')) as StoreFile;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT')
      result.problem = `${path.basename(storePath(workspaceDir))} could not be read: ${(e as Error).message}`;
    return result;
  }
  writeTx(db, () => {
    for (const f of store.facts ?? []) {
      if (!(MEMORY_FILES as readonly string[]).includes(f.fileName) || (f.status !== 'active' && f.status !== 'deleted')) continue;
      const p = f.provenance ?? {};
      result.facts += upsertManagedFact(db, {
        id: f.id,
        file: f.fileName,
        text: f.text,
        status: f.status,
        createdAt: ms(f.createdAt) ?? now,
        updatedAt: ms(f.updatedAt) ?? now,
        sessionKey: p.sessionKey ?? null,
        sourceMessageId: p.sourceMessageId ?? null,
        decision: p.decision ?? null,
        reason: p.reason ?? null,
        recordedAt: ms(p.recordedAt),
        now,
      });
    }
    for (const e of store.factEvents ?? []) {
      const event = {
        id: e.id,
        factId: e.factId,
        type: e.type,
        file: e.fileName ?? null,
        text: e.text ?? null,
        proposalId: e.proposalId ?? null,
        at: ms(e.timestamp) ?? now,
      };
      result.events += insertManagedFactEventIfNew(db, event);
    }
    result.rendersClaimed = joinManagedRenders(db);
    result.joined = joinFacts(db);
  });
  return result;
}

/** Each fact not joined yet gets the plugin write of the same fact, file and session just before it was recorded. */
function joinFacts(db: DB): number {
  const open = listUnjoinedManagedFacts(db);
  let joined = 0;
  for (const f of open) {
    const candidates = f.at === null ? [] : listPluginWritesOfFile(db, f.file, f.at - JOIN_WINDOW_MS, f.at + 1000);
    const audit = candidates.find(
      (a) => a.fact !== null && normalize(a.fact) === normalize(f.text) && (!f.sessionKey || !a.sessionId || a.sessionId === f.sessionKey),
    );
    const turn = audit?.turnId ?? (f.sessionKey && f.messageId ? findTurnOfMessage(db, f.sessionKey, f.messageId) : undefined);
    if (audit || turn) {
      joinManagedFact(db, f.id, audit?.id ?? null, turn ?? null);
      joined++;
    }
  }
  return joined;
}

/**
 * An external change that only rewrote the managed region, shortly after a plugin write of the same
 * file, is the plugin's re-render: it belongs to that write, not to someone outside.
 */
export function claimManagedRenders(db: DB): number {
  const rows = listUnexplainedManagedChanges(db);
  let claimed = 0;
  for (const r of rows) {
    const b = parseRegion(r.before);
    const a = parseRegion(r.after);
    const outside = (p: typeof a) => `${p.before.trimEnd()}\n${p.after}`;
    // Only the region changed (or was added after the free text).
    if (outside(b).trimEnd() !== outside(a).trimEnd()) continue;
    const writeId = findLatestPluginWriteOfFile(db, r.file, r.at - RENDER_WINDOW_MS, r.at + 1000);
    if (!writeId) continue;
    relabelAsManagedRender(db, r.id, writeId);
    claimed++;
  }
  return claimed;
}

/**
 * A plugin write whose own change was never seen alone: the plugin re-rendered the managed region
 * (with the new fact) right after writing, so the file settled with both, after the audit line. The
 * first change of that file within seconds after the write, whose region holds the write's fact,
 * is the write as the agent sees it: its content moves onto the plugin's audit.
 */
export function attachManagedWrites(db: DB): number {
  const open = listPluginWritesWithoutChange(db);
  let attached = 0;
  for (const w of open) {
    const c = findFirstExternalChangeAfter(db, w.file, w.at, w.at + RENDER_WINDOW_MS);
    // A change seen just before the audit line is the write itself: the regular attacher takes it.
    if (!c || pluginWriteBetween(db, w.file, w.at, c.at) || externalChangeBetween(db, w.file, w.at - OWN_CHANGE_WINDOW_MS, w.at)) continue;
    const region = parseRegion(c.after);
    if (!region.has || !region.body.split('\n').some((l) => normalize(l) === normalize(w.fact))) continue;
    if (moveChangeOntoWrite(db, { from: c.id, to: w.id, changedAt: c.at })) {
      moveFileStateAudit(db, c.id, w.id);
      deleteExternalAudit(db, c.id);
      attached++;
    }
  }
  return attached;
}

/** Both joins of the re-render: onto an unseen write, or as a region-only change after a seen one. */
export function joinManagedRenders(db: DB): number {
  return attachManagedWrites(db) + claimManagedRenders(db);
}
