/**
 * What every client data request goes through: admission against `inflightMax` (one count shared
 * by every data route of the node) and its metrics. Admission runs in `onRequest`: a request past
 * inflightMax is refused before its body is read, and one admitted counts until its response is
 * done or its connection dropped, body reading included.
 */
import { TesseraError } from '@tessera/core';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { AdmissionController } from '../background/admission.js';
import type { Config } from '../config.js';
import type { NodeMetrics } from '../node/metrics.js';
import { memoized } from '../util/memoized.js';
import { promised } from '../util/promised.js';

/** The `op` label of the request metrics. */
export type Op = 'get' | 'put' | 'delete' | 'get_local' | 'list' | 'batch_get' | 'transact' | 'transact_get';

export interface RequestGuardDeps {
  readonly config: Pick<Config, 'inflightMax'>;
  readonly metrics: Pick<NodeMetrics, 'requests' | 'inflight' | 'latency'>;
  /** Foreground latencies, which background work yields to (paper 6.5). */
  readonly admission: Pick<AdmissionController, 'recordForeground'>;
  /** Why this node refuses every data request now (NODE_LEFT once it has left the cluster), else undefined. */
  readonly refuseClients?: () => TesseraError | undefined;
}

export type Handler = (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

export interface RequestGuard {
  /**
   * The `onRequest` hook that admits a request of `op` or refuses it with OVERLOADED (a callback
   * hook: every request runs it, and an async one costs a promise and a microtask each).
   */
  admit(op: Op): (req: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void;
  /**
   * The handler, counted and timed. Its latency feeds the admission gate unless `foreground` is
   * false (a request that does its own accounting, or one whose latency says nothing of the
   * foreground's, like a listing paced by the gate itself).
   */
  guarded(op: Op, handler: Handler, options?: { readonly foreground?: boolean }): Handler;
  /**
   * The same two without fastify (the data path, data-path.ts): `enter` admits a request of `op`
   * (undefined) or says why not (counted as its outcome); an admitted one counts until `leave`.
   */
  enter(op: Op): TesseraError | undefined;
  leave(): void;
  /** Runs an admitted request's work, counted by its answer's status (or error) and timed. */
  timed<T extends { readonly status: number }>(op: Op, run: () => Promise<T>): Promise<T>;
}

export function requestGuard(deps: RequestGuardDeps): RequestGuard {
  let inflight = 0;
  // Label lookups hash their label object on every call: each (op, outcome) is looked up once.
  const timerOf = memoized((op: Op) => deps.metrics.latency.child({ op }));
  const counterOf = memoized((op: Op) =>
    memoized((outcome: string) => deps.metrics.requests.labels({ op, outcome })),
  );
  const count = (op: Op, outcome: string): void => counterOf(op)(outcome).inc();
  const leave = (): void => {
    inflight--;
    deps.metrics.inflight.set(inflight);
  };
  const enter = (op: Op): TesseraError | undefined => {
    const refused = deps.refuseClients?.();
    if (refused !== undefined) {
      count(op, refused.code);
      return refused;
    }
    if (inflight >= deps.config.inflightMax) {
      count(op, 'OVERLOADED');
      return new TesseraError(
        'OVERLOADED',
        `This node is serving ${inflight} requests, its limit. Retry after a second.`,
      );
    }
    inflight++;
    deps.metrics.inflight.set(inflight);
    return undefined;
  };
  // One reaction, not an async frame with try/finally: every request runs this.
  const measure = <T>(
    op: Op,
    run: () => Promise<T>,
    outcome: (result: T) => string,
    foreground: boolean,
  ): Promise<T> => {
    const startedMs = performance.now();
    const took = (): void => {
      const tookMs = performance.now() - startedMs;
      timerOf(op).observe(tookMs / 1000);
      if (foreground) deps.admission.recordForeground(tookMs);
    };
    return promised(run).then(
      (result) => {
        count(op, outcome(result));
        took();
        return result;
      },
      (err: unknown) => {
        count(op, TesseraError.is(err) ? err.code : 'INTERNAL');
        took();
        throw err;
      },
    );
  };
  const outcomeOf = (status: number): string => (status < 400 ? 'ok' : 'NOT_FOUND');
  const admit =
    (op: Op) =>
    (_req: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
      const refused = enter(op);
      if (refused !== undefined) {
        done(refused);
        return;
      }
      reply.raw.once('close', leave);
      done();
    };
  const guarded =
    (op: Op, handler: Handler, options: { readonly foreground?: boolean } = {}): Handler =>
    (req, reply) =>
      measure(
        op,
        () => handler(req, reply),
        () => outcomeOf(reply.statusCode),
        options.foreground !== false,
      );
  const timed = <T extends { readonly status: number }>(op: Op, run: () => Promise<T>): Promise<T> =>
    measure(op, run, (answer) => outcomeOf(answer.status), true);
  return { admit, guarded, enter, leave, timed };
}
