/**
 * Sends one API call: picks nodes through the router, makes attempts with a deadline each, and
 * retries with jittered backoff only where retry.ts says it is safe.
 */
import { TesseraError } from '../errors.js';
import type { Route, Router } from '../routing/router.js';
import type { HttpMethod, Transport } from '../transport/types.js';
import { answerError, callNode, type NodeAnswer } from './call.js';
import {
  type BackoffOptions,
  backoffMs,
  maybeApplied,
  nodeFailed,
  retryable,
  type Safety,
  sleep,
} from './retry.js';
import type { RequestStats } from './stats.js';

/** The longest a retry waits for a node's Retry-After. */
export const RETRY_AFTER_WAIT_MAX_MS = 5_000;

export interface RequestSpec {
  readonly method: HttpMethod;
  readonly key: string | undefined;
  readonly path: string;
  readonly body?: unknown;
  readonly safety: Safety;
  /** A node to try first when it is a healthy replica of the key: the context's coordinator. */
  readonly prefer?: string | undefined;
  /** Error statuses that are answers for this call (404 for a get). */
  readonly accept?: readonly number[];
}

export interface SendSettings {
  readonly timeoutMs: number;
  /** Extra attempts after the first, for failures safe to retry. */
  readonly retries: number;
  readonly backoff: BackoffOptions;
  readonly signal?: AbortSignal | undefined;
}

export interface Answer extends NodeAnswer {
  readonly route: Route;
}

export class Requester {
  constructor(
    private readonly transport: Transport,
    private readonly router: Router,
    private readonly stats: RequestStats,
  ) {}

  async send(spec: RequestSpec, settings: SendSettings): Promise<Answer> {
    const tried = new Set<string>();
    let routes = await this.router.routes(spec.key, settings.timeoutMs, settings.signal, spec.prefer);
    for (let attempt = 1; ; attempt++) {
      const route = routes.find((r) => !tried.has(r.url)) ?? routes[(attempt - 1) % routes.length]!;
      tried.add(route.url);
      const startedMs = Date.now();
      let error: TesseraError;
      try {
        const answer = await callNode(this.transport, route.url, spec, settings);
        if (answer.status < 400 || spec.accept?.includes(answer.status) === true) {
          this.router.markAlive(route.url);
          this.record(spec, route, attempt, startedMs, answer.status, undefined);
          return { ...answer, route };
        }
        error = answerError(answer, route.url);
      } catch (err) {
        error = TesseraError.is(err)
          ? err
          : new TesseraError('CONNECTION_FAILED', String(err), { node: route.url, cause: err });
      }
      error = error.with({
        nodeId: route.nodeId ?? this.router.nodeIdOf(route.url),
        ...(spec.key === undefined ? {} : { key: spec.key }),
        attempts: attempt,
        maybeApplied: spec.method !== 'GET' && maybeApplied(error),
      });
      this.record(spec, route, attempt, startedMs, error.httpStatus, error.code);
      if (nodeFailed(error)) this.router.markFailed(route.url, error.retryAfterMs);
      if (attempt > settings.retries || !retryable(error, spec.safety)) throw error;
      routes = this.router.order(spec.key, spec.prefer);
      try {
        await sleep(this.waitMs(attempt, error, routes, settings), settings.signal);
      } catch (reason) {
        throw new TesseraError('ABORTED', 'The call was aborted by its AbortSignal.', {
          ...(spec.key === undefined ? {} : { key: spec.key }),
          maybeApplied: error.maybeApplied,
          attempts: attempt,
          cause: reason,
        });
      }
    }
  }

  /**
   * The jittered backoff; but when every node is being avoided (a single node said Retry-After,
   * or all did), at least the Retry-After the failed node asked for, up to RETRY_AFTER_WAIT_MAX_MS.
   */
  private waitMs(
    attempt: number,
    error: TesseraError,
    routes: readonly Route[],
    settings: SendSettings,
  ): number {
    const backoff = backoffMs(attempt - 1, settings.backoff);
    if (error.retryAfterMs === undefined) return backoff;
    const down = new Set(this.router.down());
    if (!routes.every((r) => down.has(r.url))) return backoff;
    return Math.max(backoff, Math.min(error.retryAfterMs, RETRY_AFTER_WAIT_MAX_MS));
  }

  private record(
    spec: RequestSpec,
    route: Route,
    attempt: number,
    startedMs: number,
    status: number | undefined,
    code: string | undefined,
  ): void {
    this.stats.record({
      method: spec.method,
      key: spec.key,
      node: route.url,
      nodeId: route.nodeId ?? this.router.nodeIdOf(route.url),
      role: route.role,
      attempt,
      status,
      code,
      durationMs: Date.now() - startedMs,
    });
  }
}
