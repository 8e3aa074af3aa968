/**
 * What fast-check generates for one run of the strong-key model: the seed of the network's and the
 * nodes' randomness, the cluster's shape, the faults with their times, and each client's list of
 * operations. Shrinking removes faults and operations, so a counterexample reads as a short story.
 */
import fc from 'fast-check';

/** Faults and the ring change happen in [0, ACTIVE_MS]; then everything heals. */
export const ACTIVE_MS = 2_500;
export const STOCK_KEYS = ['stock/x', 'stock/y'] as const;
export const ACCOUNT_KEYS = ['accounts/a', 'accounts/b', 'accounts/c'] as const;
/** Keys written once and read only at the end: where a replica's lag lasts. */
export const COLD_KEYS = ['stock/cold0', 'stock/cold1', 'stock/cold2', 'stock/cold3'] as const;

export type FaultKind = 'kill' | 'wipe' | 'clock' | 'partition';

export interface Fault {
  /** From the start, or (anchored) modulo 600 ms after the joining node confirmed its partitions. */
  readonly atMs: number;
  /** Aimed at the ring change: hits the joining node right after it reported its adoption done. */
  readonly anchored: boolean;
  readonly kind: FaultKind;
  /** Index into the nodes (modulo their number). */
  readonly node: number;
  /** A partition's second node on the same side (-1: `node` alone). */
  readonly other: number;
  /** How long a node stays down, or a partition lasts. */
  readonly durationMs: number;
  /** A clock step. */
  readonly stepMs: number;
}

export type ClientOp =
  | {
      readonly kind: 'get' | 'put' | 'cas' | 'del';
      readonly key: number;
      readonly node: number;
      readonly thinkMs: number;
    }
  | {
      readonly kind: 'transfer';
      readonly from: number;
      readonly to: number;
      readonly amount: number;
      readonly node: number;
      /** With a clientRequestToken (else no retry is possible). */
      readonly token: boolean;
      /** Where an unknown outcome is retried with the same token, how many times at most, after how long. */
      readonly retryNode: number;
      readonly retries: number;
      readonly retryAfterMs: number;
      /** Read the accounts with a snapshot (else one get per account). */
      readonly snapshot: boolean;
      /** Also check the third account's version (a conditionCheck). */
      readonly check: boolean;
      /** Also put a stock key, unconditionally (index into STOCK_KEYS). */
      readonly restock: number | null;
      readonly thinkMs: number;
    }
  | { readonly kind: 'snapshot'; readonly node: number; readonly thinkMs: number };

export interface Plan {
  readonly seed: number;
  /** Owners at the start; one more node exists and may join. */
  readonly owners: 3 | 4;
  readonly joinAtMs: number | null;
  /** When each of the first COLD_KEYS is written (once). */
  readonly coldAtMs: readonly number[];
  readonly net: { readonly dropRate: number; readonly dupRate: number; readonly slowRate: number };
  readonly faults: readonly Fault[];
  readonly clients: readonly (readonly ClientOp[])[];
}

const node = fc.nat(4);
const thinkMs = fc.integer({ min: 0, max: 100 });

const registerOp = fc.record({
  kind: fc.constantFrom('get' as const, 'put' as const, 'cas' as const, 'del' as const),
  key: fc.nat(STOCK_KEYS.length - 1),
  node,
  thinkMs,
});

const transferOp = fc.record({
  kind: fc.constant('transfer' as const),
  from: fc.nat(2),
  to: fc.nat(2),
  amount: fc.integer({ min: 1, max: 40 }),
  node,
  token: fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
  retryNode: node,
  retries: fc.nat(2),
  retryAfterMs: fc.integer({ min: 10, max: 1_500 }),
  snapshot: fc.boolean(),
  check: fc.boolean(),
  restock: fc.option(fc.nat(STOCK_KEYS.length - 1), { nil: null }),
  thinkMs,
});

const snapshotOp = fc.record({ kind: fc.constant('snapshot' as const), node, thinkMs });

export const clientOp: fc.Arbitrary<ClientOp> = fc.oneof(
  { weight: 5, arbitrary: registerOp },
  { weight: 4, arbitrary: transferOp },
  { weight: 1, arbitrary: snapshotOp },
);

export const fault: fc.Arbitrary<Fault> = fc.record({
  atMs: fc.integer({ min: 0, max: ACTIVE_MS }),
  anchored: fc.boolean(),
  kind: fc.constantFrom('kill' as const, 'wipe' as const, 'clock' as const, 'partition' as const),
  node,
  other: fc.oneof({ weight: 2, arbitrary: fc.constant(-1) }, { weight: 1, arbitrary: node }),
  durationMs: fc.integer({ min: 50, max: 2_000 }),
  stepMs: fc.integer({ min: -2_000, max: 3_000 }),
});

export const plan: fc.Arbitrary<Plan> = fc.record({
  seed: fc.nat(),
  owners: fc.constantFrom(3 as const, 4 as const),
  joinAtMs: fc.option(fc.integer({ min: 0, max: ACTIVE_MS }), { nil: null, freq: 4 }),
  coldAtMs: fc.array(fc.integer({ min: 0, max: ACTIVE_MS }), { maxLength: COLD_KEYS.length }),
  net: fc.record({
    dropRate: fc.constantFrom(0, 0.05, 0.15, 0.25),
    dupRate: fc.constantFrom(0, 0.05, 0.2),
    slowRate: fc.constantFrom(0, 0.05, 0.2),
  }),
  faults: fc.array(fault, { maxLength: 8 }),
  clients: fc.array(fc.array(clientOp, { minLength: 1, maxLength: 16 }), { minLength: 2, maxLength: 4 }),
});

/**
 * A ring change aimed at: n4 joins a 3-node cluster and loses its disk (a quick restart on an
 * empty one) soon after it confirmed its partitions, under lossy links, with cold keys written
 * before the join.
 */
export const joinerWipedPlan: fc.Arbitrary<Plan> = fc
  .record({
    seed: fc.nat(),
    wipeAtMs: fc.integer({ min: 0, max: 599 }),
    clients: fc.array(fc.array(clientOp, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 2 }),
  })
  .map(({ seed, wipeAtMs, clients }) => ({
    seed,
    owners: 3 as const,
    joinAtMs: 300,
    coldAtMs: [100, 150, 200, 250],
    net: { dropRate: 0.15, dupRate: 0, slowRate: 0 },
    faults: [
      {
        atMs: wipeAtMs,
        anchored: true,
        kind: 'wipe' as const,
        node: 0,
        other: -1,
        durationMs: 40,
        stepMs: 0,
      },
    ],
    clients,
  }));

/** The same plans with every clock step ±11 minutes: beyond how long a finished transaction's record is kept. */
export const bigClockStepPlan: fc.Arbitrary<Plan> = plan.map((p) => ({
  ...p,
  faults: p.faults.map((f) =>
    f.kind === 'clock' ? { ...f, stepMs: Math.sign(f.stepMs || 1) * 11 * 60_000 } : f,
  ),
}));
