// The memory-management plugin (openclaw-reflection 0.1.6, branch reflection-memory-management)
// keeps every fact it wrote in .openclaw-reflection/memory-management-store.json and re-renders a
// "<!-- reflection:managed:start -->" region of the memory file from the store's active facts. It
// refuses its own proposals when the region is not exactly "- <fact>" per active fact (drift). So a
// rollback or retry that touches only the free text leaves the fact in the region and active in the
// store: the agent does not forget. Here a rollback or retry changes both, in the plugin's own
// format, and the store and file change together (a marker file settles a crash between the two).
import fs from 'node:fs';
import path from 'node:path';
import lockfile from 'proper-lockfile';
import writeFileAtomic from 'write-file-atomic';
import { ulid } from 'ulid';
import type { MemoryFileName } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import { STATE_DIR } from '../db/connection';
import { sha256 } from '../text/diff';
import type { AuditDbRow } from './rows';

export const REGION_START = '<!-- reflection:managed:start -->';
export const REGION_END = '<!-- reflection:managed:end -->';
export const STORE_FILE = 'memory-management-store.json';
const MARKER_FILE = 'memory-management-store.workbench-pending.json';

export interface StoreFact {
  id: string;
  fileName: string;
  text: string;
  status: 'active' | 'deleted';
  createdAt: string;
  updatedAt: string;
  provenance: { sessionKey?: string; sourceMessageId?: string; decision: string; reason: string; recordedAt: string };
}
interface StoreState {
  facts: StoreFact[];
  factEvents: Array<Record<string, unknown>>;
  proposals: Array<{ id: string; status: string; factId: string; fileName: string; targetFileName?: string }>;
}

/** What a rollback or retry does to the plugin's store, planned with the file content. */
export interface ManagedPlan {
  factId: string;
  action: 'deleted' | 'established';
  text: string;
  /** The store as read and as it will be written. */
  storeBefore: string;
  storeAfter: string;
}

export const storePath = (workspaceDir: string) => path.join(workspaceDir, STATE_DIR, STORE_FILE);
const normalize = (text: string) => text.trim().replace(/^-\s*/, '');
const renderFacts = (facts: StoreFact[]) => facts.map((f) => `- ${normalize(f.text)}`).join('\n');
const withNewline = (s: string) => (s === '' || s.endsWith('\n') ? s : `${s}\n`);

export function parseRegion(content: string): { has: boolean; before: string; body: string; after: string } {
  const start = content.indexOf(REGION_START);
  const end = content.indexOf(REGION_END);
  if (start < 0 || end < 0 || end < start) return { has: false, before: content, body: '', after: '' };
  return {
    has: true,
    before: content.slice(0, start),
    body: content.slice(start + REGION_START.length, end).replace(/^\n/, ''),
    after: content.slice(end + REGION_END.length).replace(/^\n/, ''),
  };
}

/** The file with its region set to body, exactly as the plugin renders it. */
export function renderRegion(content: string, body: string): string {
  const p = parseRegion(content);
  const b = withNewline(body);
  if (!p.has) {
    const before = withNewline(content);
    const sep = before === '' || before.endsWith('\n\n') ? '' : '\n';
    return `${before}${sep}${REGION_START}\n${b}${REGION_END}\n`;
  }
  return `${p.before}${REGION_START}\n${b}${REGION_END}${p.after === '' ? '' : '\n'}${p.after}`;
}

function readStore(workspaceDir: string): { raw: string; state: StoreState } | null {
  let raw: string;
  try {
    raw = fs.readFileSync(storePath(workspaceDir), 'utf8');
  } catch {
    return null;
  }
  if (!raw.trim()) return null;
  try {
    const v = JSON.parse(raw) as Partial<StoreState>;
    return { raw, state: { facts: v.facts ?? [], factEvents: v.factEvents ?? [], proposals: v.proposals ?? [] } };
  } catch (e) {
    throw new AppError(
      'Conflict',
      `${STORE_FILE} could not be read (${(e as Error).message}); refusing to change the managed region without it`,
    );
  }
}

export interface ManagedTarget {
  file: MemoryFileName;
  /** The fact the write established (its candidate fact), or the corrected fact a retry adds. */
  fact: string | null;
  sessionKey: string | null;
  /** When the write was made, to choose among equal facts. */
  at: number;
  /** 'remove': undo the write; 'restore': re-apply it (undoing a rollback) or add it (retry). */
  direction: 'remove' | 'restore';
  reason?: string;
}

/**
 * Adjusts a planned file content so its managed region matches the store after the change, or
 * refuses with the reason when that cannot be done safely. Returns null when the workspace has no
 * store, or the write touched no managed fact (nothing to do).
 */
export function planManaged(
  workspaceDir: string,
  target: ManagedTarget,
  current: string | null,
  planned: string | null,
  now: number,
): { content: string | null; plan: ManagedPlan } | null {
  settleManagedStore(workspaceDir);
  const store = readStore(workspaceDir);
  if (!store) return null;
  const active = store.state.facts.filter((f) => f.fileName === target.file && f.status === 'active');
  const region = current === null ? null : parseRegion(current);
  if (!region?.has && !active.length && target.direction === 'remove') return null;
  if (region?.has && withNewline(region.body) !== withNewline(renderFacts(active))) {
    throw new AppError(
      'Conflict',
      `the managed region of ${target.file} differs from the plugin's fact store (drift; or the plugin is rendering it right now, then try again): reconcile it in the plugin (reflection reconcile) before rolling back or retrying, so neither overwrites the other`,
    );
  }
  if (!target.fact) {
    if (planned !== null && parseRegion(planned).body === region?.body) return null;
    throw new AppError(
      'Conflict',
      `this write has no candidate fact, so the managed fact it established in ${target.file} cannot be identified; refusing to leave the file and the plugin's store disagreeing`,
    );
  }
  const text = normalize(target.fact);
  const fact = pickFact(store.state.facts, target, text);
  const pending = fact && store.state.proposals.find((p) => p.status === 'pending' && p.factId === fact.id);
  if (pending)
    throw new AppError(
      'Conflict',
      `the plugin has a pending proposal (${pending.id}) on this fact; apply or discard it in the plugin first`,
    );
  if (target.direction === 'remove' && (!fact || fact.status !== 'active')) {
    // The plugin never established it (refused write, or a store made later): only the free text changes.
    return planned === null || !parseRegion(planned).has
      ? null
      : { content: renderRegion(planned, renderFacts(active)), plan: noStoreChange(store.raw, text) };
  }
  const state = structuredClone(store.state);
  const stamp = new Date(now).toISOString();
  let factId: string;
  if (target.direction === 'remove') {
    factId = deleteFact(state, fact!.id, target.file, stamp, now);
  } else if (fact && fact.status === 'active') {
    return planned === null ? null : { content: renderRegion(planned, renderFacts(active)), plan: noStoreChange(store.raw, text) };
  } else {
    factId = establishFact(state, fact, target, text, stamp, now);
  }
  const nextActive = state.facts
    .filter((f) => f.fileName === target.file && f.status === 'active')
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  if (planned === null && nextActive.length) {
    throw new AppError(
      'Conflict',
      `undoing this write would delete ${target.file}, but its managed region still holds ${nextActive.length} other fact(s) of the plugin`,
    );
  }
  const content = planned === null ? null : renderRegion(planned, renderFacts(nextActive));
  return {
    content,
    plan: {
      factId,
      action: target.direction === 'remove' ? 'deleted' : 'established',
      text,
      storeBefore: store.raw,
      storeAfter: `${JSON.stringify(state, null, 2)}\n`,
    },
  };
}

/** Marks an active fact deleted in the (cloned) store state, with its event. Returns its id. */
function deleteFact(state: StoreState, factId: string, file: ManagedTarget['file'], stamp: string, now: number): string {
  const f = state.facts.find((x) => x.id === factId)!;
  f.status = 'deleted';
  f.updatedAt = stamp;
  state.factEvents.push({ id: `factevt_${ulid(now)}`, factId, type: 'deleted', fileName: file, timestamp: stamp });
  return factId;
}

/** Establishes the fact (again, keeping its provenance when it existed) in the (cloned) store state. Returns its id. */
function establishFact(
  state: StoreState,
  fact: StoreFact | undefined,
  target: ManagedTarget,
  text: string,
  stamp: string,
  now: number,
): string {
  const factId = fact?.id ?? `fact_${ulid(now)}`;
  const provenance = fact?.provenance ?? {
    sessionKey: target.sessionKey ?? undefined,
    decision: decisionFor(target.file),
    reason: target.reason ?? 'added by the curator in Reflection Workbench',
    recordedAt: stamp,
  };
  state.facts = state.facts.filter((x) => x.id !== factId);
  state.facts.push({
    id: factId,
    fileName: target.file,
    text,
    status: 'active',
    createdAt: fact?.createdAt ?? stamp,
    updatedAt: stamp,
    provenance,
  });
  state.factEvents.push({ id: `factevt_${ulid(now)}`, factId, type: 'established', fileName: target.file, text, timestamp: stamp });
  return factId;
}

const noStoreChange = (raw: string, text: string): ManagedPlan => ({
  factId: '',
  action: 'deleted',
  text,
  storeBefore: raw,
  storeAfter: raw,
});

function pickFact(facts: StoreFact[], target: ManagedTarget, text: string): StoreFact | undefined {
  const same = facts.filter((f) => f.fileName === target.file && normalize(f.text) === text);
  const score = (f: StoreFact) =>
    (f.provenance?.sessionKey && f.provenance.sessionKey === target.sessionKey ? 0 : 1) * 1e15 +
    Math.abs(Date.parse(f.provenance?.recordedAt ?? f.createdAt) - target.at);
  return same.sort((a, b) => (a.status === b.status ? score(a) - score(b) : a.status === 'active' ? -1 : 1))[0];
}

function decisionFor(file: MemoryFileName): string {
  return `UPDATE_${file.replace(/\.md$/, '')}`;
}

/**
 * Writes the store and runs the file write, so both change or neither: a marker holding both store
 * versions and the planned file hash is written first; a failure restores the store; a crash is
 * settled by settleManagedStore (the file decides which store version stands).
 */
export async function withManagedStore<T>(
  workspaceDir: string,
  memoryFile: MemoryFileName,
  plan: ManagedPlan | null | undefined,
  plannedContent: string | null,
  writeFile: () => Promise<T>,
): Promise<T> {
  if (!plan || plan.storeAfter === plan.storeBefore) return writeFile();
  const file = storePath(workspaceDir);
  const marker = path.join(workspaceDir, STATE_DIR, MARKER_FILE);
  const release = await lockfile.lock(file, { realpath: false, stale: 5000, retries: { retries: 5, minTimeout: 200, maxTimeout: 1000 } });
  try {
    if (fs.readFileSync(file, 'utf8') !== plan.storeBefore) {
      throw new AppError('Conflict', `${STORE_FILE} changed while the rollback was planned (the plugin recorded a fact); try again`);
    }
    writeFileAtomic.sync(
      marker,
      JSON.stringify({
        file: memoryFile,
        storeBefore: plan.storeBefore,
        storeAfter: plan.storeAfter,
        fileHash: plannedContent === null ? null : sha256(plannedContent),
      }),
    );
    writeFileAtomic.sync(file, plan.storeAfter);
    try {
      const result = await writeFile();
      fs.rmSync(marker, { force: true });
      return result;
    } catch (e) {
      writeFileAtomic.sync(file, plan.storeBefore);
      fs.rmSync(marker, { force: true });
      throw e;
    }
  } finally {
    await release();
  }
}

/** After a crash between the store and the file write: the file as it is decides the store. */
export function settleManagedStore(workspaceDir: string): void {
  const marker = path.join(workspaceDir, STATE_DIR, MARKER_FILE);
  let m: { file: string; storeBefore: string; storeAfter: string; fileHash: string | null };
  try {
    m = JSON.parse(fs.readFileSync(marker, 'utf8'));
  } catch {
    return;
  }
  let content: string | null = null;
  try {
    content = fs.readFileSync(path.join(workspaceDir, path.basename(m.file)), 'utf8');
  } catch {
    content = null;
  }
  const written = (content === null ? null : sha256(content)) === m.fileHash;
  writeFileAtomic.sync(storePath(workspaceDir), written ? m.storeAfter : m.storeBefore);
  fs.rmSync(marker, { force: true });
}

/**
 * The managed-region side of rolling back an audit: undoing a write removes the fact it
 * established; undoing a rollback (source 'rollback') brings the original's fact back.
 */
export function planManagedRollback(
  workspaceDir: string,
  audit: AuditDbRow,
  original: AuditDbRow | null,
  current: string | null,
  planned: string | null,
  now: number,
): { content: string | null; plan: ManagedPlan } | null {
  const reapply = audit.source === 'rollback' && original !== null;
  const source = reapply ? original : audit;
  return planManaged(
    workspaceDir,
    {
      file: audit.target_file,
      fact: source.candidate_fact,
      sessionKey: source.session_id,
      at: source.created_at,
      direction: reapply ? 'restore' : 'remove',
    },
    current,
    planned,
    now,
  );
}

/** A file without its managed region (the separator the plugin adds before it goes too). */
export function stripRegion(content: string | null): string | null {
  if (content === null) return null;
  const p = parseRegion(content);
  if (!p.has) return content;
  const before = p.before.endsWith('\n\n') ? p.before.slice(0, -1) : p.before;
  return before + p.after;
}

/**
 * The texts a rollback compares: without the managed region when the workspace has the plugin's
 * store (the region follows the store, not the write). Refuses at once when the region drifted.
 */
export function freeTextView(
  workspaceDir: string,
  file: MemoryFileName,
  before: string | null,
  after: string | null,
  current: string | null,
): { before: string | null; after: string | null; current: string | null; managed: boolean } {
  settleManagedStore(workspaceDir);
  const store = readStore(workspaceDir);
  const hasRegion = [before, after, current].some((c) => c !== null && parseRegion(c).has);
  if (!store || !hasRegion) return { before, after, current, managed: Boolean(store) };
  const region = current === null ? null : parseRegion(current);
  const active = store.state.facts
    .filter((f) => f.fileName === file && f.status === 'active')
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  if (region?.has && withNewline(region.body) !== withNewline(renderFacts(active))) {
    throw new AppError(
      'Conflict',
      `the managed region of ${file} differs from the plugin's fact store (drift; or the plugin is rendering it right now, then try again): reconcile it in the plugin (reflection reconcile) before rolling back or retrying, so neither overwrites the other`,
    );
  }
  return { before: stripRegion(before), after: stripRegion(after), current: stripRegion(current), managed: true };
}
