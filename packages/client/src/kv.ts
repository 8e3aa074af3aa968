/** The key-value calls' shapes: paths, options, and the parsing of a get. */
import type { WriteAck, WriteReceipt } from '@tessera/core';
import { TesseraError } from './errors.js';
import { isRecord, type NodeAnswer } from './http/call.js';
import type { Resolver, Version } from './resolvers/types.js';

export interface CallOptions {
  /** Deadline of each HTTP attempt, in ms (overrides the client's). */
  readonly timeoutMs?: number;
  /** Aborts the call, including retries and backoff. */
  readonly signal?: AbortSignal;
  /** Extra attempts for failures safe to retry (overrides the client's). */
  readonly retries?: number;
  /**
   * Deadline of the whole call, every attempt and backoff included, in ms (overrides the
   * client's). Past it the call fails with the most informative failure so far.
   */
  readonly deadlineMs?: number;
}

export interface ReadOptions extends CallOptions {
  /** Read quorum R for this call (1..N). */
  readonly r?: number;
}

export interface WriteOptions extends CallOptions {
  /** The context of the read this write is based on; without it the write supersedes nothing. */
  readonly context?: string | undefined;
  /** Write quorum W for this call (1..N). */
  readonly w?: number;
}

export interface GetResult<T> {
  readonly key: string;
  /** Every current value of the key: empty when it has none, several after concurrent writes. */
  readonly siblings: T[];
  /** Send it with the write that resolves these siblings. Present after a delete too (tombstone). */
  readonly context?: string;
  /** The siblings with their timestamps, in the same order. */
  readonly versions: Version<T>[];
}

/** How a write was stored (core receipt.ts; docs/api.md): `result.stored` of put, delete and update. */
export type { WriteAck, WriteReceipt } from '@tessera/core';

export interface PutResult {
  /** The context of the new version: chain another write on it without reading. */
  readonly context: string;
  /** How the write was stored; undefined from a node too old to say. */
  readonly stored?: WriteReceipt | undefined;
}

export interface DeleteResult {
  /** The context of the tombstone; undefined when there was nothing to delete. */
  readonly context: string | undefined;
  /** false when the key had no live value (the delete was a no-op). */
  readonly found: boolean;
  /** How the tombstone was stored; undefined when nothing was deleted, or from a node too old to say. */
  readonly stored?: WriteReceipt | undefined;
}

const encoder = new TextEncoder();

export function checkKey(key: string): void {
  const bytes = typeof key === 'string' ? encoder.encode(key).length : 0;
  if (bytes < 1 || bytes > 1024) {
    throw new TesseraError('INVALID_KEY', 'A key is 1 to 1024 bytes of UTF-8.', {
      details: { bytes },
    });
  }
}

/**
 * The path of a key: `/v1/kv/<key percent-encoded>`, except for the keys `.` and `..`, which no
 * URL can carry as a path segment (URL parsers drop such segments, `%2E` and `%2e` included):
 * those go as `/v1/kv/?key=.` (docs/api.md).
 */
export function kvPath(
  key: string,
  query: Readonly<Record<string, number | string | undefined>> = {},
): string {
  const dotSegment = key === '.' || key === '..';
  const params = [
    ...(dotSegment ? [`key=${encodeURIComponent(key)}`] : []),
    ...Object.entries(query)
      .filter((e): e is [string, number | string] => e[1] !== undefined)
      .map(([name, value]) => `${name}=${encodeURIComponent(value)}`),
  ].join('&');
  return `/v1/kv/${dotSegment ? '' : encodeURIComponent(key)}${params === '' ? '' : `?${params}`}`;
}

/**
 * A get's answer: 200 with siblings; for a key with no live value (maybe a tombstone context),
 * 200 with no siblings (`?missing=ok`, what the client asks for) or 404.
 */
export function parseGet<T>(key: string, answer: NodeAnswer, node: string): GetResult<T> {
  const body = answer.body;
  if (!isRecord(body)) throw badBody(node, 'not an object');
  if (answer.status === 404 || (Array.isArray(body.siblings) && body.siblings.length === 0)) {
    return typeof body.context === 'string'
      ? { key, siblings: [], context: body.context, versions: [] }
      : { key, siblings: [], versions: [] };
  }
  if (typeof body.context !== 'string' || !Array.isArray(body.siblings)) {
    throw badBody(node, 'no context or siblings');
  }
  const versions = body.siblings.map((s): Version<T> => {
    if (!isRecord(s) || !('value' in s)) throw badBody(node, 'a sibling without value');
    const time = typeof s.lastModified === 'string' ? Date.parse(s.lastModified) : Number.NaN;
    return { value: s.value as T, lastModified: new Date(Number.isNaN(time) ? 0 : time) };
  });
  return { key, siblings: versions.map((v) => v.value), context: body.context, versions };
}

/**
 * A delete's answer: 200 with the tombstone's context; for a key with no live value, 200
 * `{ found: false }` (`?missing=ok`, what the client asks for) or 404.
 */
export function parseDelete(answer: NodeAnswer, node: string): DeleteResult {
  if (answer.status === 404 || (isRecord(answer.body) && answer.body.found === false)) {
    return { context: undefined, found: false };
  }
  return withStored({ context: parseContext(answer, node), found: true }, answer);
}

/** A put's answer: its context and, when the node sent one, its receipt. */
export function parsePut(answer: NodeAnswer, node: string): PutResult {
  return withStored({ context: parseContext(answer, node) }, answer);
}

function withStored<R extends object>(result: R, answer: NodeAnswer): R & { stored?: WriteReceipt } {
  const stored = isRecord(answer.body) ? parseReceipt(answer.body.stored) : undefined;
  return stored === undefined ? result : { ...result, stored };
}

/**
 * The `stored` of a write's answer, or undefined when it is absent (an older node) or not one: the
 * write succeeded either way, so a receipt the client cannot read is left out rather than thrown.
 */
export function parseReceipt(stored: unknown): WriteReceipt | undefined {
  if (!isRecord(stored) || !Array.isArray(stored.acks)) return undefined;
  const { n, w } = stored;
  if (!isCount(n) || !isCount(w)) return undefined;
  const acks: WriteAck[] = [];
  for (const ack of stored.acks) {
    if (!isRecord(ack) || typeof ack.node !== 'string') return undefined;
    if (ack.as === 'replica') acks.push({ node: ack.node, as: 'replica' });
    else if (ack.as === 'hint' && typeof ack.for === 'string')
      acks.push({ node: ack.node, as: 'hint', for: ack.for });
    else return undefined;
  }
  const replicas = new Set(acks.filter((a) => a.as === 'replica').map((a) => a.node)).size;
  return { acks, replicas, n, w };
}

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 1;
}

export function parseContext(answer: NodeAnswer, node: string): string {
  const body = answer.body;
  if (!isRecord(body) || typeof body.context !== 'string') throw badBody(node, 'no context');
  return body.context;
}

/** The one current value: none, the only sibling, or the resolver's merge of several. */
export function mergeSiblings<T>(read: GetResult<T>, resolver: Resolver<T> | undefined): T | undefined {
  const { siblings } = read;
  if (siblings.length === 0) return undefined;
  if (siblings.length === 1) return siblings[0];
  if (resolver === undefined) {
    throw new TesseraError(
      'SIBLINGS_UNRESOLVED',
      `Key "${read.key}" has ${siblings.length} siblings (concurrent writes) and no resolver was given. Pass { resolver } (e.g. resolvers.union(), resolvers.lww()) or read them with get() and write the merge with its context.`,
      { key: read.key, details: { siblings: siblings.length } },
    );
  }
  let merged: T;
  try {
    merged = resolver([...siblings], [...read.versions]);
  } catch (err) {
    if (TesseraError.is(err)) throw err.with({ key: read.key });
    throw new TesseraError('RESOLVER_FAILED', `The resolver threw on key "${read.key}": ${String(err)}`, {
      key: read.key,
      cause: err,
    });
  }
  if (merged === undefined) {
    throw new TesseraError('RESOLVER_FAILED', `The resolver returned undefined for key "${read.key}".`, {
      key: read.key,
    });
  }
  return merged;
}

export function badBody(node: string, what: string, call = 'a get'): TesseraError {
  return new TesseraError('BAD_RESPONSE', `${node} answered ${call} with ${what}.`, { node });
}

/** Keys one batch get reads, at most (the node's limit); `getMany` splits longer lists. */
export const BATCH_KEYS_MAX = 100;
/** Keys per listing page, at most (the node's limit). */
export const PAGE_SIZE_MAX = 1_000;

export interface ListOptions extends CallOptions {
  /** Only keys that start with this. Default: every key. */
  readonly prefix?: string;
  /** Keys asked for per page, 1 to 1000. Default 100 (the node's). */
  readonly pageSize?: number;
}

export interface ListPageOptions extends ListOptions {
  /** The `cursor` of the previous page, unchanged; absent for the first page. */
  readonly cursor?: string | undefined;
}

/** One page of a key listing. */
export interface KeyPage {
  /** Live keys with the prefix, in partition order (not key order); may be empty mid-listing. */
  readonly keys: string[];
  /** Pass it to get the next page; undefined when the listing is complete. */
  readonly cursor: string | undefined;
}

/** One key of a `getMany`: what `get` answers for it, or the error its read failed with. */
export type GetManyResult<T> =
  | (GetResult<T> & { readonly error?: undefined })
  | { readonly key: string; readonly error: TesseraError };

export function listPath(options: ListPageOptions, serverTimeoutMs: number | undefined): string {
  const params = new URLSearchParams();
  if (options.prefix !== undefined && options.prefix !== '') params.set('prefix', options.prefix);
  if (options.pageSize !== undefined) params.set('limit', String(options.pageSize));
  if (options.cursor !== undefined) params.set('cursor', options.cursor);
  if (serverTimeoutMs !== undefined) params.set('timeoutMs', String(serverTimeoutMs));
  const query = params.toString();
  return query === '' ? '/v1/kv' : `/v1/kv?${query}`;
}

export function checkListOptions(options: ListPageOptions): void {
  if (
    options.prefix !== undefined &&
    (typeof options.prefix !== 'string' || encoder.encode(options.prefix).length > 1024)
  ) {
    throw new TesseraError('INVALID_ARGUMENT', 'A prefix is a string of at most 1024 bytes of UTF-8.');
  }
  const size = options.pageSize;
  if (size !== undefined && (!Number.isInteger(size) || size < 1 || size > PAGE_SIZE_MAX)) {
    throw new TesseraError('INVALID_ARGUMENT', `pageSize must be a whole number from 1 to ${PAGE_SIZE_MAX}.`);
  }
}

export function parseKeyPage(answer: NodeAnswer, node: string): KeyPage {
  const body = answer.body;
  if (!isRecord(body) || !Array.isArray(body.keys) || !body.keys.every((k) => typeof k === 'string')) {
    throw badBody(node, 'no list of keys', 'a listing');
  }
  if (body.cursor !== null && typeof body.cursor !== 'string') throw badBody(node, 'no cursor', 'a listing');
  return { keys: body.keys as string[], cursor: body.cursor ?? undefined };
}

/** A batch get's answer: one result per key asked, in order. */
export function parseBatch<T>(keys: readonly string[], answer: NodeAnswer, node: string): GetManyResult<T>[] {
  const body = answer.body;
  const results = isRecord(body) ? body.results : undefined;
  if (!Array.isArray(results) || results.length !== keys.length) {
    throw badBody(node, 'not one result per key', 'a batch get');
  }
  return results.map((item, i): GetManyResult<T> => {
    const key = keys[i]!;
    if (!isRecord(item) || item.key !== key) throw badBody(node, 'results out of order', 'a batch get');
    if (isRecord(item.error)) {
      const { code, message, details } = item.error;
      return {
        key,
        error: new TesseraError(
          typeof code === 'string' ? code : 'BAD_RESPONSE',
          typeof message === 'string' ? message : `${node} failed to read key "${key}".`,
          { node, key, ...(isRecord(details) ? { details } : {}) },
        ),
      };
    }
    if (!Array.isArray(item.siblings)) throw badBody(node, 'a result without siblings', 'a batch get');
    if (item.siblings.length > 0 && typeof item.context !== 'string') {
      throw badBody(node, 'a result without context', 'a batch get');
    }
    const versions = item.siblings.map((s): Version<T> => {
      if (!isRecord(s) || !('value' in s)) throw badBody(node, 'a sibling without value', 'a batch get');
      const time = typeof s.lastModified === 'string' ? Date.parse(s.lastModified) : Number.NaN;
      return { value: s.value as T, lastModified: new Date(Number.isNaN(time) ? 0 : time) };
    });
    const siblings = versions.map((v) => v.value);
    return typeof item.context === 'string'
      ? { key, siblings, context: item.context, versions }
      : { key, siblings, versions };
  });
}
