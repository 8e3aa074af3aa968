/**
 * The short chaos run of the test suite: 90 s of every fault (partitions both ways and one way,
 * stalled, slow and lossy links, kill -9, clock jumps, a leave during a partition, a wipe and rejoin
 * under the same node id, a clock stepped back across a restart, a kill -9 in the middle of a
 * write's fan-out, a node cut off for longer than the tombstone grace around deletes) against five
 * real node processes, under the set, cart and LWW workloads. It must lose no acknowledged add,
 * bring back no removed item or deleted version, and converge after healing. About 130 s of wall
 * time; longer runs: `pnpm chaos --duration-s 600` (docs/testing.md). Set CHAOS_SEED to replay
 * another schedule.
 */
import { describe, expect, it } from 'vitest';
import { chaosOptions } from '../src/options.js';
import { runChaos } from '../src/run.js';

const SEED = Number(process.env.CHAOS_SEED ?? 20261121);
/** The faults that act on one node's data or clock across a restart, and on deletes: each must run. */
const MUST_RUN = ['wipe', 'clock-back', 'crash-write', 'isolate'];

describe('chaos', () => {
  it('loses no acknowledged write, resurrects no removal or delete, and converges after every fault', async () => {
    const result = await runChaos(chaosOptions({ durationS: 90, seed: SEED }));
    // On failure the summary names every violation and the faults charged with it; the history and
    // timeline are in result.runDir.
    expect(result.report.valid, result.summary).toBe(true);
    const { set, cart, lww, convergence, ops } = result.report;
    expect(set.lost).toEqual([]);
    expect(cart.lost).toEqual([]);
    expect(cart.resurrected).toEqual([]);
    expect(lww.lost).toEqual([]);
    expect(lww.resurrected).toEqual([]);
    expect(convergence.notConverged).toEqual([]);
    expect(convergence.ringSettled).toBe(true);
    // The run did real work under real faults.
    expect(ops.ok, result.summary).toBeGreaterThan(300);
    expect(set.acknowledged).toBeGreaterThan(50);
    expect(cart.removesAcknowledged).toBeGreaterThan(20);
    expect(lww.writesAcknowledged).toBeGreaterThan(50);
    for (const kind of MUST_RUN)
      expect(result.faults[kind] ?? 0, `${kind}\n${result.summary}`).toBeGreaterThan(0);
    expect(Object.keys(result.faults).length, result.summary).toBeGreaterThanOrEqual(10);
  }, 400_000);
});
