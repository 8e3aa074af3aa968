/**
 * Plain HTTP to one node for the strong workloads (register, bank), without the client's retries:
 * the workloads must know, for every request, whether it surely did not apply (the connection was
 * refused: nothing was sent), was answered, or has an unknown outcome (a reset, a timeout, an
 * answer cut off, a 5xx: the node may have run the consensus round, or part of it).
 */
import { pick, type Rng } from '@tessera/core';
import { nodeFetch } from '../http.js';

/** How a request ended. */
export type Reply =
  | { readonly kind: 'answer'; readonly status: number; readonly body: unknown }
  /** The node refused the connection: nothing was sent, nothing applied. */
  | { readonly kind: 'refused'; readonly error: string }
  /** Sent, and no complete answer: it may have applied. */
  | { readonly kind: 'unknown'; readonly error: string };

/** Where the strong workloads send requests: members of the ring only, never a spare running alone. */
export interface StrongRoutes {
  /** A running member (not `except` when another runs); undefined when none runs. */
  pickNode(random: Rng, except?: string): string | undefined;
  url(node: string): string;
  /** The node the crash-txn fault armed, while it is: transfers go there so it coordinates them. */
  crashTarget(): string | undefined;
}

/** A request's own bound; above the nodes' strong deadline (5 s), so a node answers 503 first. */
export const STRONG_CALL_TIMEOUT_MS = 7_000;

export interface CallOptions {
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
  readonly timeoutMs?: number;
}

export async function strongCall(
  url: string,
  method: 'GET' | 'PUT' | 'DELETE' | 'POST',
  path: string,
  o: CallOptions = {},
): Promise<Reply> {
  // One controller per call, its listener on the run's signal removed after (a signal combined by
  // AbortSignal's static combinator would leave one on the long-lived signal per call).
  const controller = new AbortController();
  const abort = (): void => controller.abort();
  const timer = setTimeout(abort, o.timeoutMs ?? STRONG_CALL_TIMEOUT_MS);
  if (o.signal?.aborted === true) abort();
  o.signal?.addEventListener('abort', abort);
  try {
    let res: Response;
    try {
      res = await nodeFetch(`${url}${path}`, {
        method,
        signal: controller.signal,
        headers: {
          ...(o.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(o.headers ?? {}),
        },
        ...(o.body === undefined ? {} : { body: JSON.stringify(o.body) }),
      });
    } catch (err) {
      const code = (err as { cause?: { code?: unknown } }).cause?.code;
      if (code === 'ECONNREFUSED') return { kind: 'refused', error: `${url}: connection refused` };
      return { kind: 'unknown', error: `${url}: ${describe(err)}` };
    }
    try {
      const text = await res.text();
      return { kind: 'answer', status: res.status, body: text === '' ? {} : (JSON.parse(text) as unknown) };
    } catch (err) {
      // The status line came, the body did not (a reset or a timeout mid-answer).
      return { kind: 'unknown', error: `${url}: ${res.status}, answer cut off: ${describe(err)}` };
    }
  } finally {
    clearTimeout(timer);
    o.signal?.removeEventListener('abort', abort);
  }
}

/** The error code and details of an error answer (`{ error: { code, details } }`). */
export function errorOf(body: unknown): { code: string; details: Record<string, unknown> } {
  const error = (body as { error?: { code?: unknown; details?: unknown } } | undefined)?.error;
  const details = error?.details;
  return {
    code: typeof error?.code === 'string' ? error.code : 'UNKNOWN',
    details: typeof details === 'object' && details !== null ? (details as Record<string, unknown>) : {},
  };
}

/** A short text of an answer or failure, for the history. */
export function replyText(reply: Reply): string {
  if (reply.kind !== 'answer') return reply.error;
  const { code } = errorOf(reply.body);
  return `${reply.status} ${code}`;
}

/** A version as the API writes it ("12"), as a number; NaN when it is not one. */
export function versionOf(value: unknown): number {
  return typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : Number.NaN;
}

export function keyPath(key: string): string {
  return `/v1/kv/${encodeURIComponent(key)}`;
}

/** Routes over the nodes `members()` names, preferring those `running` says are up. */
export function strongRoutes(o: {
  readonly members: () => readonly string[];
  readonly running: (node: string) => boolean;
  readonly url: (node: string) => string;
  readonly crashTarget: () => string | undefined;
}): StrongRoutes {
  return {
    pickNode(random, except) {
      const members = o.members();
      const up = members.filter((id) => o.running(id));
      const others = up.filter((id) => id !== except);
      const from = others.length > 0 ? others : up;
      return from.length === 0 ? undefined : pick(random, from);
    },
    url: o.url,
    crashTarget: o.crashTarget,
  };
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause;
  const why =
    typeof cause?.code === 'string' ? cause.code : typeof cause?.message === 'string' ? cause.message : '';
  return why === '' ? `${err.name}: ${err.message}` : `${err.message} (${why})`;
}
