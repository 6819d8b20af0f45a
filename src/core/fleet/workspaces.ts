// Finding and opening many workspaces at once. One broken workspace (corrupt, locked, made by a newer
// version) is reported and skipped so the rest of a fleet still exports.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { AppError } from '../../shared/errors';
import { dbPathFor, openWorkspaceDatabase, STATE_DIR, type OpenedDatabase } from '../db/connection';
import { quickCheck } from '../db/maintenance';
import { loadSettings } from '../lifecycle/settings';

export type SkipKind = 'corrupt' | 'newer' | 'locked' | 'missing';

export interface SkippedWorkspace {
  dir: string;
  kind: SkipKind;
  reason: string;
}

export interface FleetMember {
  dir: string;
  /** Stable, path-safe name of the agent; the hive partition value `agent=<id>`. */
  agent: string;
}

const SKIP_DIRS = new Set(['node_modules', '.git']);
const MAX_DEPTH = 6;

/** Every folder below root (root included) that holds a workspace database, sorted for a stable order. */
export function discoverWorkspaces(root: string): string[] {
  const top = path.resolve(root);
  if (!fs.existsSync(top) || !fs.statSync(top).isDirectory()) throw new AppError('NotFound', `fleet root ${root} is not a folder`);
  const found: string[] = [];
  const walk = (dir: string, depth: number): void => {
    if (fs.existsSync(dbPathFor(dir))) found.push(dir);
    if (depth >= MAX_DEPTH) return;
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      // Symlinks are not followed: a link loop or a link out of the root must not widen the export.
      if (!entry.isDirectory() || SKIP_DIRS.has(entry.name) || entry.name === STATE_DIR) continue;
      walk(path.join(dir, entry.name), depth + 1);
    }
  };
  walk(top, 0);
  return found.sort();
}

function slug(s: string): string {
  return (
    s
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/^[-.]+|[-.]+$/g, '')
      .slice(0, 64) || 'agent'
  );
}

/**
 * Agent ids: the workspace folder's name, made path-safe. Two workspaces with the same folder name
 * get a short hash of their full path appended, so ids stay stable when more agents join.
 */
export function assignAgentIds(dirs: readonly string[]): FleetMember[] {
  const counts = new Map<string, number>();
  for (const d of dirs) counts.set(slug(path.basename(d)), (counts.get(slug(path.basename(d))) ?? 0) + 1);
  return dirs.map((dir) => {
    const base = slug(path.basename(dir));
    const unique = counts.get(base) === 1;
    const agent = unique ? base : `${base}-${crypto.createHash('sha256').update(path.resolve(dir)).digest('hex').slice(0, 8)}`;
    return { dir: path.resolve(dir), agent };
  });
}

function classify(e: unknown): { kind: SkipKind; reason: string } {
  const message = (e as Error)?.message ?? String(e);
  const code = (e as { code?: string })?.code ?? '';
  if (/newer version/.test(message)) return { kind: 'newer', reason: message };
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED') || /database is locked/.test(message)) {
    return { kind: 'locked', reason: `the database is locked by another process (${message})` };
  }
  if ((e as AppError)?.kind === 'NotFound') return { kind: 'missing', reason: message };
  return { kind: 'corrupt', reason: message };
}

/**
 * Opens one member for reading. Anything wrong is returned as a skip, never thrown: a short busy
 * timeout keeps a workspace held by another writer from stalling the whole fleet.
 */
export function openMember(dir: string, busyTimeoutMs = 1000): OpenedDatabase | SkippedWorkspace {
  let opened: OpenedDatabase | undefined;
  try {
    const storage = { ...loadSettings(dir).settings.storage, busyTimeoutMs };
    opened = openWorkspaceDatabase(dir, { config: storage });
    const check = quickCheck(opened.db);
    if (check !== 'ok') throw new AppError('Invalid', `integrity check failed: ${String(check)}`);
    return opened;
  } catch (e) {
    opened?.db.close();
    return { dir, ...classify(e) };
  }
}

export function isSkipped(x: OpenedDatabase | SkippedWorkspace): x is SkippedWorkspace {
  return 'kind' in x;
}
