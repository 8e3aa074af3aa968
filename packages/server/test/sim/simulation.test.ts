/**
 * Many seeds of the deterministic simulation. A failing seed replays exactly:
 * `SIM_SEED=1234 npx vitest run packages/server/test/sim`.
 */
import { describe, expect, it } from 'vitest';
import { SimCluster } from './sim-cluster.js';

const only = process.env.SIM_SEED === undefined ? undefined : Number(process.env.SIM_SEED);
const SEEDS = only === undefined ? Array.from({ length: 120 }, (_, i) => 1000 + i) : [only];

describe('deterministic cluster simulation', () => {
  it.each(SEEDS)(
    'seed %i: after healing, replicas converge, no acknowledged write is lost and no replaced version returns',
    async (seed) => {
      const sim = new SimCluster(seed);
      await sim.run(1500, 0.05);
      await sim.heal(3);
      const report = await sim.check();
      expect(report.acked).toBeGreaterThan(0);
      const { lost, diverged, phantom, resurrected } = report;
      expect({ lost, diverged, phantom, resurrected }).toEqual({
        lost: [],
        diverged: [],
        phantom: [],
        resurrected: [],
      });
    },
  );

  it('replays a seed exactly', async () => {
    const reports = [];
    for (let i = 0; i < 2; i++) {
      const sim = new SimCluster(77);
      await sim.run(300, 0.1);
      await sim.heal(2);
      reports.push(await sim.check());
    }
    expect(reports[1]).toEqual(reports[0]);
  });
});
