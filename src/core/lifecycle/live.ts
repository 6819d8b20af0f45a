import fs from 'node:fs';
import path from 'node:path';
import { MEMORY_FILES, type MemoryFileName } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import { STATE_DIR, writeTx, type DB } from '../db/connection';
import { LOCK_STALE_MS, memoryFilePath } from '../files/memoryFiles';
import { nowOf, type ServiceContext } from '../context';
import { getFileState, setFileState } from '../guardian/external';
import { RecorderCore } from '../recorder/recorder';
import { writeInput } from '../recorder/schemas';
import { sha256 } from '../text/diff';
import { importReflectionLogs, type ImportReport } from '../importers';
import { claimConsolidationWrites } from '../importers/pluginLogStore';
import { importManagedStore, joinManagedRenders } from '../importers/managedStore';
import { storePath } from '../guardian/managed';
import { AuditAttacher, type OpenAudit } from './attach';
import { getState, setState } from './state';

export const GUARDIAN_LOG = 'write-guardian.log.jsonl';

export interface LiveCaptureOptions {
  /** The plugin's root folder (logs/reflection-YYYY-MM-DD.log). */
  pluginRoot: string;
  /** How far apart a file change and its audit line may be (default 5000 ms). */
  auditMatchWindowMs?: number;
  /** Fallback poll, for file systems whose change events are unreliable (default 500 ms). */
  pollIntervalMs?: number;
  onEvent?: (event: LiveCaptureEvent) => void;
}

export type LiveCaptureEvent =
  | { type: 'imported'; report: ImportReport }
  | { type: 'changed'; file: MemoryFileName; auditId: string }
  | { type: 'attached'; auditId: string; file: string; fromAuditId: string }
  | { type: 'error'; error: unknown };

export interface LiveCapture {
  /** Stops watching; resolves once the pass in progress has finished. */
  stop(): Promise<void>;
  /** Runs a pass now (and waits for it): read new log lines, look at the memory files, join them. */
  sync(): Promise<void>;
  readonly stats: { passes: number; imports: number; changes: number; attached: number; errors: number };
}

const WATERMARK_KEY = 'live.auditRowid';
// Events coalesce into at most one pass per 20 ms: lines arrive in bursts, and each pass records an import run.
const DEBOUNCE_MS = 20;

interface FileSig {
  sig: string;
}

function statOf(file: string): { sig: string; mtime?: number } {
  try {
    const st = fs.statSync(file);
    return { sig: `${st.ino}:${st.size}:${st.mtimeMs}`, mtime: Math.round(st.mtimeMs) };
  } catch {
    return { sig: 'absent' };
  }
}
const statSig = (file: string) => statOf(file).sig;

/**
 * Records a memory file's content as seen on disk, the way recordExternalChanges does (a first look
 * is a baseline; a difference is a source='external' write with snapshots and diff), but with the
 * content this pass read between two identical stats and timed by the file's modification time.
 * Returns the audit id of the change, if any.
 */
export function recordObservedChange(db: DB, name: MemoryFileName, content: string | null, at: number): string | null {
  return writeTx(db, () => {
    const state = getFileState(db, name);
    if (!state) {
      setFileState(db, name, content, at);
      return null;
    }
    if ((content === null ? null : sha256(content)) === state.contentHash) return null;
    const before = state.snapshotId ? (db.prepare('SELECT content FROM file_snapshots WHERE id = ?').pluck().get(state.snapshotId) as string) : null;
    const recorded = new RecorderCore(db).recordWriteInTx(
      writeInput.parse({
        targetFile: name,
        before,
        after: content,
        status: 'written',
        source: 'external',
        reason: 'changed outside the workbench and the plugin recorder',
        createdAt: Math.max(at, state.observedAt),
      }),
    );
    return recorded.auditId;
  });
}

/** A proper-lockfile lock (a "<file>.lock" folder) that is fresh means the plugin is mid-write. */
function lockedNow(file: string, now: number): boolean {
  try {
    const st = fs.statSync(`${file}.lock`);
    return now - st.mtimeMs < LOCK_STALE_MS;
  } catch {
    return false;
  }
}

/**
 * Follows a running plugin: its log files (through the idempotent, cursor-per-file importer)
 * and the five memory files (each change recorded at once with its snapshots and diff, then
 * joined to the plugin's audit of it; see attach.ts). File-system events trigger a pass within
 * milliseconds; a slow poll catches what events miss. Passes never overlap. Everything it needs
 * to resume is in the database (import cursors, file_state, the audit watermark), so a restart
 * catches up with what happened while it was stopped.
 */
export function startLiveCapture(ctx: ServiceContext, options: LiveCaptureOptions): LiveCapture {
  const pluginRoot = path.resolve(options.pluginRoot);
  if (!fs.existsSync(pluginRoot) || !fs.statSync(pluginRoot).isDirectory()) {
    throw new AppError('NotFound', `pluginRoot: ${pluginRoot} is not a folder`);
  }
  const workspace = path.resolve(ctx.workspaceDir);
  // The logs folder may appear after capture starts (a plugin installed but not run yet).
  const logsDir = () => (fs.existsSync(path.join(pluginRoot, 'logs')) ? path.join(pluginRoot, 'logs') : pluginRoot);
  const stateDir = path.join(workspace, STATE_DIR);
  const guardianLog = path.join(stateDir, GUARDIAN_LOG);
  const windowMs = options.auditMatchWindowMs ?? 5000;
  const pollMs = options.pollIntervalMs ?? 500;
  const attacher = new AuditAttacher(ctx.db, windowMs);
  const stats = { passes: 0, imports: 0, changes: 0, attached: 0, errors: 0 };
  const emit = (e: LiveCaptureEvent) => {
    try {
      options.onEvent?.(e);
    } catch {
      /* a listener's failure must not stop capture */
    }
  };

  const memorySigs = new Map<MemoryFileName, FileSig>();
  // When each file was last seen settled. An audit logged after that may have a change not seen yet.
  const scannedAt = new Map<string, number>();
  let logsSig = '';
  let managedSig = '';
  let watermark = getState<number>(ctx.db, WATERMARK_KEY) ?? attacher.maxRowid();
  let persistedWatermark: number | undefined;
  // Plugin audits still waiting for their change or fact, with when they were first seen.
  const open = new Map<string, { audit: OpenAudit; since: number }>();
  let stopped = false;
  let running: Promise<void> | null = null;
  let again = false;
  let debounce: NodeJS.Timeout | undefined;
  let debounceAt = Infinity;

  const logsSignature = (): string => {
    let names: string[] = [];
    try {
      names = fs.readdirSync(logsDir()).filter((f) => /^reflection-.*\.log$/.test(f)).sort();
    } catch {
      /* the folder may appear later */
    }
    return [...names.map((n) => `${n}=${statSig(path.join(logsDir(), n))}`), `guardian=${statSig(guardianLog)}`].join('|');
  };

  const scanMemoryFiles = (): boolean => {
    let busy = false;
    for (const name of MEMORY_FILES) {
      let file: string;
      try {
        file = memoryFilePath(workspace, name);
      } catch {
        continue; // a symlink leaving the workspace, or not a regular file: never read it
      }
      const lookedAt = Date.now();
      const first = statOf(file);
      if (memorySigs.get(name)?.sig === first.sig) {
        scannedAt.set(name, lookedAt);
        continue;
      }
      // Read only a settled file: no fresh lock, and the same size and time before and after the
      // read. Otherwise the plugin is mid-write (a truncated or half-written file); look again soon.
      if (lockedNow(file, Date.now())) {
        busy = true;
        continue;
      }
      let content: string | null;
      try {
        content = fs.readFileSync(file, 'utf8');
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
        content = null;
      }
      if (statOf(file).sig !== first.sig || lockedNow(file, Date.now())) {
        busy = true;
        continue;
      }
      const change = recordObservedChange(ctx.db, name, content, first.mtime ?? Date.now());
      memorySigs.set(name, { sig: first.sig });
      scannedAt.set(name, lookedAt);
      if (change) {
        stats.changes++;
        emit({ type: 'changed', file: name, auditId: change });
      }
    }
    return busy;
  };

  const importLogs = async (): Promise<boolean> => {
    const sig = logsSignature();
    if (sig === logsSig) return false;
    if (!sig.includes('.log=') && !fs.existsSync(guardianLog)) {
      logsSig = sig;
      return false;
    }
    const report = await importReflectionLogs(ctx, { source: pluginRoot, workspace, recordExternalChanges: false });
    // The signature from before the import: anything appended during it triggers another pass.
    logsSig = sig;
    stats.imports++;
    emit({ type: 'imported', report });
    return true;
  };

  const joinAudits = (): void => {
    for (const a of attacher.auditsAfter(watermark)) {
      watermark = Math.max(watermark, a.rowid);
      if (!AuditAttacher.wants(a)) continue;
      // History read during a catch-up gets one try; only recent audits wait for a late change or line.
      if (a.createdAt >= Date.now() - windowMs - 60_000) open.set(a.id, { audit: a, since: Date.now() });
      else if (attacher.complete(a, scannedAt.get(a.targetFile) ?? 0).attached) stats.attached++;
    }
    const expiry = Date.now() - windowMs - 1000;
    for (const [id, entry] of open) {
      const r = attacher.complete(entry.audit, scannedAt.get(entry.audit.targetFile) ?? 0);
      if (r.attached) {
        stats.attached++;
        emit({ type: 'attached', auditId: id, file: entry.audit.targetFile, fromAuditId: r.fromAuditId! });
      }
      if (!AuditAttacher.wants(entry.audit) || entry.since < expiry) open.delete(id);
    }
    // Persist a watermark below every audit still open, so a restart looks at them again.
    const lowestOpen = Math.min(...[...open.values()].map((e) => e.audit.rowid));
    const persist = Number.isFinite(lowestOpen) ? lowestOpen - 1 : watermark;
    // Through writeTx, so a job in a worker steps aside for it (writeGate), and only when it moved:
    // a busy pass runs every 25 ms and must not write the same row each time.
    if (persist !== persistedWatermark) {
      writeTx(ctx.db, () => setState(ctx.db, WATERMARK_KEY, persist, nowOf(ctx)));
      persistedWatermark = persist;
    }
  };

  const pass = async (): Promise<void> => {
    stats.passes++;
    // Files first: the plugin writes a memory file before its audit line, so a change is on
    // record by the time the line that claims it is imported.
    let busy = scanMemoryFiles();
    const imported = await importLogs();
    if (imported) busy = scanMemoryFiles() || busy; // so every imported write's change is on record
    // A consolidation line comes just before the files change: claim the change, whichever came first.
    writeTx(ctx.db, () => claimConsolidationWrites(ctx.db));
    // The memory-management plugin's fact store: its facts, and its re-renders of the managed region.
    const storeSig = statSig(storePath(workspace));
    if (storeSig !== managedSig || imported) {
      importManagedStore(ctx.db, workspace, nowOf(ctx));
      managedSig = storeSig;
    } else if (storeSig !== 'absent') writeTx(ctx.db, () => joinManagedRenders(ctx.db));
    joinAudits();
    if (busy || open.size) trigger(busy ? 25 : 100);
  };

  const run = (): Promise<void> => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        try {
          await pass();
        } catch (e) {
          stats.errors++;
          emit({ type: 'error', error: e });
        }
      } while (again && !stopped);
    })().finally(() => {
      running = null;
    });
    return running;
  };

  function trigger(delay = DEBOUNCE_MS): void {
    if (stopped) return;
    const at = Date.now() + delay;
    if (debounce && debounceAt <= at) return;
    if (debounce) clearTimeout(debounce);
    debounceAt = at;
    debounce = setTimeout(() => {
      debounce = undefined;
      debounceAt = Infinity;
      void run();
    }, delay);
  }

  const watchers: fs.FSWatcher[] = [];
  const watch = (dir: string, accept: (name: string) => boolean) => {
    try {
      const w = fs.watch(dir, { persistent: false }, (_event, name) => {
        if (!name || accept(String(name))) trigger();
      });
      w.on('error', () => undefined); // the poll keeps going
      watchers.push(w);
    } catch {
      /* missing folder or no inotify: the poll covers it */
    }
  };
  const memoryNames = new Set<string>(MEMORY_FILES.flatMap((f) => [f, `${f}.lock`]));
  watch(workspace, (n) => memoryNames.has(n));
  watch(logsDir(), (n) => n.startsWith('reflection-'));
  watch(stateDir, (n) => n === GUARDIAN_LOG);
  const poll = setInterval(() => trigger(0), pollMs);
  poll.unref?.();

  void run(); // catch up at once

  return {
    stats,
    sync: async () => {
      if (running) await running;
      await run();
    },
    stop: async () => {
      stopped = true;
      clearInterval(poll);
      if (debounce) clearTimeout(debounce);
      for (const w of watchers) w.close();
      if (running) await running;
    },
  };
}
