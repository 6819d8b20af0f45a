import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';

const made: string[] = [];

/** A fresh workspace folder in the OS temp dir, removed after the test file. */
export function tempWorkspace(prefix = 'reflection-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

afterAll(() => {
  if (process.env.KEEP_TEST_WORKSPACES) return;
  for (const d of made.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

export const repoRoot = path.resolve(__dirname, '..', '..');
export const sharedDir = path.resolve(repoRoot, '..', 'shared');
