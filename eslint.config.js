// Lint: TypeScript rules plus the layer boundaries of the project (core → nothing; engine → core; app → core, engine).
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
