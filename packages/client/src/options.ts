/** Client options: their types, defaults and checks (once, at construction). */
import { canonical } from './canonical.js';
import { TesseraError } from './errors.js';
import { type JsonCodec, STANDARD_JSON } from './http/call.js';
import type { BackoffOptions } from './http/retry.js';
import type { RequestEvent } from './http/stats.js';
import { defaultNodeUrl, listedNodesOnly, type NodeUrl } from './routing/ring.js';
import { inBrowser } from './transport/environment.js';
import type { Transport } from './transport/types.js';

export interface TesseraClientOptions {
  /** Base URLs of one or more nodes, e.g. `['http://10.0.0.5:7000']`. The client learns the rest. */
  readonly nodes: readonly string[];
  /** Deadline of one HTTP attempt, in ms. Default 5000 (the node's own deadline is 2000). */
  readonly timeoutMs?: number;
  /** Extra attempts for a failure that is safe to retry (see the README). Default 2. */
  readonly retries?: number;
  /**
   * Deadline of a whole call, every attempt and backoff included, and of a whole `update()`, in
   * ms; each call may set its own. Past it the call fails with the most informative failure so
   * far. Default: none (a call ends after its retries, each attempt within `timeoutMs`).
   */
  readonly deadlineMs?: number;
  /** Jittered exponential backoff between attempts. Default base 25 ms, max 1000 ms. */
  readonly backoff?: BackoffOptions;
  /**
   * Partition-aware routing: send each call to a replica of its key. Default true, except in a
   * browser (page or worker), where nodes are usually behind a gateway on the page's origin.
   * With routing on in a browser, calls go only to the nodes listed in `nodes` (a member whose
   * advertised address is not one of them is skipped), unless `nodeUrl` maps members itself.
   * Turn it off when the nodes' own addresses are not reachable from the client.
   */
  readonly routing?: boolean;
  /** How often the ring is refreshed, in ms (0: only on failures). Default 10 000 (paper 6.4). */
  readonly ringRefreshMs?: number;
  /** How long a node that failed is tried last, in ms. Default 5000. */
  readonly nodeDownMs?: number;
  /**
   * The base URL for a member, or undefined for a member this client cannot reach (default:
   * `http://` + its advertised host:port; in a browser, that only when it is listed in `nodes`).
   */
  readonly nodeUrl?: NodeUrl;
  /** Default read quorum R for gets (1..N); default: the node's. */
  readonly r?: number;
  /** Default write quorum W for puts and deletes (1..N); default: the node's. */
  readonly w?: number;
  /** Sent as the node-side deadline (`?timeoutMs=`) of every call; default: the node's. */
  readonly serverTimeoutMs?: number;
  /** Called after every HTTP attempt (routing, retries, latency). Must not throw. */
  readonly onRequest?: (event: RequestEvent) => void;
  /** A custom transport. Default: `fetch` in browsers, a keep-alive undici pool in Node. */
  readonly transport?: Transport;
  /**
   * Bearer token sent with every call (`Authorization: Bearer …`) to nodes that require one
   * (docs/security.md). Default: none.
   */
  readonly token?: string;
  /**
   * How request and response bodies become JSON text and back. Default JSON.stringify and
   * JSON.parse, which round a number past 2^53 (README, "Numbers past 2^53", with a lossless-json
   * codec): give a parser that keeps such numbers exact. `parse` must give the client's own fields
   * as JSON.parse does (strings, arrays, objects, small whole numbers as numbers).
   */
  readonly json?: JsonCodec;
}

export interface ResolvedOptions {
  readonly nodes: readonly string[];
  readonly timeoutMs: number;
  readonly retries: number;
  readonly deadlineMs: number | undefined;
  readonly backoff: BackoffOptions;
  readonly routing: boolean;
  readonly ringRefreshMs: number;
  readonly nodeDownMs: number;
  readonly nodeUrl: NodeUrl;
  readonly r: number | undefined;
  readonly w: number | undefined;
  readonly serverTimeoutMs: number | undefined;
  readonly token: string | undefined;
  readonly json: JsonCodec;
}

export function resolveOptions(options: TesseraClientOptions): ResolvedOptions {
  if (!Array.isArray(options?.nodes) || options.nodes.length === 0) {
    throw invalid('nodes must list at least one node URL, e.g. ["http://127.0.0.1:7000"].');
  }
  const nodes = options.nodes.map(normalizeUrl);
  const browser = inBrowser();
  return {
    nodes,
    timeoutMs: whole('timeoutMs', options.timeoutMs, 5_000, 1),
    retries: whole('retries', options.retries, 2, 0),
    deadlineMs: optionalWhole('deadlineMs', options.deadlineMs, 1),
    backoff: {
      baseMs: whole('backoff.baseMs', options.backoff?.baseMs, 25, 0),
      maxMs: whole('backoff.maxMs', options.backoff?.maxMs, 1_000, 0),
    },
    routing: options.routing ?? !browser,
    ringRefreshMs: whole('ringRefreshMs', options.ringRefreshMs, 10_000, 0),
    nodeDownMs: whole('nodeDownMs', options.nodeDownMs, 5_000, 0),
    nodeUrl: options.nodeUrl ?? (browser ? listedNodesOnly(nodes) : defaultNodeUrl),
    r: optionalWhole('r', options.r, 1),
    w: optionalWhole('w', options.w, 1),
    serverTimeoutMs: optionalWhole('serverTimeoutMs', options.serverTimeoutMs, 1),
    token: checkToken(options.token),
    json: checkJson(options.json),
  };
}

/** The client's own fields, as a node sends them: a codec must read them as JSON.parse does. */
const CODEC_PROBE = '{"context":"c","stored":{"replicas":2,"n":3},"ok":true,"none":null}';

function checkJson(json: JsonCodec | undefined): JsonCodec {
  if (json === undefined) return STANDARD_JSON;
  if (typeof json?.parse !== 'function' || typeof json.stringify !== 'function')
    throw invalid('json must have parse(text) and stringify(value) functions, as JSON has.');
  // A codec that makes a bigint (or an object) of every number would hand the client `3n` where
  // it counts replicas: refused here rather than misread later (canonical text tells 3n from 3).
  if (!readsAsJson(json))
    throw invalid(
      `json.parse must read strings, small whole numbers, booleans and null as JSON.parse does (the client's own fields); it read ${CODEC_PROBE} differently. Make bigints only of integers past 2^53 (README, "Numbers past 2^53").`,
    );
  return json;
}

function readsAsJson(json: JsonCodec): boolean {
  try {
    return canonical(json.parse(CODEC_PROBE)) === canonical(JSON.parse(CODEC_PROBE));
  } catch {
    return false;
  }
}

function checkToken(token: string | undefined): string | undefined {
  if (token === undefined) return undefined;
  // Never echo the token itself in the message.
  if (typeof token !== 'string' || !/^[\x21-\x7e]{1,4096}$/.test(token))
    throw invalid('token must be 1 to 4096 printable ASCII characters without spaces.');
  return token;
}

export function normalizeUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalid(`"${url}" is not a URL; give a base URL such as http://127.0.0.1:7000.`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw invalid(`"${url}" is not an http(s) URL.`);
  }
  return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
}

export function whole(name: string, value: number | undefined, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min) throw invalid(`${name} must be a whole number >= ${min}.`);
  return value;
}

export function optionalWhole(name: string, value: number | undefined, min: number): number | undefined {
  return value === undefined ? undefined : whole(name, value, min, min);
}

function invalid(message: string): TesseraError {
  return new TesseraError('INVALID_ARGUMENT', message);
}
