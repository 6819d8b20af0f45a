// Where app-level state lives when no Electron userData folder is given (browser mode, CLI).
import os from 'node:os';
import path from 'node:path';

export function defaultStateDir(): string {
  if (process.env.REFLECTION_STATE_DIR) return path.resolve(process.env.REFLECTION_STATE_DIR);
  const base =
    process.env.XDG_CONFIG_HOME || (process.platform === 'win32' ? process.env.APPDATA : undefined) || path.join(os.homedir(), '.config');
  return path.join(base ?? os.homedir(), 'reflection-workbench');
}

/** The demo workspace generated on first run, inside the app's state folder. */
export function demoWorkspaceDir(stateDir: string): string {
  return path.join(stateDir, 'demo-workspace');
}
