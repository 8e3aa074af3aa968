/** What every workload worker shares: a client, the history, a clock, and the loop that runs it. */
import { setTimeout as sleep } from 'node:timers/promises';
import { TesseraClient, TesseraError } from '@tessera/client';
import { between, type Rng } from '@tessera/core';
import type { Completion, History, WeakWorkload } from '../history.js';
import { clientAuthOptions } from '../http.js';
import type { StrongRoutes } from './strong-http.js';

/** Keys of one epoch take the load for this long; then fresh keys, so values and tombstones stay small. */
export const EPOCH_MS = 30_000;

/** Who records an op: the history and the process (one op at a time) it is recorded under. */
export interface Recorder {
  readonly process: string;
  readonly history: History;
  /** Aborts ops still running when the run stops waiting for them (they complete as `info`). */
  readonly signal?: AbortSignal;
}

/** Where an op goes: the routing client, or a client bound to one node (`via`), maybe with W=1. */
export interface Target {
  readonly client: TesseraClient;
  readonly via?: string;
  readonly w?: number;
}

/**
 * While the isolate fault has a node cut off: a client bound to it with R=1 and W=1 (the only
 * quorum it can reach), and one bound to a node on the other side with the default quorums.
 */
export interface Isolation {
  readonly node: string;
  readonly weak: TesseraClient;
  readonly other: string;
  readonly otherClient: TesseraClient;
}

export interface WorkerContext extends Recorder {
  readonly client: TesseraClient;
  readonly random: Rng;
  /** The worker's wall clock, ms: skewed ahead or behind under the clock fault. */
  readonly clockMs: () => number;
  /** Unique numbers shared by the workers of a run. */
  readonly nextId: () => number;
  readonly keysPerEpoch: number;
  readonly signal: AbortSignal;
  /** The isolate fault's clients while it is up, else undefined. */
  readonly isolation: () => Isolation | undefined;
  /** Where the strong workloads send their plain HTTP requests. */
  readonly strong: StrongRoutes;
}

/** One op: the worker records its invoke and completion. */
export type Step = (ctx: WorkerContext) => Promise<void>;

/** A key of the workload in the current epoch. */
export function pickKey(ctx: WorkerContext, workload: WeakWorkload): string {
  const epoch = Math.floor(ctx.history.now() / EPOCH_MS);
  return `${workload}-e${epoch}-k${between(ctx.random, 0, ctx.keysPerEpoch - 1)}`;
}

/**
 * The worker's own routing client, or, during an isolate fault and `share` of the time, the node
 * cut off (R=W=1), when it replicates `key`. (A write it takes as a fallback stays there alone, and
 * a copy no replica can reach for the whole grace period may be dropped: docs/consistency.md.)
 */
export async function pickTarget(ctx: WorkerContext, key: string, share = 0.5): Promise<Target> {
  const own = { client: ctx.client };
  const isolation = ctx.isolation();
  if (isolation === undefined || ctx.random() >= share) return own;
  return (await replicates(ctx, isolation.node, key)) ? weakTarget(isolation) : own;
}

/** Whether `node` is a replica of `key` in the ring the worker's client knows. */
export async function replicates(ctx: WorkerContext, node: string, key: string): Promise<boolean> {
  const routes = await ctx.client.routesFor(key).catch(() => []);
  return routes.some((r) => r.nodeId === node && r.role === 'replica');
}

export function weakTarget(isolation: Isolation): Target {
  return { client: isolation.weak, via: isolation.node, w: 1 };
}

/** The op fields that say where it went (none for the routing client). */
export function targetFields(target: Target): { via?: string; w?: number } {
  return {
    ...(target.via === undefined ? {} : { via: target.via }),
    ...(target.w === undefined ? {} : { w: target.w }),
  };
}

/** How a failed op completes: `fail` only when the write surely was not applied. */
export function completionOf(err: unknown, mayHaveRetried: boolean): Completion {
  if (!TesseraError.is(err)) return 'info';
  if (mayHaveRetried) return 'info';
  return err.maybeApplied ? 'info' : 'fail';
}

export function errorText(err: unknown): string {
  return TesseraError.is(err) ? `${err.code}: ${err.message}` : String(err);
}

/** A client of the run; `pinned`: it talks to its one node only; `weak`: R=1 and W=1. */
export function createClient(
  nodes: readonly string[],
  o: { readonly pinned?: boolean; readonly weak?: boolean } = {},
): TesseraClient {
  return new TesseraClient({
    nodes,
    ...(o.pinned === true ? { routing: false } : {}),
    ...(o.weak === true ? { r: 1, w: 1 } : {}),
    timeoutMs: 3_000,
    retries: 2,
    ringRefreshMs: 2_000,
    nodeDownMs: 2_000,
    backoff: { baseMs: 20, maxMs: 500 },
    ...clientAuthOptions(),
  });
}

/** Runs `step` over and over, with a random pause of about `thinkMs`, until `signal` aborts. */
export async function runWorker(
  ctx: WorkerContext,
  step: Step,
  thinkMs: number,
  signal: AbortSignal,
): Promise<void> {
  while (!signal.aborted) {
    await step(ctx);
    await sleep(between(ctx.random, 0, 2 * thinkMs), undefined, { signal }).catch(() => {});
  }
}
