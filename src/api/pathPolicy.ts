// Which paths the renderer may make main touch. The renderer is untrusted: a path it sends must be
// one the user picked in a native dialog main opened (Electron; kept per window), a workspace the user
// opened before, or inside an allowed folder: the folders given with `--allow-dir` (browser mode),
// by default the open workspace and its plugin root. Real paths are compared, so a symlink cannot
// lead out of an allowed folder.
import path from 'node:path';
import { AppError } from '../shared/errors';
import { STATE_DIR } from '../core/db/connection';
import { realExistingAncestor } from '../core/lifecycle/backup';
import { loadSettings } from '../core/lifecycle/settings';
import type { WorkspaceSession } from './session';

export type PickPurpose = 'workspace' | 'importFolder' | 'importFile' | 'backupFile';

/** Opens a native dialog; answers the chosen path or null when cancelled (Electron only). */
export type PathPicker = (purpose: PickPurpose, defaultPath?: string) => Promise<string | null>;

/** realpath of p, or of its nearest existing ancestor with the missing rest appended. */
export const realPathOf = realExistingAncestor;

export function isInside(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

export class PathPolicy {
  /** Real paths picked in a native dialog of the current window; cleared when the window goes. */
  private readonly picked = new Set<string>();
  private picker: PathPicker | null = null;
  private readonly allowDirs: string[] | null;

  constructor(
    private readonly session: WorkspaceSession,
    options: { allowDirs?: string[] } = {},
  ) {
    this.allowDirs = options.allowDirs?.length ? options.allowDirs.map((d) => path.resolve(d)) : null;
  }

  /** Electron: the shell's native dialog. */
  setPicker(picker: PathPicker | null): void {
    this.picker = picker;
    this.picked.clear();
  }

  /** Forget the picks (the window that made them closed or reloaded). */
  clearPicked(): void {
    this.picked.clear();
  }

  notePicked(p: string): void {
    this.picked.add(realPathOf(p));
  }

  async pick(purpose: PickPurpose): Promise<string | null> {
    if (!this.picker)
      throw new AppError(
        'Invalid',
        'file dialogs need the desktop app; in the browser, type a path inside an allowed folder (reflection open --web --allow-dir <dir>)',
      );
    const defaultPath =
      purpose === 'backupFile' && this.session.isOpen() ? path.join(this.backupsDir(), 'reflection-backup.db') : undefined;
    const chosen = await this.picker(purpose, defaultPath);
    if (chosen) this.notePicked(chosen);
    return chosen;
  }

  /** The folders paths may lie in (real paths): --allow-dir or the plugin root, the open workspace, and picked paths. */
  roots(): string[] {
    const roots = [...(this.allowDirs ?? this.defaultRoots())];
    if (this.session.isOpen()) roots.push(this.session.dir);
    return [...roots.map(realPathOf), ...this.picked];
  }

  private defaultRoots(): string[] {
    if (!this.session.isOpen()) return [];
    const root = loadSettings(this.session.dir).settings.pluginRoot;
    return root ? [path.resolve(this.session.dir, root)] : [];
  }

  /** A path the renderer sent, checked; answers its real path. */
  check(field: string, p: string): string {
    const real = realPathOf(p);
    if (this.roots().some((root) => isInside(root, real))) return real;
    throw new AppError(
      'Invalid',
      `${field}: ${p} is outside the folders the workbench may use; pick it in a dialog (desktop app) or allow its folder (reflection open --web --allow-dir)`,
    );
  }

  /** workspace.open: a workspace opened before, or a folder inside an allowed one. */
  checkWorkspace(dir: string): string {
    const real = realPathOf(dir);
    if (this.session.recent().some((r) => realPathOf(r.dir) === real)) return real;
    return this.check('dir', dir);
  }

  backupsDir(): string {
    return path.join(this.session.dir, STATE_DIR, 'backups');
  }

  /**
   * backup.create: a plain file name lands in <workspace>/.openclaw-reflection/backups/; any other
   * path must be exactly one the user picked in a save dialog. The backups folder itself must not
   * lead out of the workspace through a symlink.
   */
  backupTarget(file: string | undefined): string | undefined {
    if (file === undefined) return undefined;
    if (path.isAbsolute(file)) {
      if (this.picked.has(realPathOf(file))) return file;
      throw new AppError('Invalid', `file: ${file} was not picked in a save dialog; give a file name for the backups folder instead`);
    }
    if (file !== path.basename(file) || file === '..' || file === '.') {
      throw new AppError('Invalid', `file: ${file} must be a plain file name (it goes to ${STATE_DIR}/backups/)`);
    }
    const dir = this.backupsDir();
    if (!isInside(realPathOf(this.session.dir), realPathOf(dir)))
      throw new AppError('Invalid', `${STATE_DIR}/backups leads out of the workspace (symlink); refusing to write there`);
    return path.join(dir, file);
  }

  /** settings.set from the renderer: storage.dbPath stays a relative .db path inside the workspace; pluginRoot inside an allowed folder. */
  checkSettingsPatch(patch: Record<string, unknown>): void {
    const storage = patch.storage as Record<string, unknown> | undefined;
    const dbPath = storage && typeof storage === 'object' ? storage.dbPath : undefined;
    if (typeof dbPath === 'string') {
      const parts = dbPath.split(/[\\/]/);
      if (path.isAbsolute(dbPath) || path.win32.isAbsolute(dbPath) || parts.includes('..')) {
        throw new AppError('Invalid', `storage.dbPath: ${dbPath} must be a path inside the workspace, without '..'`);
      }
      if (!dbPath.endsWith('.db')) throw new AppError('Invalid', `storage.dbPath: ${dbPath} must end in .db`);
    }
    if (typeof patch.pluginRoot === 'string') this.check('pluginRoot', path.resolve(this.session.dir, patch.pluginRoot));
  }
}

const policies = new WeakMap<WorkspaceSession, PathPolicy>();

/** The policy of a session (created with the defaults when the runtime did not configure one). */
export function pathPolicyOf(session: WorkspaceSession): PathPolicy {
  let p = policies.get(session);
  if (!p) {
    p = new PathPolicy(session);
    policies.set(session, p);
  }
  return p;
}

export function configurePathPolicy(session: WorkspaceSession, options: { allowDirs?: string[] }): PathPolicy {
  const p = new PathPolicy(session, options);
  policies.set(session, p);
  return p;
}
