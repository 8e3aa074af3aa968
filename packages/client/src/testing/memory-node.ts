/**
 * One in-memory Tessera node behind the client's Transport interface: it answers the key-value
 * HTTP API (`/v1/kv/:key`) from a MemoryStore, so the real client (retries, errors, update(),
 * collections) runs unchanged against it. Its controls script what a cluster would do to an app:
 * concurrent writers (siblings), failures once or until cleared, writes that land but fail, and
 * how writes say they were stored (`storeOn`).
 */
import { memberText } from '@tessera/core';
import { TesseraError } from '../errors.js';
import type { WriteAck, WriteReceipt } from '../kv.js';
import {
  type Transport,
  TransportFailure,
  type TransportRequest,
  type TransportResponse,
} from '../transport/types.js';
import {
  type Fault,
  type FaultOptions,
  FaultPlan,
  type MemoryCall,
  type MemoryFaultCode,
  type MemoryOp,
  NODE_FAULTS,
  type RuleOptions,
} from './faults.js';
import { MemoryStore, type MemoryStoreOptions } from './memory-store.js';

const STATUS: Readonly<Record<string, number>> = {
  ...NODE_FAULTS,
  BAD_REQUEST: 400,
  INVALID_CONTEXT: 400,
  NOT_FOUND: 404,
  ROUTE_NOT_FOUND: 404,
};
const OPS: Readonly<Record<string, MemoryOp>> = { GET: 'get', PUT: 'put', DELETE: 'delete' };

/** The cluster the memory node stands for, in write receipts: N = 3 replicas, n0 to n2, and W = 2. */
const MEMORY_REPLICAS: readonly string[] = ['n0', 'n1', 'n2'];
const MEMORY_W = 2;

export interface MemoryCallRecord extends MemoryCall {
  /** The HTTP status answered, or the transport failure's code. */
  readonly outcome: number | MemoryFaultCode;
}

export class MemoryNode implements Transport {
  /** The base URL the client is given; errors name it as their node. */
  readonly url = 'http://tessera.memory';
  readonly store: MemoryStore;
  /** Every call the node received, in order (retries included). */
  readonly calls: MemoryCallRecord[] = [];
  private readonly plan = new FaultPlan();
  private storedOn: readonly WriteAck[] | undefined;

  constructor(options: MemoryStoreOptions = {}) {
    this.store = new MemoryStore(options);
  }

  /** Fails the next matching call (or `times` of them) with `code`; `applied` writes first. */
  fail(op: MemoryOp | '*', code: MemoryFaultCode, options: FaultOptions = {}): this {
    const { key, times, ...fault } = options;
    this.plan.add(op, { fail: { code, ...fault } }, ruleOptions(key, times));
    return this;
  }

  /** Runs `action` before serving the next matching call: e.g. a concurrent write between a read and a write. */
  before(
    op: MemoryOp | '*',
    action: (call: MemoryCall) => void | Promise<void>,
    options: RuleOptions = {},
  ): this {
    this.plan.add(op, { run: action }, options);
    return this;
  }

  /**
   * The acks that writes report in their receipt (`stored` of put, delete and update) from now on,
   * e.g. `[{ node: 'n0', as: 'replica' }, { node: 'n3', as: 'hint', for: 'n1' }]` for a write made
   * during a network split. Without acks, back to the default: every replica (n0, n1, n2)
   * acknowledged. The data is stored the same way either way.
   */
  storeOn(acks?: readonly WriteAck[]): this {
    this.storedOn = acks === undefined ? undefined : [...acks];
    return this;
  }

  /** Drops every scripted fault and action. */
  clearFaults(): this {
    this.plan.clear();
    return this;
  }

  /** A write by another client that read nothing: it becomes a sibling of what the key holds. */
  write(key: string, value: unknown): void {
    this.store.write(key, value);
  }

  /** The current values of `key`, oldest first. */
  siblings<T = unknown>(key: string): T[] {
    return this.store.siblings<T>(key);
  }

  async request(req: TransportRequest): Promise<TransportResponse> {
    const path = new URL(req.url).pathname;
    const op = OPS[req.method];
    if (!path.startsWith('/v1/kv/') || op === undefined) {
      return errorAnswer(new TesseraError('ROUTE_NOT_FOUND', `No endpoint ${req.method} ${path}.`));
    }
    const call = { op, key: decodeURIComponent(path.slice('/v1/kv/'.length)) };
    for (const action of this.plan.actionsFor(call)) await action(call);
    const fault = this.plan.faultFor(call);
    const w = Number(new URL(req.url).searchParams.get('w') ?? MEMORY_W);
    if (fault === undefined) return this.record(call, this.serve(call, req.body, w));
    if (fault.applied === true && op !== 'get') this.serve(call, req.body, w);
    this.calls.push({ ...call, outcome: STATUS[fault.code] ?? fault.code });
    return failWith(fault, call, req.signal);
  }

  private record(call: MemoryCall, answer: TransportResponse): TransportResponse {
    this.calls.push({ ...call, outcome: answer.status });
    return answer;
  }

  private serve(call: MemoryCall, body: string | undefined, w: number): TransportResponse {
    try {
      if (call.op === 'get') return this.get(call.key);
      const input = parseBody(body);
      if (call.op === 'put' && !('value' in input))
        throw new TesseraError('BAD_REQUEST', 'A put needs a value.');
      // The value's text as sent, kept as it is (a node stores the same: core json-text.ts).
      const text =
        call.op === 'put' ? (memberText(body ?? '', 'value') ?? JSON.stringify(input.value)) : undefined;
      const context = this.store.writeText(call.key, text, input.context);
      return json(200, { context, stored: this.receipt(w) });
    } catch (err) {
      if (TesseraError.is(err)) return errorAnswer(err);
      throw err;
    }
  }

  /** A write's receipt: `storeOn`'s acks, or every replica's. */
  private receipt(w: number): WriteReceipt {
    const acks = this.storedOn ?? MEMORY_REPLICAS.map((node): WriteAck => ({ node, as: 'replica' }));
    const replicas = new Set(acks.filter((a) => a.as === 'replica').map((a) => a.node)).size;
    const n = MEMORY_REPLICAS.length;
    return { acks, replicas, n, w: Number.isInteger(w) && w >= 1 && w <= n ? w : MEMORY_W };
  }

  private get(key: string): TransportResponse {
    const { texts, context } = this.store.readTexts(key);
    if (texts.length === 0) {
      const error = { code: 'NOT_FOUND', message: `Key "${key}" has no value.` };
      return json(404, context === undefined ? { error } : { error, context });
    }
    // Rendered as a node renders it: each value's stored text spliced in, never parsed.
    const siblings = texts.map((v) => `{"value":${v.text},"lastModified":"${v.lastModified.toISOString()}"}`);
    const text = `{"key":${JSON.stringify(key)},"context":${JSON.stringify(context)},"siblings":[${siblings.join(',')}]}`;
    return { status: 200, text };
  }
}

function ruleOptions(key: string | undefined, times: number | undefined): RuleOptions {
  return { ...(key === undefined ? {} : { key }), ...(times === undefined ? {} : { times }) };
}

function parseBody(body: string | undefined): { value?: unknown; context?: string } {
  const parsed: unknown = body === undefined || body === '' ? {} : JSON.parse(body);
  if (typeof parsed !== 'object' || parsed === null)
    throw new TesseraError('BAD_REQUEST', 'The body is not an object.');
  const { context } = parsed as { context?: unknown };
  if (context !== undefined && typeof context !== 'string')
    throw new TesseraError('BAD_REQUEST', 'context is a string.');
  return parsed as { value?: unknown; context?: string };
}

function json(status: number, body: unknown, retryAfterMs?: number): TransportResponse {
  const retryAfter = retryAfterMs === undefined ? undefined : String(retryAfterMs / 1000);
  return { status, text: JSON.stringify(body), ...(retryAfter === undefined ? {} : { retryAfter }) };
}

function errorAnswer(err: TesseraError, retryAfterMs?: number): TransportResponse {
  const error = {
    code: err.code,
    message: err.message,
    ...(err.details === undefined ? {} : { details: err.details }),
  };
  return json(STATUS[err.code] ?? 500, { error }, retryAfterMs);
}

async function failWith(fault: Fault, call: MemoryCall, signal: AbortSignal): Promise<TransportResponse> {
  const what = `injected by the memory node's fail('${call.op}', '${fault.code}')`;
  if (fault.code === 'NODE_UNREACHABLE') throw new TransportFailure(`connect ECONNREFUSED (${what})`, false);
  if (fault.code === 'CONNECTION_FAILED') throw new TransportFailure(`socket hang up (${what})`, true);
  if (fault.code === 'REQUEST_TIMEOUT') {
    return new Promise((_, reject) =>
      signal.addEventListener('abort', () => reject(signal.reason), { once: true }),
    );
  }
  return errorAnswer(new TesseraError(fault.code, `${fault.code} (${what}).`), fault.retryAfterMs);
}
