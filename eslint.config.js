// Lint rules: the recommended sets of ESLint and typescript-eslint, plus a few habits of ours.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'data/', 'dist/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        Buffer: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': [
        'error',
        { selector: 'TSEnumDeclaration', message: 'Use an `as const` object instead of an enum.' },
      ],
    },
  },
  {
    // The dashboard's scripts run in the browser (uPlot is loaded before them as a global).
    files: ['src/ui/assets/**/*.js'],
    languageOptions: { sourceType: 'script', globals: { ...globals.browser, uPlot: 'readonly' } },
  },
  {
    // domain/ is pure: no I/O, no framework, no storage.
    files: ['src/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            'node:fs*',
            'node:net',
            'node:http',
            'fastify*',
            'kysely',
            'pg',
            'better-sqlite3',
            '../storage/*',
            '../http/*',
          ],
        },
      ],
    },
  },
  {
    // One way down: the API, the dashboard and the command line call services/, and only
    // services/ call storage/. The tracker runs beside them and reports through domain/tracker-status.ts.
    files: ['src/http/**/*.ts', 'src/ui/**/*.ts', 'src/cli/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/storage/*', '**/storage/**'],
              message: 'http/, ui/ and cli/ reach the store through services/ only.',
            },
            {
              group: ['**/tracker/*', '**/tracker/**'],
              message: 'http/, ui/ and cli/ see the tracker through domain/tracker-status.ts only.',
            },
            {
              group: ['**/app-deps.ts', '**/compose.ts', '**/app.ts', '**/serve.ts', '**/main.ts'],
              message: 'the composer hands http/, ui/ and cli/ what they use; they never import it.',
            },
          ],
        },
      ],
    },
  },
  {
    // Rows become domain types inside storage/: the tracker and the use cases see Account, Post and
    // the repositories' own types, never a table's row, its JSON columns or the mapping code.
    files: ['src/tracker/**/*.ts', 'src/services/**/*.ts', 'src/stream/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/storage/schema.ts', '**/storage/json-column.ts', '**/storage/*-map.ts'],
              message: 'Rows are mapped to domain types in storage/; use the repository functions.',
            },
          ],
        },
      ],
    },
  },
  {
    // What ships (src/ and demo/, compiled into dist/) never reaches into the tests or benches, which
    // are not built. A rule of its own name, so that the layer rules above do not replace it.
    files: ['src/**/*.ts', 'demo/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/test/*', '**/test/**', '**/bench/*', '**/bench/**'],
              message: 'Shipped code does not import test/ or bench/: they are not built into dist/.',
            },
          ],
        },
      ],
    },
  },
);
