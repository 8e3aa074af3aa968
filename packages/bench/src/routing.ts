/**
 * Client-driven coordination (paper 6.4): the load generator sends each request straight to the
 * first replica of its key, as `@tessera/client` does. The ring comes from the `ring` field of
 * GET /v1/status, read and mapped to preference lists by the client's own routing code.
 */
import { loadRing, preferenceFor, type RingView } from '@tessera/client/routing';
import type { Pool } from 'undici';
import { createPool } from './http.js';

export interface KeyRouter {
  /** The pool of the key's first replica. */
  poolFor(key: string): Pool;
  /** One pool per member. */
  readonly pools: readonly Pool[];
}

const STATUS_TIMEOUT_MS = 5_000;

async function getJson(baseUrl: string, path: string): Promise<unknown> {
  const res = await fetch(`${baseUrl}${path}`, { signal: AbortSignal.timeout(STATUS_TIMEOUT_MS) });
  if (!res.ok) throw new Error(`GET ${baseUrl}${path} answered ${res.status}`);
  return res.json();
}

/** Reads the ring from `from` once and opens one pool of `connections` to every member. */
export async function createKeyRouter(from: string, connections: number): Promise<KeyRouter> {
  const view: RingView = await loadRing(getJson, from, undefined);
  const byUrl = new Map<string, Pool>();
  for (const member of view.members.values()) byUrl.set(member.url, createPool(member.url, connections));
  const pools = [...byUrl.values()];
  return {
    pools,
    poolFor: (key) => {
      const first = view.members.get(preferenceFor(view, key)[0]!);
      return (first === undefined ? undefined : byUrl.get(first.url)) ?? pools[0]!;
    },
  };
}
