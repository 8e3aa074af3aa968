/**
 * The replication pipe's two calls, checked by hand. They arrive thousands of times a second, and
 * zod's generic walk of `replicateRequestSchema` was 3-4% of a replica's CPU under writes
 * (docs/benchmarks.md, eighth round). Each check accepts exactly what its schema accepts, with the
 * same result (pipe-requests.test.ts holds them to it); anything else goes through the schema, so
 * a malformed call gets the schema's error message.
 */

import { fitsKeyBytes, NODE_ID, parseWire, readRequestSchema, replicateRequestSchema } from './convert.js';
import type * as pb from './generated/tessera/peer/v1/peer.js';

export interface ReplicateCall {
  readonly key: string;
  readonly state: Uint8Array;
  readonly hint?: string;
}

export function parseReplicateCall(request: pb.ReplicateRequest): ReplicateCall {
  const { key, state, hint } = request as { key: unknown; state: unknown; hint: unknown };
  if (isKey(key) && state instanceof Uint8Array && state.byteLength > 0) {
    if (hint === undefined) return { key, state };
    if (typeof hint === 'string' && NODE_ID.test(hint)) return { key, state, hint };
  }
  return parseWire(replicateRequestSchema, request, 'BAD_REQUEST', 'Peer Replicate request');
}

export function parseReadCall(request: pb.ReadRequest): { readonly key: string } {
  const { key } = request as { key: unknown };
  if (isKey(key)) return { key };
  return parseWire(readRequestSchema, request, 'BAD_REQUEST', 'Peer Read request');
}

function isKey(key: unknown): key is string {
  return typeof key === 'string' && key.length > 0 && fitsKeyBytes(key);
}
