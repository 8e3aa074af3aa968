/**
 * A fake cluster behind a Transport: nodes by URL that answer the HTTP API from one in-memory map
 * (no siblings), with per-node faults. Fast and deterministic, for routing and retry tests.
 */
import { partitionOf, preferenceList, type Ring } from '@tessera/core';
import {
  type Transport,
  TransportFailure,
  type TransportRequest,
  type TransportResponse,
} from '../src/index.js';

export type Fault =
  | { kind: 'refuse' }
  | { kind: 'reset' }
  | { kind: 'hang' }
  | { kind: 'error'; status: number; code: string; once?: boolean; retryAfter?: string };

export interface FakeNodesOptions {
  readonly ids: readonly string[];
  readonly partitionCount?: number;
  readonly n?: number;
  /** Whether /v1/status carries `ring` (owners); without it the client must probe. */
  readonly publishRing?: boolean;
  /** A server that hashes keys differently (to test the probe's compatibility check). */
  readonly skewPartitions?: boolean;
}

export class FakeNodes implements Transport {
  readonly ring: Ring;
  readonly log: { method: string; url: string; nodeId: string }[] = [];
  readonly faults = new Map<string, Fault>();
  readonly data = new Map<string, unknown>();
  private counter = 0;

  constructor(private readonly options: FakeNodesOptions) {
    const q = options.partitionCount ?? 16;
    const owners = Array.from({ length: q }, (_, p) => options.ids[p % options.ids.length]!);
    this.ring = { partitionCount: q, owners, version: 7 };
  }

  url(id: string): string {
    return `http://${id}.test:7000`;
  }

  /** The key's replicas, as the server would compute them. */
  replicas(key: string): string[] {
    return preferenceList(this.ring, partitionOf(this.ring.partitionCount, key)).slice(
      0,
      this.options.n ?? 2,
    );
  }

  async request(req: TransportRequest): Promise<TransportResponse> {
    const url = new URL(req.url);
    const nodeId = url.hostname.replace(/\.test$/, '');
    this.log.push({ method: req.method, url: req.url, nodeId });
    const fault = this.faults.get(nodeId);
    if (fault?.kind === 'refuse') throw new TransportFailure('connect ECONNREFUSED', false);
    if (fault?.kind === 'reset') throw new TransportFailure('socket hang up', true);
    if (fault?.kind === 'hang') {
      return new Promise((_, reject) =>
        req.signal.addEventListener('abort', () => reject(req.signal.reason)),
      );
    }
    if (fault?.kind === 'error') {
      if (fault.once === true) this.faults.delete(nodeId);
      return {
        ...json(fault.status, { error: { code: fault.code, message: `fake ${fault.code}` } }),
        ...(fault.retryAfter === undefined ? {} : { retryAfter: fault.retryAfter }),
      };
    }
    return this.answer(nodeId, req, url);
  }

  private answer(nodeId: string, req: TransportRequest, url: URL): TransportResponse {
    const path = url.pathname;
    if (path === '/v1/status') {
      const { partitionCount, owners, version } = this.ring;
      return json(200, {
        nodeId,
        n: this.options.n ?? 2,
        partitionCount,
        ringVersion: version,
        members: this.options.ids.map((id) => ({
          nodeId: id,
          http: `${id}.test:7000`,
          status: 'up',
          partitions: owners.filter((o) => o === id).length,
        })),
        ...(this.options.publishRing === true ? { ring: { partitionCount, owners, version } } : {}),
      });
    }
    if (path.startsWith('/v1/preference-list/')) {
      const key = decodeURIComponent(path.slice('/v1/preference-list/'.length));
      const partition = partitionOf(this.ring.partitionCount, key);
      const reported =
        this.options.skewPartitions === true ? (partition + 1) % this.ring.partitionCount : partition;
      return json(200, { key, partition: reported, nodes: preferenceList(this.ring, partition) });
    }
    const key = decodeURIComponent(path.slice('/v1/kv/'.length));
    const context = `ctx-${++this.counter}`;
    if (req.method === 'GET') {
      if (!this.data.has(key)) return json(404, { error: { code: 'NOT_FOUND', message: 'none' } });
      return json(200, {
        key,
        context,
        siblings: [{ value: this.data.get(key), lastModified: new Date(0).toISOString() }],
      });
    }
    if (req.method === 'DELETE' && !this.data.has(key) && req.body === '{}') {
      return json(404, { error: { code: 'NOT_FOUND', message: 'nothing to delete' } });
    }
    if (req.method === 'PUT') this.data.set(key, (JSON.parse(req.body ?? '{}') as { value: unknown }).value);
    else this.data.delete(key);
    return json(200, { context });
  }
}

function json(status: number, body: unknown): TransportResponse {
  return { status, text: JSON.stringify(body) };
}
