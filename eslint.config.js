// Lint: TypeScript rules plus the layer boundaries of the project (core → nothing; engine → core; app → core, engine).
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

const tfjsOrUi = [
  { group: ['@tensorflow/*'], message: 'src/core is pure TypeScript: no tfjs (put tensor code in src/engine).' },
  { group: ['react', 'react-dom', 'react/*', 'recharts', 'zustand'], message: 'src/core is pure TypeScript: no React/UI libraries.' },
  { group: ['**/engine/**', '**/app/**', '**/cli/**'], message: 'src/core must not import from engine, app or cli (imports go one way).' },
  { group: ['node:*', 'fs', 'path', 'child_process'], message: 'src/core runs in the browser too: no Node built-ins.' },
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'public/**', 'runs/**', 'coverage/**'] },
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
      'no-restricted-imports': ['error', { patterns: [
        { group: ['react', 'react-dom', 'react/*', 'recharts', 'zustand'], message: 'src/engine runs in workers and Node: no React/UI.' },
        { group: ['**/app/**', '**/cli/**'], message: 'src/engine must not import from app or cli.' },
        { group: ['node:*', 'fs', 'path', 'child_process'], message: 'src/engine runs in a browser worker too: no Node built-ins (Node-only code lives in cli/).' },
      ] }],
      'no-restricted-globals': ['error', 'window', 'document', 'localStorage'],
    },
  },
);
