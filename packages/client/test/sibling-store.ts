/**
 * A one-node fake with real sibling semantics for unit tests: a put replaces the versions its
 * context names and keeps the others; a context is the list of version ids a read returned.
 */
import type { Transport, TransportRequest, TransportResponse } from '../src/index.js';

interface Stored {
  readonly id: number;
  readonly value: unknown;
}

export class SiblingStore implements Transport {
  readonly versions = new Map<string, Stored[]>();
  /** Answers to give instead of the next requests, first in first out. */
  readonly script: (TransportResponse | 'reset')[] = [];
  puts = 0;
  private nextId = 1;

  readonly url = 'http://store.test:7000';

  /** Adds a sibling directly, as a concurrent writer would. */
  add(key: string, value: unknown): void {
    const list = this.versions.get(key) ?? [];
    list.push({ id: this.nextId++, value });
    this.versions.set(key, list);
  }

  async request(req: TransportRequest): Promise<TransportResponse> {
    const path = new URL(req.url).pathname;
    if (path === '/v1/status')
      return { status: 404, text: '{"error":{"code":"ROUTE_NOT_FOUND","message":"-"}}' };
    const key = decodeURIComponent(path.slice('/v1/kv/'.length));
    if (req.method === 'PUT') this.puts++;
    const scripted = this.script.shift();
    if (scripted === 'reset') {
      if (req.method === 'PUT') this.apply(key, req.body);
      throw new Error('socket hang up');
    }
    if (scripted !== undefined) return scripted;
    const list = this.versions.get(key) ?? [];
    if (req.method === 'GET') {
      if (list.length === 0) return { status: 404, text: '{"error":{"code":"NOT_FOUND","message":"-"}}' };
      const siblings = list.map((v) => ({
        value: v.value,
        lastModified: new Date(v.id * 1000).toISOString(),
      }));
      return {
        status: 200,
        text: JSON.stringify({ key, context: list.map((v) => v.id).join(','), siblings }),
      };
    }
    return { status: 200, text: JSON.stringify({ context: this.apply(key, req.body) }) };
  }

  private apply(key: string, body: string | undefined): string {
    const { value, context } = JSON.parse(body ?? '{}') as { value?: unknown; context?: string };
    const seen = new Set((context ?? '').split(',').filter(Boolean).map(Number));
    // A delete without context removes every version (the node reads first, then deletes).
    const blindDelete = value === undefined && context === undefined;
    const kept = blindDelete ? [] : (this.versions.get(key) ?? []).filter((v) => !seen.has(v.id));
    const id = this.nextId++;
    this.versions.set(key, value === undefined ? kept : [...kept, { id, value }]);
    return String(id);
  }
}
