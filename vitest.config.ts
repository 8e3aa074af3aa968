import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

const TESTS = ['packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts', 'examples/*/test/**/*.test.ts'];
/** Runs alone, after the rest: its fault schedule and workload rates need the machine to itself. */
const CHAOS = 'packages/chaos/test/chaos.test.ts';

export default defineConfig({
  resolve: {
    alias: {
      '@tessera/core': fileURLToPath(new URL('./packages/core/src/index.ts', import.meta.url)),
    },
  },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        // Two files at a time: the cluster tests mostly wait on real processes and timers, so two at
        // once nearly halve the suite's time on a 2-core machine (docs/testing.md, "Test time").
        test: {
          name: 'suite',
          include: TESTS,
          exclude: [...configDefaults.exclude, CHAOS],
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: { name: 'chaos', include: [CHAOS], maxWorkers: 1, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
