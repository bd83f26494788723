// Lint: TypeScript rules plus the layer boundaries of the project (core → nothing; engine → core; app → core, engine).
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

const tfjsOrUi = [
  { group: ['@tensorflow/*'], message: 'src/core is pure TypeScript: no tfjs (put tensor code in src/engine).' },
  {
    group: ['react', 'react-dom', 'react/*', 'recharts', 'zustand'],
    message: 'src/core is pure TypeScript: no React/UI libraries.',
  },
  {
    group: ['**/engine/**', '**/app/**', '**/cli/**'],
    message: 'src/core must not import from engine, app or cli (imports go one way).',
  },
  { group: ['node:*', 'fs', 'path', 'child_process'], message: 'src/core runs in the browser too: no Node built-ins.' },
];

// src/app imports go one way (test/app/importDirection.test.ts checks the same order exactly, by resolved file):
//   shared root modules (Field, Select, appRoot, …) < files/ < charts/ < publish/ < worker/'s protocol with the page
//   < the features' modules (.ts: stores, models, clients; replay < train < runs < demo < teaching < helps)
//   < the features' views (.tsx: demo < teaching < replay < runs < train < helps) < the shell (App, main, Overview)
//   < worker/'s programs (entries and handlers: a page starts them from a URL, nothing imports them).
// Each file may import its own layer and those before it. Here specifiers are matched by the lab's naming: a view's
// file name starts with a capital (TrainView), a module's with a small letter (liveRun).
const WORKER_PROTOCOL = ['protocol', 'runControl', 'wasmRuntimeChannel'];
const APP_LAYERS = [
  {
    name: 'shared root modules',
    files: ['src/app/*.ts', 'src/app/*.tsx'],
    ignores: ['src/app/App.tsx', 'src/app/main.tsx', 'src/app/Overview.tsx'],
  },
  { name: 'files/', folder: 'files' },
  { name: 'charts/', folder: 'charts' },
  { name: 'publish/', folder: 'publish' },
  { name: "worker/'s protocol", folder: 'worker', only: WORKER_PROTOCOL },
  ...['replay', 'train', 'runs', 'demo', 'teaching', 'helps'].map((f) => ({
    name: `${f}/ modules`,
    folder: f,
    kind: 'module',
  })),
  ...['demo', 'teaching', 'replay', 'runs', 'train', 'helps'].map((f) => ({
    name: `${f}/ views`,
    folder: f,
    kind: 'view',
  })),
  { name: 'the shell', files: ['src/app/App.tsx', 'src/app/main.tsx', 'src/app/Overview.tsx'], shell: true },
  { name: "worker/'s programs", folder: 'worker', except: WORKER_PROTOCOL },
];

/** The files of one layer, as eslint globs. */
function layerFiles(layer) {
  if (layer.files) return { files: layer.files, ignores: layer.ignores ?? [] };
  const dir = `src/app/${layer.folder}`;
  if (layer.only) return { files: layer.only.map((n) => `${dir}/${n}.ts`), ignores: [] };
  if (layer.except)
    return { files: [`${dir}/**/*.ts`, `${dir}/**/*.tsx`], ignores: layer.except.map((n) => `${dir}/${n}.ts`) };
  if (layer.kind === 'module') return { files: [`${dir}/**/*.ts`], ignores: [] };
  if (layer.kind === 'view') return { files: [`${dir}/**/*.tsx`], ignores: [] };
  return { files: [`${dir}/**/*.ts`, `${dir}/**/*.tsx`], ignores: [] };
}

/** A regex over import specifiers that names `target`'s files, seen from a file in `fromFolder` (null: src/app). */
function layerSpecifier(target, fromFolder) {
  const names = (list) => `(${list.join('|')})$`;
  const base = target.kind === 'module' ? '[a-z][^/]*$' : target.kind === 'view' ? '[A-Z][^/]*$' : '';
  const rest = target.only ? names(target.only) : target.except ? `(?!${names(target.except)})` : base;
  if (target.shell) return fromFolder === null ? '^\\./(App|main|Overview)$' : '^\\.\\./(App|main|Overview)$';
  if (target.files) return null; // the shared root modules sit at the bottom: nothing is forbidden to import them
  if (target.folder === fromFolder) return `^\\./${rest}`;
  return fromFolder === null ? `^\\./${target.folder}/${rest}` : `^\\.\\./${target.folder}/${rest}`;
}

const appOrder = APP_LAYERS.map((layer, i) => {
  const fromFolder = layer.folder ?? null;
  const patterns = APP_LAYERS.slice(i + 1)
    .map((target) => ({ target, regex: layerSpecifier(target, fromFolder) }))
    .filter(({ regex }) => regex !== null)
    .map(({ target, regex }) => ({
      regex,
      caseSensitive: true,
      message: `src/app imports go one way: ${layer.name} must not import ${target.name} (the order is in eslint.config.js).`,
    }));
  return { ...layerFiles(layer), rules: { 'no-restricted-imports': ['error', { patterns }] } };
}).filter((block) => block.rules['no-restricted-imports'][1].patterns.length > 0);

/** The src/app import-direction blocks alone (test/app/importDirection.test.ts lints a back-arrow with them). */
export const appImportBlocks = appOrder;

const enginePatterns = [
  {
    group: ['react', 'react-dom', 'react/*', 'recharts', 'zustand'],
    message: 'src/engine runs in workers and Node: no React/UI.',
  },
  { group: ['**/app/**', '**/cli/**'], message: 'src/engine must not import from app or cli.' },
  {
    group: ['node:*', 'fs', 'path', 'child_process'],
    message: 'src/engine runs in a browser worker too: no Node built-ins (Node-only code lives in cli/).',
  },
];

export default tseslint.config(
  // .device/: the device kit's bundles (bench/device/kit.sh), generated and git-ignored
  { ignores: ['dist/**', 'node_modules/**', 'public/**', 'runs/**', 'coverage/**', '.device/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  // typed rules that catch what the compiler does not: promises left floating or passed where a void callback is
  // expected, and `any` flowing into typed code
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unsafe-assignment': 'error',
      '@typescript-eslint/no-unsafe-member-access': 'error',
      '@typescript-eslint/no-unsafe-call': 'error',
      '@typescript-eslint/no-unsafe-return': 'error',
      '@typescript-eslint/no-unsafe-argument': 'error',
    },
  },
  // tests read JSON files whose shape they assert: `any` from JSON.parse is allowed there, floating promises are not
  {
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
    },
  },
  // the React hooks rules (call order, effect dependencies) for the UI
  {
    files: ['src/app/**/*.tsx', 'src/app/**/*.ts'],
    plugins: { 'react-hooks': reactHooks },
    rules: reactHooks.configs.recommended.rules,
  },
  {
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: tfjsOrUi }],
      'no-restricted-globals': ['error', 'window', 'document', 'navigator', 'localStorage', 'indexedDB', 'process'],
    },
  },
  {
    files: ['src/engine/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: enginePatterns }],
      'no-restricted-globals': ['error', 'window', 'document', 'localStorage'],
    },
  },
  // inside the engine: the fused kernels sit below the losses they fuse, and the trainer above the modules beside it
  {
    files: ['src/engine/kernels/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...enginePatterns,
            {
              group: ['../losses/*'],
              message: 'kernels/ sit below losses/: share a type through a module below both.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/engine/*.ts'],
    // a reader of the trainer's checkpoints for the page's trajectory viewer, above the trainer: nothing there imports it
    ignores: ['src/engine/checkpointProbe.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...enginePatterns,
            {
              group: ['./trainer/*'],
              message: 'trainer/ is built on the modules beside it: they import nothing from it.',
            },
          ],
        },
      ],
    },
  },
  // bench/ takes core and engine; cli/ drives the bench page (bench/browser/protocol.ts), so bench imports no cli/
  {
    files: ['bench/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/cli/*'], message: 'bench/ must not import cli/ (cli/ imports the bench page).' }] },
      ],
    },
  },
  ...appOrder,
);
