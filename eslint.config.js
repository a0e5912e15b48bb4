// Lint rules: typescript-eslint's type-checked recommendations over src/, test/ and the
// SDK's sources; the layering between src/ folders lives in .dependency-cruiser.cjs.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'packages/*/dist/**',
      'node_modules/**',
      'bench/**',
      'scripts/**',
      'data/**',
      '*.config.js',
      '.dependency-cruiser.cjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // `_name` marks a parameter an interface requires but this implementation does not read;
      // `const { key: _key, ...rest } = value` is how a copy without `key` is made.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      // A caught error or a caller's abort reason is `unknown` and is passed on exactly as it came.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // node:test's describe/it/test return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            {
              from: 'package',
              package: 'node:test',
              name: ['describe', 'it', 'test', 'suite', 'before', 'after', 'beforeEach', 'afterEach'],
            },
          ],
        },
      ],
      // Tests read JSON answers as `any` on purpose: the assertion is the type check.
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      // Fakes implement async interfaces with bodies that need no await.
      '@typescript-eslint/require-await': 'off',
      // assert.* and t.mock.* are plain functions, not methods that need `this`.
      '@typescript-eslint/unbound-method': 'off',
    },
  },
);
