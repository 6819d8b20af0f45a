// The one module through which the workbench touches the five memory files.
// Only those five names, only inside the workspace, atomic (temp + fsync + rename), and only
// while holding the same proper-lockfile lock the plugin takes, so the two never interleave writes.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import lockfile from 'proper-lockfile';
import writeFileAtomic from 'write-file-atomic';
import { MEMORY_FILES, type MemoryFileName } from '../../shared/domain';
import { AppError } from '../../shared/errors';

/** The plugin's lock settings: a lock not refreshed for 5 s is stale and may be taken over. */
export const LOCK_STALE_MS = 5000;

export interface LockOptions {
  /** How long to keep retrying a held lock before giving up with a Locked error. Default: a little over the stale time. */
  timeoutMs?: number;
}

export function isMemoryFileName(name: string): name is MemoryFileName {
  return (MEMORY_FILES as readonly string[]).includes(name);
}

/** Checks that a name is one of the five memory files, with a message naming what is wrong. */
export function assertMemoryFileName(name: string): MemoryFileName {
  if (typeof name !== 'string' || !name) throw new AppError('Invalid', 'memory file: expected a file name');
  if (path.isAbsolute(name))
    throw new AppError('Invalid', `memory file ${name}: absolute paths are not allowed; use one of ${MEMORY_FILES.join(', ')}`);
  if (name.split(/[\\/]/).includes('..'))
    throw new AppError('Invalid', `memory file ${name}: '..' is not allowed; use one of ${MEMORY_FILES.join(', ')}`);
  if (!isMemoryFileName(name))
    throw new AppError('Invalid', `memory file ${name}: not a memory file; use one of ${MEMORY_FILES.join(', ')}`);
  return name;
}

function realDir(dir: string): string {
  try {
    return fs.realpathSync(dir);
  } catch {
    throw new AppError('NotFound', `workspace folder ${dir} does not exist`);
  }
}

function isInside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * The absolute path of a memory file, after checking the name is one of the five and the path
 * (following any symlink) stays inside the workspace.
 */
export function memoryFilePath(workspaceDir: string, name: string): string {
  assertMemoryFileName(name);
  const root = realDir(workspaceDir);
  const file = path.join(root, name);
  let stat: fs.Stats | undefined;
  try {
    stat = fs.lstatSync(file);
  } catch {
    return file; // absent: it will be created right here
  }
  if (stat.isSymbolicLink()) {
    let target: string;
    try {
      target = fs.realpathSync(file);
    } catch {
      throw new AppError('Invalid', `memory file ${name} is a symlink to a missing target; refusing to follow it`);
    }
    if (!isInside(root, target))
      throw new AppError('Invalid', `memory file ${name} is a symlink that leaves the workspace (${target}); refusing to touch it`);
  } else if (!stat.isFile()) {
    throw new AppError('Invalid', `memory file ${name} is not a regular file`);
  }
  return file;
}

/** The file's content, or null when it does not exist. */
export function readMemoryFile(workspaceDir: string, name: MemoryFileName): string | null {
  const file = memoryFilePath(workspaceDir, name);
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new AppError('Io', `cannot read ${name}: ${(e as Error).message}`);
  }
}

function retriesFor(timeoutMs: number) {
  // Exponential backoff from 25 ms to 500 ms; enough attempts to span timeoutMs.
  let total = 0;
  let retries = 0;
  let wait = 25;
  while (total < timeoutMs) {
    total += wait;
    retries++;
    wait = Math.min(500, wait * 1.5);
  }
  return { retries, factor: 1.5, minTimeout: 25, maxTimeout: 500 };
}

// A crashed workbench process leaves its lock folder behind, and proper-lockfile only takes it over
// once it is stale (5 s). So, beside each lock we hold, we record who holds it (pid, host, and the
// lock folder's inode and birth time, which tell this lock from a later one at the same path) in this
// host's temp folder: a pid means something only on its host, and the workspace stays free of our
// files. A lock whose recorded holder is a dead process on this host is marked
// stale at once (its mtime set back), and proper-lockfile's own takeover does the rest. Locks the
// plugin holds carry no record of ours and are never touched.
interface LockOwner {
  pid: number;
  host: string;
  ino: number;
  birth: number;
}

function ownerFile(file: string): string {
  const key = crypto.createHash('sha256').update(path.resolve(file)).digest('hex').slice(0, 32);
  // process.getuid never throws (os.userInfo does without a passwd entry); Windows has no uid and per-user temp folders.
  return path.join(os.tmpdir(), `reflection-workbench-locks-${process.getuid?.() ?? 'user'}`, `${key}.json`);
}

/** Is a process with this pid running on this host (EPERM: yes, someone else's)? */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function recordLockOwner(file: string): void {
  try {
    const st = fs.statSync(`${file}.lock`);
    const owner: LockOwner = { pid: process.pid, host: os.hostname(), ino: st.ino, birth: st.birthtimeMs };
    const target = ownerFile(file);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(`${target}.${process.pid}.tmp`, JSON.stringify(owner));
    fs.renameSync(`${target}.${process.pid}.tmp`, target);
  } catch {
    // Without a record a crash costs the stale wait, nothing more.
  }
}

function forgetLockOwner(file: string): void {
  try {
    fs.rmSync(ownerFile(file), { force: true });
  } catch {
    // a record we cannot remove is checked against the lock folder's inode next time
  }
}

/** Marks the lock stale when our record says a dead process of ours on this host holds it; true when it did. */
export function releaseDeadOwnLock(file: string): boolean {
  let owner: LockOwner;
  let st: fs.Stats;
  try {
    owner = JSON.parse(fs.readFileSync(ownerFile(file), 'utf8')) as LockOwner;
  } catch {
    return false;
  }
  try {
    st = fs.statSync(`${file}.lock`);
  } catch {
    forgetLockOwner(file); // the lock is gone: the record is stale
    return false;
  }
  const same = owner.host === os.hostname() && owner.ino === st.ino && owner.birth === st.birthtimeMs;
  if (!same) return false;
  if (owner.pid === process.pid || pidAlive(owner.pid)) return false;
  const past = (Date.now() - 2 * LOCK_STALE_MS) / 1000;
  fs.utimesSync(`${file}.lock`, past, past);
  forgetLockOwner(file);
  return true;
}

/**
 * Runs fn while holding the plugin's lock on the memory file (proper-lockfile, realpath:false,
 * stale 5000 ms). Waits for a held lock with bounded retries, then fails with a Locked error.
 * A lock left by a dead workbench process is taken at once (see releaseDeadOwnLock).
 */
export async function withMemoryFileLock<T>(
  workspaceDir: string,
  name: MemoryFileName,
  fn: (file: string) => Promise<T> | T,
  opts: LockOptions = {},
): Promise<T> {
  const file = memoryFilePath(workspaceDir, name);
  const timeoutMs = opts.timeoutMs ?? LOCK_STALE_MS + 3000;
  let release: () => Promise<void>;
  let compromised: Error | undefined;
  try {
    releaseDeadOwnLock(file);
    release = await lockfile.lock(file, {
      realpath: false,
      stale: LOCK_STALE_MS,
      retries: retriesFor(timeoutMs),
      onCompromised: (err) => {
        compromised = err;
      },
    });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ELOCKED') {
      throw new AppError(
        'Locked',
        `${name} is locked by another writer (the plugin or another workbench) and stayed locked for ${Math.round(timeoutMs / 1000)} s; nothing was written. Try again when it is idle.`,
      );
    }
    throw new AppError('Io', `cannot lock ${name}: ${(e as Error).message}`);
  }
  recordLockOwner(file);
  try {
    const result = await fn(file);
    if (compromised) {
      throw new AppError(
        'Locked',
        `the lock on ${name} was taken over by another writer during this operation (${compromised.message}); the operation finished, but the file may also have been changed by that writer: run \`reflection guardian reconcile\` to record any difference`,
      );
    }
    return result;
  } finally {
    forgetLockOwner(file);
    await release().catch(() => undefined);
  }
}

/** True while someone holds a fresh lock on the file. */
export async function isMemoryFileLocked(workspaceDir: string, name: MemoryFileName): Promise<boolean> {
  return lockfile.check(memoryFilePath(workspaceDir, name), { realpath: false, stale: LOCK_STALE_MS });
}

/**
 * Writes (or, with null, deletes) a memory file atomically. The caller must hold the lock
 * (withMemoryFileLock); writeMemoryFile below does both.
 */
export async function writeMemoryFileLocked(workspaceDir: string, name: MemoryFileName, content: string | null): Promise<void> {
  const file = memoryFilePath(workspaceDir, name);
  try {
    if (content === null) {
      await fs.promises.rm(file, { force: true });
      await fsyncDir(path.dirname(file));
    } else {
      await writeFileAtomic(file, content, { encoding: 'utf8', fsync: true });
    }
  } catch (e) {
    throw new AppError('Io', `cannot ${content === null ? 'delete' : 'write'} ${name}: ${(e as Error).message}`);
  }
}

/** Takes the lock, writes (or deletes) the file atomically, releases the lock. */
export async function writeMemoryFile(
  workspaceDir: string,
  name: MemoryFileName,
  content: string | null,
  opts: LockOptions = {},
): Promise<void> {
  await withMemoryFileLock(workspaceDir, name, () => writeMemoryFileLocked(workspaceDir, name, content), opts);
}

async function fsyncDir(dir: string): Promise<void> {
  // Makes the unlink durable; some platforms cannot open a directory, which is fine to skip.
  let fd: fs.promises.FileHandle | undefined;
  try {
    fd = await fs.promises.open(dir, 'r');
    await fd.sync();
  } catch {
    /* not supported here */
  } finally {
    await fd?.close().catch(() => undefined);
  }
}
