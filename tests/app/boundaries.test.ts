// The architecture's import rules, checked on the source: shared code is pure, the renderer never
// reaches into main, and nothing outside the shell imports electron at runtime.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/workspace';

function files(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? files(p) : /\.(ts|tsx)$/.test(e.name) ? [p] : [];
  });
}

const importsOf = (file: string) =>
  [
    ...fs
      .readFileSync(file, 'utf8')
      .matchAll(/^\s*(import|export)\s+(type\s+)?[^'"]*?from\s+['"]([^'"]+)['"]|require\(['"]([^'"]+)['"]\)|import\(['"]([^'"]+)['"]\)/gm),
  ].map((m) => ({
    spec: m[3] ?? m[4] ?? m[5] ?? '', // the pattern's three alternatives each capture one
    typeOnly: Boolean(m[2]),
  }));

const src = path.join(repoRoot, 'src');
const rel = (f: string) => path.relative(repoRoot, f);

describe('import boundaries', () => {
  it('src/shared imports no node module and no electron', () => {
    for (const f of files(path.join(src, 'shared'))) {
      for (const { spec } of importsOf(f)) {
        expect(
          spec.startsWith('node:') || spec === 'electron' || ['fs', 'path', 'os', 'crypto'].includes(spec),
          `${rel(f)} imports ${spec}`,
        ).toBe(false);
      }
    }
  });

  it('src/renderer never imports from the node side (core, api, electron, web, cli), node or electron', () => {
    for (const f of files(path.join(src, 'renderer'))) {
      for (const { spec } of importsOf(f)) {
        const resolved = spec.startsWith('.') ? path.resolve(path.dirname(f), spec) : spec;
        for (const side of ['core', 'api', 'electron', 'web', 'cli'])
          expect(resolved.startsWith(path.join(src, side)), `${rel(f)} imports ${spec}`).toBe(false);
        expect(spec.startsWith('node:') || spec === 'electron', `${rel(f)} imports ${spec}`).toBe(false);
      }
    }
  });

  it('only the shell, the IPC transport and the preload touch electron, and only as types outside the preload', () => {
    for (const f of files(src)) {
      for (const { spec, typeOnly } of importsOf(f)) {
        if (spec !== 'electron') continue;
        const file = rel(f);
        if (file === path.join('src', 'preload', 'index.ts')) continue;
        // The shell requires electron once, at the bottom, only when running inside Electron.
        if (file === path.join('src', 'electron', 'main.ts') && !typeOnly) {
          expect(fs.readFileSync(f, 'utf8')).toMatch(
            /if \(process\.versions\.electron[^\n]*\n[^\n]*\n\s*startShell\(require\('electron'\)/,
          );
          continue;
        }
        expect(typeOnly, `${file} imports electron at runtime`).toBe(true);
      }
    }
  });
});
