import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Two-core CI machines: end-to-end suites spawn real peers (tshark, ipmitool, tmux).
    maxWorkers: 2,
  },
});
