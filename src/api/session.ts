// The open workspace of this app run: one database connection, the recent list, and the push events
// (data_version changes, workspace switches) that both transports forward to the renderer.
import fs from 'node:fs';
import path from 'node:path';
import type { ChangeEvent, DataArea, DataChange, DataChangeSource, RecentWorkspace, WorkspaceInfo } from '../shared/contract';
import { AppError } from '../shared/errors';
import { openWorkspaceDatabase, type DB, type OpenedDatabase } from '../core/db/connection';
import { dataVersion } from '../core/db/maintenance';
import { countTableRows } from '../core/db/repositories/schema';
import type { ServiceContext } from '../core/context';
import { loadSettings } from '../core/lifecycle/settings';
import { resolveActor } from '../core/curation/actor';
import { checkChangeEvent } from './contractChecks';

const RECENT_FILE = 'recent-workspaces.json';
const MAX_RECENT = 10;

export interface WorkspaceSessionOptions {
  /** Folder for app-level state (Electron: userData). */
  stateDir: string;
  /** better-sqlite3 addon for this runtime (Electron passes its own ABI copy). */
  nativeBinding?: string;
  now?: () => number;
  actor?: string;
}

type ChangeListener = (event: ChangeEvent) => void;

interface RecentEntry {
  dir: string;
  lastOpenedAt: number;
  isDemo?: boolean;
}

export class WorkspaceSession {
  private opened: (OpenedDatabase & { dir: string; openedAt: number; isDemo: boolean }) | null = null;
  private readonly listeners = new Set<ChangeListener>();
  private poll: ReturnType<typeof setInterval> | null = null;
  private lastDataVersion = -1;
  /** Our own connection's commits do not change data_version; count them so a push still happens. */
  private localWrites = 0;
  private cachedCounts: { version: number; counts: WorkspaceInfo['counts'] } | null = null;
  /** Areas our own background writers (jobs on their own connection) are changing right now, if any. */
  private backgroundWriters: () => DataArea[] | null = () => null;

  constructor(private readonly opts: WorkspaceSessionOptions) {
    fs.mkdirSync(opts.stateDir, { recursive: true });
  }

  get now(): number {
    return this.opts.now ? this.opts.now() : Date.now();
  }

  open(dir: string, options: { isDemo?: boolean } = {}): WorkspaceInfo {
    const abs = path.resolve(dir);
    if (!fs.existsSync(abs) || !fs.statSync(abs).isDirectory()) throw new AppError('NotFound', `workspace folder ${abs} does not exist`);
    const isDemo = options.isDemo ?? this.recentEntries().find((r) => r.dir === abs)?.isDemo ?? false;
    // The workspace's storage settings (dbPath, pragmas) apply here exactly as in the CLI.
    const db = openWorkspaceDatabase(abs, { nativeBinding: this.opts.nativeBinding, config: loadSettings(abs).settings.storage });
    this.closeDatabase();
    this.cachedCounts = null;
    this.opened = { ...db, dir: abs, openedAt: this.now, isDemo };
    this.lastDataVersion = this.readDataVersion();
    this.remember(abs, isDemo);
    const info = this.current();
    this.emit({ type: 'workspace', workspace: info });
    return info;
  }

  isOpen(): boolean {
    return this.opened !== null;
  }

  get db(): DB {
    if (!this.opened) throw new AppError('NotFound', 'no workspace is open: open a workspace folder first');
    return this.opened.db;
  }

  get dir(): string {
    if (!this.opened) throw new AppError('NotFound', 'no workspace is open: open a workspace folder first');
    return this.opened.dir;
  }

  serviceContext(extra: Partial<ServiceContext> = {}): ServiceContext {
    // Browser mode serves several curators: the request's curator (set by the web server) is the actor.
    return { db: this.db, workspaceDir: this.dir, now: this.opts.now, actor: resolveActor(this.db, this.opts.actor), ...extra };
  }

  current(): WorkspaceInfo {
    if (!this.opened) throw new AppError('NotFound', 'no workspace is open: open a workspace folder first');
    return {
      dir: this.opened.dir,
      name: path.basename(this.opened.dir),
      dbFile: this.opened.file,
      isDemo: this.opened.isDemo,
      openedAt: this.opened.openedAt,
      counts: this.counts(),
    };
  }

  /** Row counts for the status bar; a million-row count(*) is not free, so they are kept until the data changes. */
  private counts(): WorkspaceInfo['counts'] {
    const version = this.readDataVersion();
    if (this.cachedCounts && this.cachedCounts.version === version) return this.cachedCounts.counts;
    const db = this.db;
    const count = (table: string) => countTableRows(db, table);
    const counts = {
      sessions: count('sessions'),
      turns: count('conversation_turns'),
      decisions: count('memory_gate_decisions'),
      writes: count('write_guardian_audit'),
      samples: count('dataset_samples'),
    };
    this.cachedCounts = { version, counts };
    return counts;
  }

  recent(): RecentWorkspace[] {
    return this.recentEntries().map((r) => ({
      dir: r.dir,
      name: path.basename(r.dir),
      lastOpenedAt: r.lastOpenedAt,
      exists: fs.existsSync(r.dir),
    }));
  }

  /** The workspace to reopen on start: the most recent one that still exists. */
  lastWorkspace(): string | null {
    return this.recentEntries().find((r) => fs.existsSync(r.dir))?.dir ?? null;
  }

  onChange(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(event: ChangeEvent): void {
    checkChangeEvent(event);
    for (const l of [...this.listeners]) {
      try {
        l(event);
      } catch {
        // one broken listener must not stop the others
      }
    }
  }

  /**
   * Call after something wrote on our own connection (a mutating call, a job, live capture, the
   * schedules): data_version does not see those commits, so this pushes the 'data' event itself.
   * `change` names the areas and ids that changed, so views reload only what shows them.
   */
  noteLocalWrite(source?: DataChangeSource, change?: DataChange): void {
    this.localWrites++;
    this.checkDataVersion(source, change);
  }

  /**
   * Jobs run in worker threads on their own connections, so their commits look like another process's.
   * While they run, such commits are announced with the areas they change instead of "anything".
   */
  setBackgroundWriters(areas: () => DataArea[] | null): void {
    this.backgroundWriters = areas;
  }

  /** Polls PRAGMA data_version (cheap: no disk read) and pushes a 'data' event when another connection committed. */
  startPolling(intervalMs = 500): void {
    this.stopPolling();
    this.poll = setInterval(() => this.checkDataVersion(), intervalMs);
    this.poll.unref?.();
  }

  stopPolling(): void {
    if (this.poll) clearInterval(this.poll);
    this.poll = null;
  }

  checkDataVersion(source?: DataChangeSource, change?: DataChange): void {
    if (!this.opened) return;
    const version = this.readDataVersion();
    if (version !== this.lastDataVersion) {
      // Another connection committed too: unless it is one of our running jobs, what it changed is
      // unknown, so the event names no areas.
      const external = Math.floor(version / 1_000_000) !== Math.floor(this.lastDataVersion / 1_000_000);
      this.lastDataVersion = version;
      const background = external ? this.backgroundWriters() : null;
      const known = !external
        ? change
          ? { areas: change.areas, ids: change.ids }
          : {}
        : background
          ? { areas: [...new Set([...background, ...(change?.areas ?? [])])] }
          : {};
      this.emit({ type: 'data', version, at: this.now, ...(source ? { source } : {}), ...known });
    }
  }

  close(): void {
    this.stopPolling();
    this.closeDatabase();
  }

  private readDataVersion(): number {
    if (!this.opened) return -1;
    return dataVersion(this.opened.db) * 1_000_000 + this.localWrites;
  }

  private closeDatabase(): void {
    if (this.opened) {
      try {
        this.opened.db.close();
      } catch {
        // already closed
      }
      this.opened = null;
    }
  }

  private recentFile(): string {
    return path.join(this.opts.stateDir, RECENT_FILE);
  }

  private recentEntries(): RecentEntry[] {
    try {
      const raw = JSON.parse(fs.readFileSync(this.recentFile(), 'utf8')) as unknown;
      if (!Array.isArray(raw)) return [];
      return raw.filter((r): r is RecentEntry => typeof r?.dir === 'string' && typeof r?.lastOpenedAt === 'number');
    } catch {
      return [];
    }
  }

  private remember(dir: string, isDemo: boolean): void {
    const list = [{ dir, lastOpenedAt: this.now, isDemo }, ...this.recentEntries().filter((r) => r.dir !== dir)].slice(0, MAX_RECENT);
    const tmp = `${this.recentFile()}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(list, null, 2));
    fs.renameSync(tmp, this.recentFile());
  }
}
