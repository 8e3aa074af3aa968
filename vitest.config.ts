import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const TESTS = ['packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts', 'examples/*/test/**/*.test.ts'];
/**
 * Files that each need a process of their own: two measure their process's heap (another file's
 * leftovers in it would count), one tests the process-wide event-loop sampler, and two fake the
 * timers (a process-wide timer that re-arms itself while they run, like that sampler, would be
 * armed on the fake clock and never fire again).
 */
const OWN_PROCESS = [
  'packages/server/src/util/deadlines.test.ts',
  'packages/server/src/storage/change-queue.test.ts',
  'packages/server/src/node/metrics-loop.test.ts',
  'packages/server/src/storage/group-commit-hold.test.ts',
  'packages/server/src/transport/pipe-hold.test.ts',
];
/**
 * Started first, longest first (a fresh clone has no timings cached, and vitest would otherwise take
 * files in path order and end on a long one with the other worker idle). The two in-process models
 * come first so that each starts in a fresh worker: after other files in the same process they run
 * up to twice as long.
 */
const FIRST = [
  'packages/server/test/strong-model/strong-model.test.ts',
  'packages/server/test/sim/simulation.test.ts',
  'packages/server/test/membership.test.ts',
  'packages/server/test/pack-install.test.ts',
  'examples/web-store/test/browser.test.ts',
  'packages/server/test/crash-loop.test.ts',
  'packages/client/test/docs.test.ts',
  'packages/server/test/handoff.test.ts',
  'examples/web-store/test/split-screen.test.ts',
  'examples/web-store/test/two-tabs.test.ts',
  'packages/bench/src/ab.test.ts',
];

// A renamed or deleted file would drop out of these lists silently (and lose its order or its process).
for (const path of [...FIRST, ...OWN_PROCESS]) {
  if (!existsSync(fileURLToPath(new URL(path, import.meta.url))))
    throw new Error(`vitest.config.ts names ${path}, which does not exist: update FIRST or OWN_PROCESS.`);
}

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification): number => {
      const i = FIRST.findIndex((path) => spec.moduleId.endsWith(path));
      return i === -1 ? FIRST.length : i;
    };
    // Stable: files not named keep vitest's order (its group order first).
    return (await super.sort(files)).sort(
      (a, b) =>
        a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder || rank(a) - rank(b),
    );
  }
}

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
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        extends: true,
        // Two files at a time: the cluster tests mostly wait on real processes and timers, so two at
        // once nearly halve the suite's time on a 2-core machine (docs/testing.md, "Test time").
        // A worker runs file after file in one process, sharing its module cache, instead of a fresh
        // process per file: a fork and its imports cost about a second of CPU each, and the suite is
        // bound by CPU. So a test file must leave nothing behind: it stops what it started (nodes,
        // servers, timers) and restores what it changed; a file that cannot is in OWN_PROCESS.
        test: {
          name: 'suite',
          include: TESTS,
          exclude: [...configDefaults.exclude, CHAOS, ...OWN_PROCESS],
          isolate: false,
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: { name: 'own-process', include: OWN_PROCESS, maxWorkers: 2, sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        test: { name: 'chaos', include: [CHAOS], maxWorkers: 1, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
