/**
 * The model-based property test of strong keys and transactions (docs/testing.md: "write the
 * model-based property test"): the real server classes on 4–5 simulated nodes in one process, a
 * simulated network with delays, drops, duplicates and partitions, kills, wipes, clock steps, a
 * node joining mid-run with gossip lag, and clients doing single-key ops and bank transfers
 * (harness: run.ts). Every key's history must be linearizable, every majority of a key's primaries
 * must hold what clients saw, the bank must balance and no transaction may stay pending. Each
 * mutant (mutants.ts) breaks one rule of the protocol, and the property must catch it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JOINER_FORGETS, MUTANTS } from './mutants.js';
import type { Hooks } from './node.js';
import { bigClockStepPlan, joinerWipedPlan, type Plan, plan } from './plan.js';
import { runPlan, type Verdict } from './run.js';

/** Runs of the property per test run (40–100 ms each). */
const RUNS = 150;
/** Runs a mutant may take at most before the property must have caught it (each is caught at 5–30%). */
const MUTANT_BUDGET = 150;

/** The shrunk counterexample with 11-minute clock steps (see the skipped test). */
const CLOCK_AHEAD_11_MIN: Plan = JSON.parse(
  '{"seed":741146004,"owners":4,"joinAtMs":455,"coldAtMs":[613],"net":{"dropRate":0,"dupRate":0.05,"slowRate":0.2},"faults":[{"atMs":0,"anchored":true,"kind":"clock","node":0,"other":0,"durationMs":50,"stepMs":660000}],"clients":[[{"kind":"transfer","from":1,"to":2,"amount":1,"node":0,"token":true,"retryNode":0,"retries":1,"retryAfterMs":214,"snapshot":false,"check":false,"restock":1,"thinkMs":19},{"kind":"get","key":0,"node":0,"thinkMs":0}],[{"kind":"snapshot","node":4,"thinkMs":21},{"kind":"transfer","from":0,"to":0,"amount":1,"node":0,"token":false,"retryNode":0,"retries":0,"retryAfterMs":10,"snapshot":false,"check":false,"restock":null,"thinkMs":0}],[{"kind":"put","key":0,"node":2,"thinkMs":45},{"kind":"get","key":1,"node":0,"thinkMs":62},{"kind":"cas","key":0,"node":2,"thinkMs":64},{"kind":"transfer","from":0,"to":0,"amount":1,"node":0,"token":true,"retryNode":0,"retries":0,"retryAfterMs":10,"snapshot":false,"check":false,"restock":null,"thinkMs":0}],[{"kind":"cas","key":0,"node":1,"thinkMs":75},{"kind":"put","key":0,"node":0,"thinkMs":50},{"kind":"transfer","from":0,"to":1,"amount":1,"node":2,"token":false,"retryNode":0,"retries":0,"retryAfterMs":10,"snapshot":false,"check":false,"restock":0,"thinkMs":62},{"kind":"snapshot","node":0,"thinkMs":16}]]}',
);

/**
 * Found by CI (seed 1293619051): n1's clock 11 minutes ahead, a transaction it began stayed
 * pending when it could not finish it (a join moved its keys), and every other node waited for
 * its expiry, written on n1's clock, 11 minutes away. A pending transaction now also expires once
 * a node has watched it pending for txnTimeoutMs on its monotonic clock (core/strong/expiry.ts).
 */
const COORDINATOR_AHEAD_11_MIN: Plan = JSON.parse(
  '{"seed":2113924053,"owners":3,"joinAtMs":539,"coldAtMs":[],"net":{"dropRate":0,"dupRate":0,"slowRate":0},"faults":[{"atMs":0,"anchored":false,"kind":"clock","node":0,"other":0,"durationMs":50,"stepMs":660000}],"clients":[[{"kind":"transfer","from":0,"to":0,"amount":1,"node":0,"token":false,"retryNode":0,"retries":0,"retryAfterMs":10,"snapshot":false,"check":false,"restock":null,"thinkMs":56},{"kind":"put","key":1,"node":1,"thinkMs":100},{"kind":"cas","key":1,"node":0,"thinkMs":72},{"kind":"cas","key":0,"node":3,"thinkMs":96}],[{"kind":"transfer","from":0,"to":0,"amount":1,"node":0,"token":true,"retryNode":0,"retries":0,"retryAfterMs":10,"snapshot":false,"check":false,"restock":null,"thinkMs":15},{"kind":"transfer","from":0,"to":0,"amount":1,"node":0,"token":true,"retryNode":0,"retries":0,"retryAfterMs":10,"snapshot":false,"check":false,"restock":null,"thinkMs":41},{"kind":"transfer","from":0,"to":0,"amount":1,"node":0,"token":true,"retryNode":0,"retries":0,"retryAfterMs":10,"snapshot":false,"check":false,"restock":null,"thinkMs":22},{"kind":"transfer","from":2,"to":1,"amount":1,"node":1,"token":true,"retryNode":0,"retries":0,"retryAfterMs":10,"snapshot":false,"check":false,"restock":0,"thinkMs":0},{"kind":"snapshot","node":3,"thinkMs":48},{"kind":"put","key":0,"node":3,"thinkMs":0},{"kind":"transfer","from":1,"to":0,"amount":1,"node":0,"token":false,"retryNode":0,"retries":0,"retryAfterMs":10,"snapshot":false,"check":false,"restock":0,"thinkMs":75},{"kind":"get","key":0,"node":0,"thinkMs":17}]]}',
);

function report(verdict: Verdict): string {
  const problems = verdict.problems.join('\n').slice(0, 4_000);
  return `${verdict.problems.length} problems:\n${problems}\nwhat happened:\n${verdict.events.join('\n')}`;
}

const property = (plans: fc.Arbitrary<Plan>, hooks: Hooks = {}) =>
  fc.asyncProperty(plans, async (p: Plan) => {
    const verdict = await runPlan(p, hooks);
    if (verdict.problems.length > 0) throw new Error(report(verdict));
  });

/** The property must fail with these hooks: fast-check finds a counterexample within the budget. */
async function caught(plans: fc.Arbitrary<Plan>, hooks: Hooks): Promise<void> {
  const result = await fc.check(property(plans, hooks), {
    numRuns: MUTANT_BUDGET,
    seed: 42,
    endOnFailure: true,
  });
  expect(result.failed, `no counterexample in ${result.numRuns} runs`).toBe(true);
}

describe('strong keys and transactions, model-based', () => {
  it('every key is linearizable, the bank balances and no transaction stays pending, whatever the faults', async () => {
    await fc.assert(property(plan), { numRuns: RUNS, interruptAfterTimeLimit: 45_000 });
  }, 120_000);

  it('a joining node that loses its disk after confirming its partitions rebuilds before it votes', async () => {
    await fc.assert(property(joinerWipedPlan), { numRuns: 30 });
    await caught(joinerWipedPlan, JOINER_FORGETS);
  }, 60_000);

  // Keeping finished transaction records must not depend on clocks. The example is the shrunk
  // counterexample of the time it did: with its clock 11 minutes ahead, n5's sweep found a
  // transfer's record 10 minutes old as soon as it was committed and forgot it; the client, whose
  // first attempt went unanswered, retried with the same token, the retry found no record, ran
  // again, failed its conditions and answered TRANSACTION_CANCELED for a transfer that was applied
  // (the contract: a repeat within 10 minutes answers the first outcome). Records are now dropped
  // only once also kept that long on the sweeping node's monotonic clock.
  it('the same with clock steps of 11 minutes', async () => {
    await fc.assert(property(bigClockStepPlan), {
      numRuns: RUNS / 3,
      examples: [[CLOCK_AHEAD_11_MIN], [COORDINATOR_AHEAD_11_MIN]],
    });
  }, 120_000);

  it.each(Object.keys(MUTANTS))(
    'finds a counterexample with the mutant: %s',
    async (name) => {
      await caught(plan, MUTANTS[name]!);
    },
    60_000,
  );
});
