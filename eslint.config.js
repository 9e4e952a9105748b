import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', '.homebridge/', 'jest.config.js', 'eslint.config.js', 'test/fixtures/families/'] },
  eslint.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-extraneous-class': 'off',
      // The SQLite driver loads through src/store/sqlite-driver.ts, which refuses an unsupported Node
      // with one sentence before the binary can crash: values come from there, types from 'better-sqlite3'.
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { paths: [{ name: 'better-sqlite3', message: "Import Database from src/store/sqlite-driver.ts: it refuses an unsupported Node before loading the driver (docs/decisions/runtimes.md).", allowTypeImports: true }] },
      ],
    },
  },
  {
    // The typed client (src/client/) is the API seen from outside: it imports no server layer,
    // only its own files and the domain's pure types (docs/architecture.md "Layers").
    files: ['src/client/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['../*', '!../domain', '!../domain/*'],
              message: 'The typed client imports no server code: declare the bodies it needs in src/client/api-types.ts (type tests in test/unit/client keep them in step).',
            },
          ],
        },
      ],
    },
  },
  {
    // The settings page (plain JavaScript shipped as is): the browser script and server.js.
    files: ['homebridge-ui/**/*.js', 'test/support/settings-ui-host/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      parserOptions: { projectService: false, project: null },
      globals: {
        window: 'readonly', document: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', Option: 'readonly',
        fetch: 'readonly', EventSource: 'readonly', JSON: 'readonly', Error: 'readonly', Intl: 'readonly',
      },
    },
  },
  {
    files: ['scripts/**/*.mjs', 'test/support/**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      parserOptions: { projectService: false, project: null },
      globals: { process: 'readonly', console: 'readonly', URL: 'readonly', setTimeout: 'readonly' },
    },
  },
);
