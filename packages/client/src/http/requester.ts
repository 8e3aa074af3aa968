/**
 * Sends one API call: serializes its body, picks nodes through the router, makes attempts with a
 * deadline each (and the call's overall deadline across attempts and backoff), retries with
 * jittered backoff only where retry.ts says it is safe, and reports the most informative failure.
 */
import { TesseraError } from '../errors.js';
import type { Route, Router } from '../routing/router.js';
import type { HttpMethod, Transport } from '../transport/types.js';
import { answerError, callNode, type JsonCodec, type NodeAnswer, serializeBody } from './call.js';
import {
  answersFirstOutcome,
  type BackoffOptions,
  backoffMs,
  Deadline,
  maybeApplied,
  mostInformative,
  nodeFailed,
  rebuild,
  retryable,
  type Safety,
  sleep,
  verdict,
} from './retry.js';
import type { RequestStats } from './stats.js';

/** The longest a retry waits for a node's Retry-After. */
export const RETRY_AFTER_WAIT_MAX_MS = 5_000;

/** Coordinators' verdicts on the key's replicas after which a call stops (retry.ts). */
const VERDICTS_MAX = 2;

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
  /** Request headers (a strong write's condition). */
  readonly headers?: Readonly<Record<string, string>>;
}

export interface SendSettings {
  readonly timeoutMs: number;
  /** Extra attempts after the first, for failures safe to retry. */
  readonly retries: number;
  readonly backoff: BackoffOptions;
  readonly signal?: AbortSignal | undefined;
  /** The whole call's deadline, attempts and backoff included, in ms; none when undefined. */
  readonly deadlineMs?: number | undefined;
}

export interface Answer extends NodeAnswer {
  readonly route: Route;
}

export class Requester {
  constructor(
    private readonly transport: Transport,
    private readonly router: Router,
    private readonly stats: RequestStats,
    private readonly json: JsonCodec,
  ) {}

  async send(spec: RequestSpec, settings: SendSettings): Promise<Answer> {
    const key = spec.key === undefined ? {} : { key: spec.key };
    // Before anything is sent: a body JSON cannot hold is the caller's INVALID_VALUE.
    const bodyText = serializeBody(spec.body, spec.key, this.json);
    const deadline = new Deadline(settings.deadlineMs);
    const failures: TesseraError[] = [];
    const giveUp = (attempts: number, why?: string): TesseraError =>
      failures.length === 0
        ? new TesseraError(
            'REQUEST_TIMEOUT',
            `${deadline.why(0)} No node was tried: the ring was still loading.`,
            { ...key, attempts: 0 },
          )
        : mostInformative(failures, { attempts, why });
    const tried = new Set<string>();
    let verdicts = 0;
    let routes = await this.router.routes(
      spec.key,
      Math.min(settings.timeoutMs, deadline.remaining()),
      settings.signal,
      spec.prefer,
    );
    for (let attempt = 1; ; attempt++) {
      const left = deadline.remaining();
      if (left <= 0) throw giveUp(attempt - 1, deadline.why(attempt - 1));
      const route = routes.find((r) => !tried.has(r.url)) ?? routes[(attempt - 1) % routes.length]!;
      tried.add(route.url);
      const startedMs = Date.now();
      const cut = left < settings.timeoutMs;
      let error: TesseraError;
      try {
        const answer = await callNode(
          this.transport,
          route.url,
          { method: spec.method, path: spec.path, bodyText, headers: spec.headers },
          {
            timeoutMs: Math.min(settings.timeoutMs, Math.ceil(left)),
            signal: settings.signal,
            deadlineMs: cut ? settings.deadlineMs : undefined,
            json: this.json,
          },
        );
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
      error = rebuild(error, {
        nodeId: route.nodeId ?? this.router.nodeIdOf(route.url),
        ...key,
        attempts: attempt,
        // A read applies nothing, whatever happened to it.
        maybeApplied: spec.safety !== 'read' && (error.maybeApplied || maybeApplied(error)),
      });
      this.record(spec, route, attempt, startedMs, error.httpStatus, error.code);
      // A timeout the call's own deadline imposed says nothing about the node.
      const deadlineCut = cut && error.code === 'REQUEST_TIMEOUT';
      if (nodeFailed(error) && !deadlineCut) this.router.markFailed(route.url, error.retryAfterMs);
      if (error.code === 'ABORTED') {
        throw rebuild(error, { maybeApplied: error.maybeApplied || failures.some((f) => f.maybeApplied) });
      }
      failures.push(error);
      // A definite answer (bad input, a conflict, a write that may have landed) ends the call as is.
      if (!retryable(error, spec.safety)) {
        const applied = !answersFirstOutcome(error, spec.safety) && failures.some((f) => f.maybeApplied);
        throw rebuild(error, { maybeApplied: applied });
      }
      if (verdict(error) && ++verdicts >= VERDICTS_MAX) {
        throw giveUp(
          attempt,
          `The call stopped after ${VERDICTS_MAX} such answers: every coordinator asks the same replicas.`,
        );
      }
      if (deadline.passed()) throw giveUp(attempt, deadline.why(attempt));
      if (attempt > settings.retries) throw giveUp(attempt);
      routes = this.router.order(spec.key, spec.prefer);
      const waitMs = this.waitMs(attempt, error, routes, settings);
      // Waiting past the deadline only to fail then: stop now.
      if (waitMs >= deadline.remaining()) throw giveUp(attempt, deadline.why(attempt));
      try {
        await sleep(waitMs, settings.signal);
      } catch (reason) {
        throw new TesseraError('ABORTED', 'The call was aborted by its AbortSignal.', {
          ...key,
          maybeApplied: failures.some((f) => f.maybeApplied),
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
