// Lint for the whole repository: typescript-eslint's recommended rules, React's rules of hooks, and the
// import direction between the runtime folders (eslint-plugin-boundaries). `npm run lint`; `npm test` runs it too.
import boundaries from 'eslint-plugin-boundaries';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

// The folders of today's layout. A file belongs to the first element whose folder contains it.
// (Issue 15's target layout, shared ← core ← api ← {electron, web, cli}, will rename these; the rules below
// already hold the same direction on the current names.)
const ELEMENTS = [
  { type: 'shared', pattern: 'src/shared' }, // contracts and domain types: no node, no DOM, no main
  { type: 'text', pattern: 'src/main/text' }, // diff and hashing, used from the database layer upwards
  { type: 'db', pattern: 'src/main/db' }, // connection, migrations, snapshots
  { type: 'files', pattern: 'src/main/files' }, // memory-file IO (locked, atomic)
  { type: 'recorder', pattern: 'src/main/recorder' }, // the plugin-facing recorder core
  { type: 'services', pattern: 'src/main/services' }, // the domain: plain functions (ctx, input)
  { type: 'jobs', pattern: 'src/main/jobs' }, // job worker threads (run the api's job handlers)
  { type: 'ipc', pattern: 'src/main/ipc' }, // transport-neutral api: registry, handlers, session, jobs
  { type: 'app', pattern: 'src/main/app' }, // the runtime composition and the Electron shell's parts
  { type: 'web', pattern: 'src/main/web' }, // browser mode over HTTP
  { type: 'recorder-package', pattern: 'src/recorder' }, // the published recorder entry
  { type: 'cli', pattern: 'src/cli' },
  { type: 'preload', pattern: 'src/preload' },
  { type: 'renderer', pattern: 'src/renderer' },
  // Last, so it only takes what no folder above took: the Electron entry point, src/main/index.ts.
  { type: 'shell', pattern: 'src/main' },
].map((e) => ({ partialMatch: false, ...e }));

const MAIN = ['text', 'db', 'files', 'recorder', 'services', 'jobs', 'ipc', 'app', 'web', 'shell'];
const NOT_SHARED = [...MAIN, 'recorder-package', 'cli', 'preload', 'renderer'];
const TRANSPORTS = ['ipc', 'jobs', 'app', 'web', 'shell', 'cli'];

const toElements = (types) => ({ to: { element: { types: { anyOf: types } } } });
const nodeAndElectron = [
  { to: { module: { origin: 'core' } } },
  { to: { module: { source: 'electron' } } },
];

// Each policy names what a folder must NOT import; everything else is allowed (default: 'allow').
const BOUNDARY_POLICIES = [
  // src/shared is imported by every runtime, so it imports none of them, and no node module.
  { from: { element: { type: 'shared' } }, disallow: [toElements(NOT_SHARED), ...nodeAndElectron] },
  // The renderer and the preload talk to main only through the contract in src/shared.
  { from: { element: { type: 'renderer' } }, disallow: [toElements(NOT_SHARED.filter((t) => t !== 'renderer')), ...nodeAndElectron] },
  { from: { element: { type: 'preload' } }, disallow: [toElements(NOT_SHARED.filter((t) => t !== 'preload')), { to: { module: { origin: 'core' } } }] },
  // Nothing in main reaches into the CLI, the renderer or the preload.
  { from: { element: { types: { anyOf: MAIN } } }, disallow: toElements(['cli', 'renderer', 'preload']) },
  // The domain and the database know no transport and no Electron (they run in the CLI, in workers, in tests).
  { from: { element: { types: { anyOf: ['services', 'db', 'text', 'files'] } } }, disallow: [toElements(TRANSPORTS), { to: { module: { source: 'electron' } } }] },
  // The database layer sits under the domain, the recorder and memory-file IO.
  { from: { element: { types: { anyOf: ['db', 'text'] } } }, disallow: toElements(['services', 'recorder', 'files']) },
  { from: { element: { type: 'text' } }, disallow: toElements(['db']) },
  // The recorder is published on its own; of the domain it uses only the health hook that chains each write.
  { from: { element: { type: 'recorder' } }, disallow: toElements(['services']) },
  { from: { element: { type: 'recorder' } }, allow: { to: { file: { path: 'src/main/services/health/hook.ts' } } } },
  // The api (registry, handlers, session, jobs) does not know which shell or server carries it.
  { from: { element: { types: { anyOf: ['ipc', 'jobs'] } } }, disallow: toElements(['app', 'web', 'shell']) },
  // The Electron shell and browser mode are siblings: the shell does not import browser mode.
  { from: { element: { types: { anyOf: ['app', 'shell'] } } }, disallow: toElements(['web']) },
  // Electron is loaded at run time only by the preload and by the shell's one guarded require (src/main/index.ts):
  // everything else takes its API as a parameter and imports only its types, so tests and the CLI run under Node.
  {
    from: { element: { types: { anyOf: NOT_SHARED.filter((t) => t !== 'preload' && t !== 'shell') } } },
    dependency: { kind: 'value' },
    disallow: { to: { module: { source: 'electron' } } },
  },
];

// An `eslint-disable` must say why on the same line (`-- reason`); ESLint itself reports one that names an
// unknown rule or no longer suppresses anything (see linterOptions below).
const houseRules = {
  rules: {
    'disable-needs-reason': {
      meta: { type: 'suggestion', schema: [], messages: { missing: 'Give the reason on the same line: `{{text}} -- why`.' } },
      create(context) {
        return {
          Program() {
            for (const c of context.sourceCode.getAllComments()) {
              const text = c.value.trim();
              if (/^eslint-disable(-next-line|-line)?\b/.test(text) && !/\s--\s*\S/.test(text)) {
                context.report({ loc: c.loc, messageId: 'missing', data: { text: text.slice(0, 60) } });
              }
            }
          },
        };
      },
    },
  },
};

export default tseslint.config(
  {
    ignores: ['out/**', 'dist/**', 'node_modules/**', 'test-output/**', 'packaging/**', '**/*.cjs', 'tests/fixtures/**'],
  },
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{ts,tsx,mts,mjs}'],
    // Pinned so two configs linted in one process (the boundary test's temp copy) do not mix roots.
    languageOptions: { parserOptions: { tsconfigRootDir: import.meta.dirname } },
    plugins: { house: houseRules },
    rules: {
      'house/disable-needs-reason': 'error',
      // Unused parameters document a callback's signature (`(signal) => ...`); unused variables and imports still fail.
      '@typescript-eslint/no-unused-vars': ['error', { args: 'none', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      // `cond ? a++ : b++` and `x && f()` as statements are used on hot paths in a few places; the rule's other cases stay on.
      '@typescript-eslint/no-unused-expressions': ['error', { allowShortCircuit: true, allowTernary: true }],
    },
  },
  {
    files: ['tests/**/*.{ts,tsx}', 'bench/**/*.ts'],
    rules: {
      // Off in tests and benchmarks only: they read JSON replies and stand in for Electron objects loosely. On in src/.
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    files: ['src/renderer/**/*.{ts,tsx}', 'tests/renderer/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
    },
  },
  {
    files: ['src/**/*.{ts,tsx}'],
    plugins: { boundaries },
    settings: {
      'boundaries/root-path': import.meta.dirname,
      'boundaries/include': ['src/**/*'],
      'boundaries/elements': ELEMENTS,
      'import/resolver': { node: { extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'] } },
    },
    rules: {
      'boundaries/dependencies': ['error', { default: 'allow', checkAllOrigins: true, policies: BOUNDARY_POLICIES }],
    },
  },
);
