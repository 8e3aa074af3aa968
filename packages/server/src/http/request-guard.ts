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
}

export function requestGuard(deps: RequestGuardDeps): RequestGuard {
  let inflight = 0;
  // Label lookups hash their label object on every call: each (op, outcome) is looked up once.
  const timerOf = memoized((op: Op) => deps.metrics.latency.child({ op }));
  const counterOf = memoized((op: Op) =>
    memoized((outcome: string) => deps.metrics.requests.labels({ op, outcome })),
  );
  const count = (op: Op, outcome: string): void => counterOf(op)(outcome).inc();
  const release = (): void => {
    inflight--;
    deps.metrics.inflight.set(inflight);
  };
  const admit =
    (op: Op) =>
    (_req: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
      const refused = deps.refuseClients?.();
      if (refused !== undefined) {
        count(op, refused.code);
        done(refused);
        return;
      }
      if (inflight >= deps.config.inflightMax) {
        count(op, 'OVERLOADED');
        done(
          new TesseraError(
            'OVERLOADED',
            `This node is serving ${inflight} requests, its limit. Retry after a second.`,
          ),
        );
        return;
      }
      inflight++;
      deps.metrics.inflight.set(inflight);
      reply.raw.once('close', release);
      done();
    };
  const guarded =
    (op: Op, handler: Handler, options: { readonly foreground?: boolean } = {}): Handler =>
    async (req, reply) => {
      const timer = timerOf(op);
      const startedMs = performance.now();
      try {
        const result = await handler(req, reply);
        count(op, reply.statusCode < 400 ? 'ok' : 'NOT_FOUND');
        return result;
      } catch (err) {
        count(op, TesseraError.is(err) ? err.code : 'INTERNAL');
        throw err;
      } finally {
        const tookMs = performance.now() - startedMs;
        timer.observe(tookMs / 1000);
        if (options.foreground !== false) deps.admission.recordForeground(tookMs);
      }
    };
  return { admit, guarded };
}
