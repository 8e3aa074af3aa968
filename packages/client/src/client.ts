/**
 * TesseraClient: get, put, delete and update of keys, typed collections, routing straight to a
 * key's replicas. Works in browsers (fetch) and Node (import from the package's Node entry for a
 * pooled undici transport; it is chosen automatically by the "node" export condition).
 */
import { contextCoordinator } from '@tessera/core';
import { Collection, type CollectionOptions } from './collection.js';
import { TesseraError } from './errors.js';
import { answerError, callNode } from './http/call.js';
import { type Answer, Requester, type RequestSpec } from './http/requester.js';
import type { BackoffOptions } from './http/retry.js';
import { type RequestCounters, RequestStats } from './http/stats.js';
import {
  BATCH_KEYS_MAX,
  type CallOptions,
  checkKey,
  checkListOptions,
  type DeleteResult,
  type GetManyResult,
  type GetResult,
  type KeyPage,
  kvPath,
  type ListOptions,
  type ListPageOptions,
  listPath,
  mergeSiblings,
  type PutResult,
  parseBatch,
  parseDelete,
  parseGet,
  parseKeyPage,
  parsePut,
  type ReadOptions,
  type WriteOptions,
} from './kv.js';
import { type ResolvedOptions, resolveOptions, type TesseraClientOptions, whole } from './options.js';
import type { Resolver } from './resolvers/types.js';
import { type RingStats, type Route, Router } from './routing/router.js';
import type { InferOutput, StandardSchemaV1 } from './schema.js';
import { type Send, StrongCalls } from './strong/calls.js';
import { StrongCollection, type StrongOptions } from './strong/collection.js';
import {
  type TransactAction,
  type TransactGetItem,
  type TransactOptions,
  type TransactResult,
  transact,
  transactGet,
} from './strong/transact.js';
import { fetchTransport } from './transport/fetch.js';
import { type Transport, withBearerToken } from './transport/types.js';
import { runUpdate, type UpdateOptions, type UpdateResult, type Updater } from './update.js';

/** Batches of one `getMany` in flight at once. */
const BATCHES_IN_FLIGHT = 4;

/** Deadline of one ring-loading call, and how long a first call waits for the ring at most. */
const RING_TIMEOUT_MS = 2_000;

export interface ClientStats extends RequestCounters {
  /** The ring the client routes with; undefined before it is learned or with routing off. */
  readonly ring: RingStats | undefined;
  readonly ringRefreshes: number;
  readonly ringRefreshFailures: number;
  /** Nodes the client currently tries last because they failed. */
  readonly nodesDown: string[];
}

export interface ValueResult<T> {
  readonly value: T | undefined;
  readonly context: string | undefined;
  /** How many siblings were merged into `value`. */
  readonly siblings: number;
}

export class TesseraClient {
  private readonly options: ResolvedOptions;
  private readonly transport: Transport;
  private readonly ownsTransport: boolean;
  private readonly router: Router;
  private readonly requests: RequestStats;
  private readonly requester: Requester;
  private readonly strongCalls: StrongCalls;
  private readonly sender: Send = (spec, options) => this.send(spec, options);
  private closed = false;

  constructor(options: TesseraClientOptions) {
    this.options = resolveOptions(options);
    this.ownsTransport = options.transport === undefined;
    const transport = options.transport ?? (new.target as typeof TesseraClient).createTransport(options);
    this.transport =
      this.options.token === undefined ? transport : withBearerToken(transport, this.options.token);
    this.requests = new RequestStats(options.onRequest);
    this.router = new Router({
      seeds: this.options.nodes,
      routing: this.options.routing,
      refreshMs: this.options.ringRefreshMs,
      nodeDownMs: this.options.nodeDownMs,
      nodeUrl: this.options.nodeUrl,
      get: (base, path) => this.getOnce(base, path),
      firstLoadWaitMs: Math.min(RING_TIMEOUT_MS, this.options.timeoutMs),
    });
    this.requester = new Requester(this.transport, this.router, this.requests, this.options.json);
    const { serverTimeoutMs, backoff, deadlineMs } = this.options;
    this.strongCalls = new StrongCalls(this.sender, { serverTimeoutMs, backoff, deadlineMs });
  }

  /** The transport used when none is given: fetch. The Node entry's subclass uses an undici pool. */
  protected static createTransport(_options: TesseraClientOptions): Transport {
    return fetchTransport();
  }

  /** The jittered backoff between attempts (used by update and collections). */
  get backoff(): BackoffOptions {
    return this.options.backoff;
  }

  /** Every current value of `key` (`siblings` is empty when it has none). */
  async get<T = unknown>(key: string, options: ReadOptions = {}): Promise<GetResult<T>> {
    const r = options.r ?? this.options.r;
    // `missing=ok`: a key with no value is a 200 with no siblings, which a browser does not log.
    const path = kvPath(key, { ...this.query('r', r), missing: 'ok' });
    const answer = await this.send({ method: 'GET', key, path, safety: 'read', accept: [404] }, options);
    if (answer.status === 404 && !isNotFound(answer.body)) throw answerError(answer, answer.route.url);
    return parseGet<T>(key, answer, answer.route.url);
  }

  /** One value for `key`: none, its only sibling, or the resolver's merge of several. */
  async getValue<T = unknown>(
    key: string,
    options: ReadOptions & { readonly resolver?: Resolver<T> } = {},
  ): Promise<ValueResult<T>> {
    const read = await this.get<T>(key, options);
    return {
      value: mergeSiblings(read, options.resolver),
      context: read.context,
      siblings: read.siblings.length,
    };
  }

  /**
   * Writes `value`. With a read's context it replaces what that read saw; without, it adds a
   * sibling. The result's `stored` tells which nodes acknowledged it, as replicas or as hints.
   */
  async put<T = unknown>(key: string, value: T, options: WriteOptions = {}): Promise<PutResult> {
    if (value === undefined) {
      throw new TesseraError('INVALID_ARGUMENT', 'put() needs a JSON value; use delete() to remove a key.', {
        key,
      });
    }
    const w = options.w ?? this.options.w;
    const body = options.context === undefined ? { value } : { value, context: options.context };
    const answer = await this.send(
      {
        method: 'PUT',
        key,
        path: kvPath(key, this.query('w', w)),
        body,
        safety: 'write',
        prefer: preferredCoordinator(options.context),
      },
      options,
    );
    return parsePut(answer, answer.route.url);
  }

  /** Deletes what the context covers (or, without one, every value a quorum read sees). */
  async delete(key: string, options: WriteOptions = {}): Promise<DeleteResult> {
    const w = options.w ?? this.options.w;
    const answer = await this.send(
      {
        method: 'DELETE',
        key,
        path: kvPath(key, { ...this.query('w', w), missing: 'ok' }),
        body: options.context === undefined ? {} : { context: options.context },
        prefer: preferredCoordinator(options.context),
        // Re-sending a tombstone for the same context changes nothing; a blind delete is not so.
        safety: options.context === undefined ? 'write' : 'tombstone',
        accept: [404],
      },
      options,
    );
    if (answer.status === 404 && !isNotFound(answer.body)) throw answerError(answer, answer.route.url);
    return parseDelete(answer, answer.route.url);
  }

  /**
   * Reads `key`, merges its siblings with `resolver`, applies `fn` to the result (undefined when
   * the key has no value) and writes it with the read's context; starts over on conflicts and
   * transient failures, up to `retries` times. See update.ts for what is retried and when.
   */
  async update<T = unknown>(
    key: string,
    fn: Updater<T>,
    options: UpdateOptions<T> = {},
  ): Promise<UpdateResult<T>> {
    const steps = {
      read: (k: string, o: ReadOptions) => this.get<T>(k, o),
      write: (k: string, value: T, o: WriteOptions) => this.put<T>(k, value, o),
      backoff: this.options.backoff,
    };
    const deadlineMs =
      options.deadlineMs === undefined
        ? this.options.deadlineMs
        : whole('deadlineMs', options.deadlineMs, 1, 1);
    return runUpdate(steps, key, fn, deadlineMs === undefined ? options : { ...options, deadlineMs });
  }

  /**
   * Reads many keys (POST /v1/kv/batch-get, 100 keys per call, any node): one result per key, in
   * order, each what `get` answers (`siblings` empty for a key with no value) or, for a key whose
   * read failed, `{ key, error }`. A failure of a whole batch call (after retries) throws.
   */
  async getMany<T = unknown>(
    keys: readonly string[],
    options: ReadOptions = {},
  ): Promise<GetManyResult<T>[]> {
    if (!Array.isArray(keys)) throw new TesseraError('INVALID_ARGUMENT', 'getMany() takes an array of keys.');
    for (const key of keys) checkKey(key);
    const batches: string[][] = [];
    for (let i = 0; i < keys.length; i += BATCH_KEYS_MAX) batches.push(keys.slice(i, i + BATCH_KEYS_MAX));
    const results: GetManyResult<T>[][] = new Array(batches.length);
    let next = 0;
    const worker = async (): Promise<void> => {
      for (let i = next++; i < batches.length; i = next++)
        results[i] = await this.getBatch<T>(batches[i]!, options);
    };
    await Promise.all(Array.from({ length: Math.min(BATCHES_IN_FLIGHT, batches.length) }, worker));
    return results.flat();
  }

  /**
   * One page of the live keys with a prefix (GET /v1/kv, any node), for callers that page
   * themselves: pass the answer's `cursor` to get the next. Keys come in partition order, and a
   * listing is eventually consistent (docs/api.md).
   */
  async listKeys(options: ListPageOptions = {}): Promise<KeyPage> {
    checkListOptions(options);
    const path = listPath(options, this.options.serverTimeoutMs);
    const answer = await this.send({ method: 'GET', key: undefined, path, safety: 'read' }, options);
    return parseKeyPage(answer, answer.route.url);
  }

  /**
   * Every live key with a prefix, page after page: `for await (const key of client.keys({ prefix }))`.
   * Each key comes once, unless a listing page is retried after a failure; a key written or deleted
   * while the listing runs may or may not be seen.
   */
  async *keys(options: ListOptions = {}): AsyncGenerator<string, void, undefined> {
    checkListOptions(options);
    let cursor: string | undefined;
    do {
      const page = await this.listKeys({ ...options, cursor });
      yield* page.keys;
      cursor = page.cursor;
    } while (cursor !== undefined);
  }

  /** A typed collection of values under `prefix/` (see collection.ts). */
  collection<S extends StandardSchemaV1>(
    prefix: string,
    options: CollectionOptions<InferOutput<S>> & { readonly schema: S },
  ): Collection<InferOutput<S>> {
    if (typeof prefix !== 'string' || prefix.length === 0) {
      throw new TesseraError('INVALID_ARGUMENT', 'A collection prefix is a non-empty string.');
    }
    return new Collection<InferOutput<S>>(this, prefix, options);
  }

  /**
   * The strong keys `namespace/id` of a namespace in the nodes' strong list (--strong):
   * linearizable get, put, delete and update with versions and conditions, and the actions of
   * transactions on them (strong/collection.ts).
   */
  strong<T = unknown>(namespace: string, options: StrongOptions<T> = {}): StrongCollection<T> {
    return new StrongCollection<T>(this.strongCalls, namespace, options);
  }

  /**
   * Applies 1 to 100 actions on strong keys, all or none (POST /v1/transactions): a failed
   * condition throws TRANSACTION_CANCELED (see `cancellationReasons`). One clientRequestToken per
   * call, the same on every retry, so retries never apply it twice (strong/transact.ts).
   */
  async transact(actions: readonly TransactAction[], options: TransactOptions = {}): Promise<TransactResult> {
    return transact(this.sender, actions, options, this.options.serverTimeoutMs, this.options.json);
  }

  /** The values of 1 to 100 strong keys at one instant (POST /v1/transactions/get), in order. */
  async transactGet(keys: readonly string[], options: CallOptions = {}): Promise<TransactGetItem[]> {
    return transactGet(this.sender, keys, options, this.options.serverTimeoutMs);
  }

  /** The nodes this client would try for `key`, best first (loads the ring if needed). */
  async routesFor(key: string): Promise<Route[]> {
    checkKey(key);
    return this.router.routes(key);
  }

  /** Reloads the ring now (it is also reloaded every ringRefreshMs and when a node fails). */
  async refreshRing(): Promise<void> {
    await this.router.refresh();
  }

  stats(): ClientStats {
    return {
      ...this.requests.snapshot(),
      ring: this.router.ring(),
      ringRefreshes: this.router.refreshes,
      ringRefreshFailures: this.router.refreshFailures,
      nodesDown: this.router.down(),
    };
  }

  /** Stops the ring refresh and closes pooled connections. Later calls fail with CLIENT_CLOSED. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.router.close();
    if (this.ownsTransport) await this.transport.close?.();
  }

  private async send(spec: RequestSpec, options: CallOptions): Promise<Answer> {
    if (this.closed) throw new TesseraError('CLIENT_CLOSED', 'This client was closed; create a new one.');
    if (spec.key !== undefined) checkKey(spec.key);
    return this.requester.send(spec, {
      timeoutMs: whole('timeoutMs', options.timeoutMs, this.options.timeoutMs, 1),
      retries: whole('retries', options.retries, this.options.retries, 0),
      backoff: this.options.backoff,
      signal: options.signal,
      deadlineMs:
        options.deadlineMs === undefined
          ? this.options.deadlineMs
          : whole('deadlineMs', options.deadlineMs, 1, 1),
    });
  }

  private async getBatch<T>(keys: string[], options: ReadOptions): Promise<GetManyResult<T>[]> {
    const r = options.r ?? this.options.r;
    const timeoutMs = this.options.serverTimeoutMs;
    const body = {
      keys,
      ...(r === undefined ? {} : { r }),
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
    };
    const answer = await this.send(
      { method: 'POST', key: undefined, path: '/v1/kv/batch-get', body, safety: 'read' },
      options,
    );
    return parseBatch<T>(keys, answer, answer.route.url);
  }

  private query(name: 'r' | 'w', value: number | undefined): Record<string, number | undefined> {
    return { [name]: value, timeoutMs: this.options.serverTimeoutMs };
  }

  /** One GET without retries, for loading the ring. */
  private async getOnce(base: string, path: string): Promise<unknown> {
    const answer = await callNode(
      this.transport,
      base,
      { method: 'GET', path },
      {
        timeoutMs: this.options.timeoutMs,
      },
    );
    if (answer.status >= 400) throw answerError(answer, base);
    return answer.body;
  }
}

function isNotFound(body: unknown): boolean {
  const error = typeof body === 'object' && body !== null ? (body as { error?: unknown }).error : undefined;
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'NOT_FOUND';
}

/** The node a context asks to coordinate the write (paper section 5), tried first when healthy. */
function preferredCoordinator(context: string | undefined): string | undefined {
  return context === undefined ? undefined : contextCoordinator(context);
}
