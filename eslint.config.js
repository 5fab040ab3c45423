import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

export default tseslint.config(
  {ignores: ['dist/**', 'node_modules/**', '**/lib/**', 'bench/**']},
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        URL: 'readonly',
        Buffer: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly'
      }
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', {argsIgnorePattern: '^_', varsIgnorePattern: '^_'}],
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@actions/*'],
              message: 'Import @actions/* only in packages/core/src/adapters/ or an action package.'
            }
          ]
        }
      ]
    }
  },
  {
    files: [
      'packages/core/src/adapters/**',
      'packages/configure/src/**',
      'packages/build-push/src/**',
      'packages/bake/src/**'
    ],
    rules: {'no-restricted-imports': 'off'}
  }
);
