/** What every workload worker shares: a client, the history, a clock, and the loop that runs it. */
import { setTimeout as sleep } from 'node:timers/promises';
import { TesseraClient, TesseraError } from '@tessera/client';
import { between, type Rng } from '@tessera/core';
import type { Completion, History, Workload } from '../history.js';

/** Keys of one epoch take the load for this long; then fresh keys, so values and tombstones stay small. */
export const EPOCH_MS = 30_000;

export interface WorkerContext {
  readonly process: string;
  readonly client: TesseraClient;
  readonly history: History;
  readonly random: Rng;
  /** The worker's wall clock, ms: skewed ahead or behind under the clock fault. */
  readonly clockMs: () => number;
  /** Unique numbers shared by the workers of a run. */
  readonly nextId: () => number;
  readonly keysPerEpoch: number;
  /** Aborts ops still running when the run stops waiting for them (they complete as `info`). */
  readonly signal: AbortSignal;
}

/** One op: the worker records its invoke and completion. */
export type Step = (ctx: WorkerContext) => Promise<void>;

/** A key of the workload in the current epoch. */
export function pickKey(ctx: WorkerContext, workload: Workload): string {
  const epoch = Math.floor(ctx.history.now() / EPOCH_MS);
  return `${workload}-e${epoch}-k${between(ctx.random, 0, ctx.keysPerEpoch - 1)}`;
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

export function createClient(nodes: readonly string[]): TesseraClient {
  return new TesseraClient({
    nodes,
    timeoutMs: 3_000,
    retries: 2,
    ringRefreshMs: 2_000,
    nodeDownMs: 2_000,
    backoff: { baseMs: 20, maxMs: 500 },
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
