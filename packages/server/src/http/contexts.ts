/**
 * Contexts as clients see them. With a cluster secret, every context leaving the HTTP API is
 * sealed with an HMAC under a key derived from the secret, and every context coming in must carry
 * a valid seal (core/context-seal.ts); without one, contexts pass as they are (checksummed, not
 * signed). Peers exchange unsealed contexts: they are authenticated already.
 */
import { createHmac } from 'node:crypto';
import { type ContextMac, sealContext, unsealContext } from '@tessera/core';

export interface ContextSeal {
  seal(key: string, context: string): string;
  open(key: string, context: string): string;
}

const PLAIN: ContextSeal = { seal: (_key, context) => context, open: (_key, context) => context };
/** 128 bits of HMAC-SHA256, as base64url. */
const TAG_BYTES = 16;

export function contextSeal(clusterSecret: string | undefined): ContextSeal {
  if (clusterSecret === undefined) return PLAIN;
  // A key of its own, so the MAC over contexts can never double as a peer proof.
  const key = createHmac('sha256', clusterSecret).update('tessera-context-v1').digest();
  const mac: ContextMac = (data) =>
    createHmac('sha256', key).update(data).digest().subarray(0, TAG_BYTES).toString('base64url');
  return {
    seal: (k, context) => sealContext(k, context, mac),
    open: (k, context) => unsealContext(k, context, mac),
  };
}
