// First run: with no recent workspace, open a demo workspace generated into the app's state folder.
import fs from 'node:fs';
import path from 'node:path';
import { STATE_DIR } from '../core/db/connection';
import { generateDemoWorkspace } from '../core/demo';
import { demoWorkspaceDir } from '../core/lifecycle/stateDir';
import type { WorkspaceSession } from './session';

export function ensureDemoWorkspace(stateDir: string): string {
  const dir = demoWorkspaceDir(stateDir);
  if (!fs.existsSync(path.join(dir, STATE_DIR, 'reflection.db'))) {
    fs.mkdirSync(dir, { recursive: true });
    generateDemoWorkspace(dir, {});
  }
  return dir;
}

/** Opens the requested workspace, else the last one, else the demo workspace (generating it once). */
export function openInitialWorkspace(session: WorkspaceSession, stateDir: string, requested?: string | null): string {
  if (requested) return session.open(requested).dir;
  const last = session.lastWorkspace();
  if (last) {
    try {
      return session.open(last).dir;
    } catch {
      // a workspace that no longer opens falls back to the demo
    }
  }
  return session.open(ensureDemoWorkspace(stateDir), { isDemo: true }).dir;
}
