// Dependency rules of the layout (see README "File map"): the core does no I/O.
// Only chassis/io/, chassis/cli/, chassis/main.ts and ui/ may touch the OS, sockets, SQLite or the screen.
import tseslint from 'typescript-eslint';

const ioModules = ['node:dgram', 'node:fs', 'node:fs/promises', 'node:net', 'node:child_process', 'serialport',
  '@serialport/*', 'better-sqlite3', 'blessed', 'pino'];
const ioRule = {
  'no-restricted-imports': ['error', {
    patterns: [{ group: ioModules, message: 'the core does no I/O: put OS access in chassis/io/ and pass a port in' }],
  }],
  'no-restricted-globals': ['error',
    { name: 'setTimeout', message: 'use the injected Clock' },
    { name: 'setInterval', message: 'use the injected Clock' }],
  'no-restricted-properties': ['error',
    { object: 'Date', property: 'now', message: 'use the injected Clock' },
    { object: 'Math', property: 'random', message: 'use the injected Random' }],
};

export default tseslint.config(
  { ignores: ['node_modules/**', 'bin/**'] },
  {
    files: ['**/*.ts'],
    languageOptions: { parser: tseslint.parser },
  },
  {
    files: ['board/**/*.ts', 'chassis/**/*.ts'],
    ignores: ['chassis/io/**', 'chassis/cli/**', 'chassis/main.ts'],
    rules: ioRule,
  },
  ...[['board/switch/**/*.ts', '**/processor/**'], ['board/processor/**/*.ts', '**/switch/**'], ['board/**/*.ts', null]].map(([files, other]) => ({
    files: [files],
    ...(other ? {} : { ignores: ['board/switch/**', 'board/processor/**'] }),
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['**/chassis/**', '**/ui/**'], message: 'board/ is the bottom layer' },
          ...(other ? [{ group: [other], message: 'switch and processor boards never import each other' }] : []),
          { group: ioModules, message: 'the core does no I/O: put OS access in chassis/io/ and pass a port in' },
        ],
      }],
    },
  })),
);
