// Lint for the whole repository: typescript-eslint's recommended rules, React's rules of hooks, and the
// import direction between the runtime folders (eslint-plugin-boundaries). `npm run lint`; `npm test` runs it too.
import boundaries from 'eslint-plugin-boundaries';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

// The folders, named after the runtime they need. A file belongs to the first element whose folder contains it.
// Imports flow one way: shared ← core ← api ← {electron, web, cli}; the renderer and the preload see only shared.
const ELEMENTS = [
  { type: 'shared', pattern: 'src/shared' }, // contracts and domain types: no node, no DOM
  { type: 'text', pattern: 'src/core/text' }, // diff, hashing and time parsing, used from the database layer upwards
  { type: 'db', pattern: 'src/core/db' }, // connection, migrations, repositories: the only place with SQL
  { type: 'files', pattern: 'src/core/files' }, // memory-file IO (locked, atomic)
  { type: 'recorder', pattern: 'src/core/recorder' }, // the plugin-facing recorder core
  { type: 'core', pattern: 'src/core' }, // the service areas: plain functions (ctx, input), Node only, no transport
  { type: 'api', pattern: 'src/api' }, // registry, handlers, workspace session, jobs: transport-neutral
  { type: 'electron', pattern: 'src/electron' }, // the desktop shell: window, menu, security, IPC binding
  { type: 'web', pattern: 'src/web' }, // browser mode over HTTP on 127.0.0.1
  { type: 'cli', pattern: 'src/cli' }, // the `reflection` command line
  { type: 'recorder-package', pattern: 'src/recorder' }, // the published recorder entry
  { type: 'preload', pattern: 'src/preload' },
  { type: 'renderer', pattern: 'src/renderer' },
].map((e) => ({ partialMatch: false, ...e }));

const CORE = ['text', 'db', 'files', 'recorder', 'core'];
const NODE_SIDE = [...CORE, 'api', 'electron', 'web', 'cli', 'recorder-package'];
const NOT_SHARED = [...NODE_SIDE, 'preload', 'renderer'];
const TRANSPORTS = ['electron', 'web', 'cli'];

const toElements = (types) => ({ to: { element: { types: { anyOf: types } } } });
const nodeAndElectron = [{ to: { module: { origin: 'core' } } }, { to: { module: { source: 'electron' } } }];

// Each policy names what a folder must NOT import; everything else is allowed (default: 'allow').
const BOUNDARY_POLICIES = [
  // src/shared is imported by every runtime, so it imports none of them, and no node module.
  { from: { element: { type: 'shared' } }, disallow: [toElements(NOT_SHARED), ...nodeAndElectron] },
  // The renderer and the preload talk to main only through the contract in src/shared.
  { from: { element: { type: 'renderer' } }, disallow: [toElements(NOT_SHARED.filter((t) => t !== 'renderer')), ...nodeAndElectron] },
  {
    from: { element: { type: 'preload' } },
    disallow: [toElements(NOT_SHARED.filter((t) => t !== 'preload')), { to: { module: { origin: 'core' } } }],
  },
  // Nothing on the node side reaches into the renderer or the preload.
  { from: { element: { types: { anyOf: NODE_SIDE } } }, disallow: toElements(['renderer', 'preload']) },
  // core knows no api, no transport and no Electron (it runs in the CLI, in workers, in tests).
  {
    from: { element: { types: { anyOf: CORE } } },
    disallow: [toElements(['api', ...TRANSPORTS, 'recorder-package']), { to: { module: { source: 'electron' } } }],
  },
  // The database layer sits under the service areas, the recorder and memory-file IO.
  { from: { element: { types: { anyOf: ['db', 'text'] } } }, disallow: toElements(['core', 'recorder', 'files']) },
  { from: { element: { type: 'text' } }, disallow: toElements(['db']) },
  // The recorder is published on its own; of the service areas it uses only the health hook that chains each write.
  { from: { element: { type: 'recorder' } }, disallow: toElements(['core']) },
  { from: { element: { type: 'recorder' } }, allow: { to: { file: { path: 'src/core/health/hook.ts' } } } },
  // The api does not know which transport carries it.
  { from: { element: { type: 'api' } }, disallow: toElements(TRANSPORTS) },
  // The transports are siblings: none imports another (the CLI may start browser mode: `reflection open --web`).
  { from: { element: { type: 'electron' } }, disallow: toElements(['web', 'cli']) },
  { from: { element: { type: 'web' } }, disallow: toElements(['electron', 'cli']) },
  { from: { element: { type: 'cli' } }, disallow: toElements(['electron']) },
  // The published recorder entry wraps the recorder core only.
  { from: { element: { type: 'recorder-package' } }, disallow: toElements(['api', ...TRANSPORTS]) },
  // Electron is loaded at run time only by the preload and by the shell's one guarded require (src/electron/main.ts):
  // everything else takes its API as a parameter and imports only its types, so tests and the CLI run under Node.
  {
    from: { element: { types: { anyOf: NOT_SHARED.filter((t) => t !== 'preload') } } },
    dependency: { kind: 'value' },
    disallow: { to: { module: { source: 'electron' } } },
  },
  // ...except the entry point, whose guarded require is the one place the real module is loaded.
  { from: { file: { path: 'src/electron/main.ts' } }, dependency: { kind: 'value' }, allow: { to: { module: { source: 'electron' } } } },
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
      '@typescript-eslint/no-unused-vars': [
        'error',
        { args: 'none', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
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
    // Functions fit on a screen: 80 lines of logic. Components (.tsx) get 150, since their JSX trees are layout.
    files: ['src/**/*.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }] },
  },
  {
    files: ['src/**/*.tsx'],
    rules: { 'max-lines-per-function': ['error', { max: 150, skipBlankLines: true, skipComments: true }] },
  },
  {
    // SQL lives in the repositories (src/core/db/repositories/): a statement prepared anywhere else is flagged.
    files: ['src/**/*.{ts,tsx}'],
    ignores: ['src/core/db/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name='prepare']",
          message: 'SQL belongs in a repository under src/core/db/repositories/: call a named repository function instead of .prepare().',
        },
        {
          selector: "CallExpression[callee.name='stmt']",
          message: 'stmt() is for repositories under src/core/db/repositories/: call a named repository function instead.',
        },
      ],
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
