// One running live capture: its passes (memory files, plugin logs, the managed store, audit joins),
// the debounce that schedules them, and the watchers that trigger them.
import fs from 'node:fs';
import path from 'node:path';
import { MEMORY_FILES, type MemoryFileName } from '../../../shared/domain';
import { writeTx } from '../../db/connection';
import { holdWriteGate } from '../../db/writeGate';
import { memoryFilePath } from '../../files/memoryFiles';
import { nowOf, type ServiceContext } from '../../context';
import { importReflectionLogs } from '../../importers';
import { claimConsolidationWrites } from '../../importers/pluginLogStore';
import { importManagedStore, joinManagedRenders } from '../../importers/managedStore';
import { storePath } from '../../guardian/managed';
import { AuditAttacher, type OpenAudit } from '../attach';
import { getState, setState } from '../state';
import type { LiveCaptureEvent, LiveCaptureOptions } from '../live';
import { readSettled, recordObservedChange, statOf, statSig } from './files';

const WATERMARK_KEY = 'live.auditRowid';
// Events coalesce into at most one pass per 20 ms: lines arrive in bursts, and each pass records an import run.
const DEBOUNCE_MS = 20;

/** Where a capture looks: the plugin's root, the workspace and the guardian log in its state folder. */
export interface CapturePaths {
  pluginRoot: string;
  workspace: string;
  stateDir: string;
  guardianLog: string;
}

export class CaptureRunner {
  readonly stats = { passes: 0, imports: 0, changes: 0, attached: 0, errors: 0 };
  private readonly attacher: AuditAttacher;
  private readonly windowMs: number;
  private readonly memorySigs = new Map<MemoryFileName, string>();
  // When each file was last seen settled. An audit logged after that may have a change not seen yet.
  private readonly scannedAt = new Map<string, number>();
  private logsSig = '';
  private managedSig = '';
  private watermark: number;
  private persistedWatermark: number | undefined;
  // Plugin audits still waiting for their change or fact, with when they were first seen.
  private readonly open = new Map<string, { audit: OpenAudit; since: number }>();
  private stopped = false;
  private running: Promise<void> | null = null;
  private again = false;
  private debounce: NodeJS.Timeout | undefined;
  private debounceAt = Infinity;
  private readonly watchers: fs.FSWatcher[] = [];
  private poll: NodeJS.Timeout | undefined;

  constructor(
    private readonly ctx: ServiceContext,
    private readonly paths: CapturePaths,
    private readonly options: LiveCaptureOptions,
  ) {
    this.windowMs = options.auditMatchWindowMs ?? 5000;
    this.attacher = new AuditAttacher(ctx.db, this.windowMs);
    this.watermark = getState<number>(ctx.db, WATERMARK_KEY) ?? this.attacher.maxRowid();
  }

  /** The logs folder may appear after capture starts (a plugin installed but not run yet). */
  private logsDir(): string {
    const logs = path.join(this.paths.pluginRoot, 'logs');
    return fs.existsSync(logs) ? logs : this.paths.pluginRoot;
  }

  private emit(e: LiveCaptureEvent): void {
    try {
      this.options.onEvent?.(e);
    } catch {
      /* a listener's failure must not stop capture */
    }
  }

  private logsSignature(): string {
    let names: string[] = [];
    try {
      names = fs
        .readdirSync(this.logsDir())
        .filter((f) => /^reflection-.*\.log$/.test(f))
        .sort();
    } catch {
      /* the folder may appear later */
    }
    return [...names.map((n) => `${n}=${statSig(path.join(this.logsDir(), n))}`), `guardian=${statSig(this.paths.guardianLog)}`].join('|');
  }

  /** Records every settled memory file that changed since the last look; true when one was mid-write. */
  private scanMemoryFiles(): boolean {
    let busy = false;
    for (const name of MEMORY_FILES) {
      let file: string;
      try {
        file = memoryFilePath(this.paths.workspace, name);
      } catch {
        continue; // a symlink leaving the workspace, or not a regular file: never read it
      }
      const lookedAt = Date.now();
      const first = statOf(file);
      if (this.memorySigs.get(name) === first.sig) {
        this.scannedAt.set(name, lookedAt);
        continue;
      }
      // Read only a settled file; a file mid-write is looked at again soon.
      const content = readSettled(file, first);
      if (content === 'busy') {
        busy = true;
        continue;
      }
      const change = recordObservedChange(this.ctx.db, name, content, first.mtime ?? Date.now());
      this.memorySigs.set(name, first.sig);
      this.scannedAt.set(name, lookedAt);
      if (change) {
        this.stats.changes++;
        this.emit({ type: 'changed', file: name, auditId: change });
      }
    }
    return busy;
  }

  private async importLogs(): Promise<boolean> {
    const sig = this.logsSignature();
    if (sig === this.logsSig) return false;
    if (!sig.includes('.log=') && !fs.existsSync(this.paths.guardianLog)) {
      this.logsSig = sig;
      return false;
    }
    const report = await importReflectionLogs(this.ctx, {
      source: this.paths.pluginRoot,
      workspace: this.paths.workspace,
      recordExternalChanges: false,
    });
    // The signature from before the import: anything appended during it triggers another pass.
    this.logsSig = sig;
    this.stats.imports++;
    this.emit({ type: 'imported', report });
    return true;
  }

  /** Joins new and still-open plugin audits to the changes they describe, then moves the watermark. */
  private joinAudits(): void {
    for (const a of this.attacher.auditsAfter(this.watermark)) {
      this.watermark = Math.max(this.watermark, a.rowid);
      if (!AuditAttacher.wants(a)) continue;
      // History read during a catch-up gets one try; only recent audits wait for a late change or line.
      if (a.createdAt >= Date.now() - this.windowMs - 60_000) this.open.set(a.id, { audit: a, since: Date.now() });
      else if (this.attacher.complete(a, this.scannedAt.get(a.targetFile) ?? 0).attached) this.stats.attached++;
    }
    const expiry = Date.now() - this.windowMs - 1000;
    for (const [id, entry] of this.open) {
      const r = this.attacher.complete(entry.audit, this.scannedAt.get(entry.audit.targetFile) ?? 0);
      if (r.attached) {
        this.stats.attached++;
        this.emit({ type: 'attached', auditId: id, file: entry.audit.targetFile, fromAuditId: r.fromAuditId! });
      }
      if (!AuditAttacher.wants(entry.audit) || entry.since < expiry) this.open.delete(id);
    }
    this.persistWatermark();
  }

  /** Persists a watermark below every audit still open, so a restart looks at them again. */
  private persistWatermark(): void {
    const lowestOpen = Math.min(...[...this.open.values()].map((e) => e.audit.rowid));
    const persist = Number.isFinite(lowestOpen) ? lowestOpen - 1 : this.watermark;
    // Through writeTx, so a job in a worker steps aside for it (writeGate), and only when it moved:
    // a busy pass runs every 25 ms and must not write the same row each time.
    if (persist !== this.persistedWatermark) {
      writeTx(this.ctx.db, () => setState(this.ctx.db, WATERMARK_KEY, persist, nowOf(this.ctx)));
      this.persistedWatermark = persist;
    }
  }

  private async pass(): Promise<void> {
    const { ctx } = this;
    this.stats.passes++;
    // Files first: the plugin writes a memory file before its audit line, so a change is on
    // record by the time the line that claims it is imported.
    let busy = this.scanMemoryFiles();
    const imported = await this.importLogs();
    if (imported) busy = this.scanMemoryFiles() || busy; // so every imported write's change is on record
    // A consolidation line comes just before the files change: claim the change, whichever came first.
    writeTx(ctx.db, () => claimConsolidationWrites(ctx.db));
    // The memory-management plugin's fact store: its facts, and its re-renders of the managed region.
    const storeSig = statSig(storePath(this.paths.workspace));
    if (storeSig !== this.managedSig || imported) {
      importManagedStore(ctx.db, this.paths.workspace, nowOf(ctx));
      this.managedSig = storeSig;
    } else if (storeSig !== 'absent') writeTx(ctx.db, () => joinManagedRenders(ctx.db));
    this.joinAudits();
    if (busy || this.open.size) this.trigger(busy ? 25 : 100);
  }

  /** Runs passes until no trigger came in during one; passes never overlap. */
  run(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        try {
          // A pass makes a dozen small write transactions: a job in a worker steps aside once for all
          // of them, not once for each (writeGate.ts; bench 45-jobs).
          await holdWriteGate(() => this.pass());
        } catch (e) {
          this.stats.errors++;
          this.emit({ type: 'error', error: e });
        }
      } while (this.again && !this.stopped);
    })().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  trigger(delay = DEBOUNCE_MS): void {
    if (this.stopped) return;
    const at = Date.now() + delay;
    if (this.debounce && this.debounceAt <= at) return;
    if (this.debounce) clearTimeout(this.debounce);
    this.debounceAt = at;
    this.debounce = setTimeout(() => {
      this.debounce = undefined;
      this.debounceAt = Infinity;
      void this.run();
    }, delay);
  }

  private watch(dir: string, accept: (name: string) => boolean): void {
    try {
      const w = fs.watch(dir, { persistent: false }, (_event, name) => {
        if (!name || accept(String(name))) this.trigger();
      });
      w.on('error', () => undefined); // the poll keeps going
      this.watchers.push(w);
    } catch {
      /* missing folder or no inotify: the poll covers it */
    }
  }

  /** File-system events trigger a pass within milliseconds; a slow poll catches what events miss. */
  startWatching(guardianLogName: string): void {
    const memoryNames = new Set<string>(MEMORY_FILES.flatMap((f) => [f, `${f}.lock`]));
    this.watch(this.paths.workspace, (n) => memoryNames.has(n));
    this.watch(this.logsDir(), (n) => n.startsWith('reflection-'));
    this.watch(this.paths.stateDir, (n) => n === guardianLogName);
    this.poll = setInterval(() => this.trigger(0), this.options.pollIntervalMs ?? 500);
    this.poll.unref?.();
  }

  async sync(): Promise<void> {
    if (this.running) await this.running;
    await this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.poll);
    if (this.debounce) clearTimeout(this.debounce);
    for (const w of this.watchers) w.close();
    if (this.running) await this.running;
  }
}
