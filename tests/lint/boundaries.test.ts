// The lint config really enforces the import direction: a copy of eslint.config.mjs in a temp folder,
// with a wrong-way import planted in a small src/ tree, must fail with the boundary rule, and the real
// tree must lint clean. Runs ESLint through its Node API, the same config `npm run lint` uses.
import fs from 'node:fs';
import path from 'node:path';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, tempWorkspace } from '../helpers/workspace';

/** Files every planted tree has: one module per folder the rules name, exporting a constant. */
const TARGETS = [
  'src/shared/domain.ts',
  'src/core/db/connection.ts',
  'src/core/text/diff.ts',
  'src/core/context.ts',
  'src/core/health/hook.ts',
  'src/core/recorder/recorder.ts',
  'src/api/registry.ts',
  'src/api/runtime.ts',
  'src/web/server.ts',
  'src/cli/index.ts',
  'src/renderer/src/App.tsx',
];

let root: string;

beforeAll(() => {
  root = tempWorkspace('reflection-lint-');
  fs.copyFileSync(path.join(repoRoot, 'eslint.config.mjs'), path.join(root, 'eslint.config.mjs'));
  // The config's plugins resolve from beside it.
  fs.symlinkSync(path.join(repoRoot, 'node_modules'), path.join(root, 'node_modules'), 'dir');
  for (const f of TARGETS) write(f, 'export const value = 1;\n');
});

function write(rel: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), text);
}

/** Lints one planted file (written fresh) in the temp tree and returns its messages. */
async function lintPlanted(rel: string, text: string) {
  write(rel, text);
  const eslint = new ESLint({ cwd: root });
  const [result] = await eslint.lintFiles([rel]);
  fs.rmSync(path.join(root, rel));
  if (!result) throw new Error(`eslint returned no result for ${rel}`);
  return result.messages.map((m) => ({ rule: m.ruleId, line: m.line, message: m.message }));
}

const WRONG_WAY: Array<[string, string, string]> = [
  ['the renderer imports the database', 'src/renderer/src/lib/planted.ts', "import { value } from '../../../core/db/connection';"],
  ['the renderer imports the api', 'src/renderer/src/lib/planted.ts', "import { value } from '../../../api/registry';"],
  ['the renderer imports a node module', 'src/renderer/src/lib/planted.ts', "import fs from 'node:fs';\nexport const f = fs;"],
  ['shared imports core', 'src/shared/planted.ts', "import { value } from '../core/context';"],
  ['shared imports a node module', 'src/shared/planted.ts', "import path from 'node:path';\nexport const p = path;"],
  ['the database imports a service area', 'src/core/db/planted.ts', "import { value } from '../context';"],
  ['the recorder imports a service area', 'src/core/recorder/planted.ts', "import { value } from '../context';"],
  ['core imports electron', 'src/core/planted.ts', "import { app } from 'electron';\nexport const a = app;"],
  ['core imports the api', 'src/core/planted.ts', "import { value } from '../api/registry';"],
  ['core imports browser mode', 'src/core/planted.ts', "import { value } from '../web/server';"],
  ['the api imports browser mode', 'src/api/planted.ts', "import { value } from '../web/server';"],
  ['the api imports the CLI', 'src/api/planted.ts', "import { value } from '../cli/index';"],
  ['the shell imports browser mode', 'src/electron/planted.ts', "import { value } from '../web/server';"],
  ['browser mode imports the CLI', 'src/web/planted.ts', "import { value } from '../cli/index';"],
  [
    'an electron module other than the entry loads electron at run time',
    'src/electron/planted.ts',
    "import { BrowserWindow } from 'electron';\nexport const w = BrowserWindow;",
  ],
];

describe('lint boundaries on a planted copy', () => {
  it.each(WRONG_WAY)('%s: boundaries/dependencies fails', async (_name, rel, code) => {
    // Other findings (an unused import) do not matter here: only the boundary rule's.
    const messages = await lintPlanted(rel, `${code}\n`);
    expect(messages.filter((m) => m.rule === 'boundaries/dependencies').length, JSON.stringify(messages)).toBeGreaterThan(0);
    expect(messages.find((m) => m.rule === 'boundaries/dependencies')?.line).toBe(1);
  });

  it('imports the right way pass: core → db and text, recorder → the health hook, api → core, transports → api, renderer → shared, electron types', async () => {
    const cases: Array<[string, string]> = [
      [
        'src/core/planted.ts',
        "import { value as a } from './db/connection';\nimport { value as b } from './text/diff';\nexport const s = a + b;\n",
      ],
      ['src/core/recorder/planted.ts', "import { value } from '../health/hook';\nexport const r = value;\n"],
      ['src/api/planted.ts', "import { value } from '../core/context';\nexport const v = value;\n"],
      ['src/web/planted.ts', "import { value } from '../api/runtime';\nexport const v = value;\n"],
      ['src/cli/planted.ts', "import { value } from '../web/server';\nexport const v = value;\n"],
      ['src/renderer/src/planted.ts', "import { value } from '../../shared/domain';\nexport const v = value;\n"],
      ['src/electron/planted.ts', "import { value } from '../api/registry';\nexport const v = value;\n"],
      ['src/electron/planted.ts', "import type { BrowserWindow } from 'electron';\nexport type W = BrowserWindow;\n"],
    ];
    for (const [rel, code] of cases) expect(await lintPlanted(rel, code), rel).toEqual([]);
  });

  it('an eslint-disable without a reason, or naming a rule that does not fire, fails', async () => {
    const noReason = await lintPlanted(
      'src/core/planted.ts',
      '// eslint-disable-next-line prefer-const\nlet x = 1;\nexport const y = x;\n',
    );
    expect(noReason.map((m) => m.rule)).toContain('house/disable-needs-reason');
    const unused = await lintPlanted(
      'src/core/planted.ts',
      '// eslint-disable-next-line prefer-const -- no reason needed\nexport const y = 1;\n',
    );
    expect(
      unused.some((m) => /Unused eslint-disable directive/.test(m.message)),
      JSON.stringify(unused),
    ).toBe(true);
    const withReason = await lintPlanted(
      'src/core/planted.ts',
      '// eslint-disable-next-line prefer-const -- kept mutable on purpose\nlet x = 1;\nexport const y = x;\n',
    );
    expect(withReason).toEqual([]);
  });

  it('a statement prepared outside src/core/db is flagged; inside a repository it is not', async () => {
    const prepared = "export const count = (db: { prepare(sql: string): { get(): unknown } }) => db.prepare('SELECT 1').get();\n";
    const viaCache =
      "declare function stmt(db: unknown, sql: string): { get(): unknown };\nexport const count = (db: unknown) => stmt(db, 'SELECT 1').get();\n";
    for (const [rel, code] of [
      ['src/core/planted.ts', prepared],
      ['src/api/handlers/planted.ts', prepared],
      ['src/core/planted.ts', viaCache],
    ] as const) {
      const messages = await lintPlanted(rel, code);
      expect(
        messages.filter((m) => m.rule === 'no-restricted-syntax').map((m) => m.line),
        `${rel}: ${JSON.stringify(messages)}`,
      ).toEqual([viaCache === code ? 2 : 1]);
    }
    expect(await lintPlanted('src/core/db/repositories/planted.ts', prepared)).toEqual([]);
  });

  it('a hook called conditionally fails rules-of-hooks in the renderer', async () => {
    const code =
      "import { useState } from 'react';\nexport function View({ on }: { on: boolean }) {\n  if (on) useState(0);\n  return null;\n}\n";
    const messages = await lintPlanted('src/renderer/src/planted.tsx', code);
    expect(messages.map((m) => m.rule)).toContain('react-hooks/rules-of-hooks');
  });
});

describe('the real tree', () => {
  it('passes lint with no errors', async () => {
    const eslint = new ESLint({ cwd: repoRoot });
    const results = await eslint.lintFiles(['src', 'tests', 'bench']);
    const errors = results.flatMap((r) =>
      r.messages.filter((m) => m.severity === 2).map((m) => `${path.relative(repoRoot, r.filePath)}:${m.line} ${m.ruleId} ${m.message}`),
    );
    expect(errors).toEqual([]);
  });
});
