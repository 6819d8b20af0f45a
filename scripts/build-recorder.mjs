// Builds the publishable recorder entry into dist/recorder: one CommonJS bundle for the API, one for
// its writer thread (better-sqlite3 stays external: a native addon), an ESM wrapper, and .d.ts files.
// Run by `npm run build:recorder` and before `npm pack`. An argument builds into another folder
// (tests do, so parallel builds never replace each other's files).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = process.argv[2] ? path.resolve(process.argv[2]) : path.join(root, 'dist', 'recorder');
fs.rmSync(out, { recursive: true, force: true });

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  external: ['better-sqlite3'],
  logLevel: 'warning',
  legalComments: 'none',
  minify: true,
  keepNames: true,
};
await build({ ...common, entryPoints: [path.join(root, 'src/recorder/index.ts')], outfile: path.join(out, 'index.cjs') });
await build({ ...common, entryPoints: [path.join(root, 'src/recorder/worker.ts')], outfile: path.join(out, 'worker.cjs') });

// ESM: Node imports CommonJS, so the wrapper re-exports the bundle's names.
const names = Object.keys(createRequire(import.meta.url)(path.join(out, 'index.cjs'))).filter((n) => n !== 'default' && n !== '__esModule');
fs.writeFileSync(
  path.join(out, 'index.mjs'),
  `import recorder from './index.cjs';\nexport const { ${names.join(', ')} } = recorder;\nexport default recorder;\n`,
);

const tsconfig = path.join(out, 'tsconfig.types.json');
fs.writeFileSync(
  tsconfig,
  JSON.stringify({
    extends: path.join(root, 'tsconfig.node.json'), // the recorder runs in the plugin's Node process: no DOM types
    compilerOptions: {
      noEmit: false,
      declaration: true,
      emitDeclarationOnly: true,
      rootDir: path.join(root, 'src'),
      outDir: path.join(out, 'types'),
      types: ['node'],
      tsBuildInfoFile: null,
    },
    include: [],
    files: [path.join(root, 'src/recorder/index.ts')],
  }),
);
execFileSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', tsconfig], { stdio: ['ignore', 2, 2] }); // stdout is npm pack's --json
fs.rmSync(tsconfig);
console.error(`recorder built: ${path.relative(root, out)} (${names.length} exports)`);
