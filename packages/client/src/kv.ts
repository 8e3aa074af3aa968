/** The key-value calls' shapes: paths, options, and the parsing of a get. */
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

export interface PutResult {
  /** The context of the new version: chain another write on it without reading. */
  readonly context: string;
}

export interface DeleteResult {
  /** The context of the tombstone; undefined when there was nothing to delete. */
  readonly context: string | undefined;
  /** false when the key had no live value (the delete was a no-op). */
  readonly found: boolean;
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

export function kvPath(key: string, query: Readonly<Record<string, number | undefined>> = {}): string {
  const params = Object.entries(query)
    .filter((e): e is [string, number] => e[1] !== undefined)
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  return `/v1/kv/${encodeURIComponent(key)}${params === '' ? '' : `?${params}`}`;
}

/** A get's answer: 200 with siblings, or 404 (no live value, maybe a tombstone context). */
export function parseGet<T>(key: string, answer: NodeAnswer, node: string): GetResult<T> {
  const body = answer.body;
  if (!isRecord(body)) throw badBody(node, 'not an object');
  if (answer.status === 404) {
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

function badBody(node: string, what: string): TesseraError {
  return new TesseraError('BAD_RESPONSE', `${node} answered a get with ${what}.`, { node });
}
