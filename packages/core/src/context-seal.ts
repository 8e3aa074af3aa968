/**
 * Sealed contexts: a context plus a MAC under a key only the cluster's nodes hold, so a client
 * can only send back contexts a node issued, never one forged to claim versions it never saw
 * (which would let its write supersede them). The MAC function is injected (HMAC-SHA256 under the
 * cluster secret in the server), so core stays free of Node APIs.
 *
 * Format: `<context>.<tag>`, the tag being what `mac` returns for `key`, NUL, context; it must be
 * base64url text. Unsealing checks the tag in time independent of where it differs.
 */
import { TesseraError } from './errors.js';

/** A keyed MAC over `data`, as base64url text of a fixed length. */
export type ContextMac = (data: string) => string;

export function sealContext(key: string, context: string, mac: ContextMac): string {
  return `${context}.${mac(`${key}\u0000${context}`)}`;
}

/** The context inside `sealed`, or INVALID_CONTEXT when the tag is missing or wrong. */
export function unsealContext(key: string, sealed: string, mac: ContextMac): string {
  const dot = sealed.lastIndexOf('.');
  const context = dot < 0 ? '' : sealed.slice(0, dot);
  const tag = dot < 0 ? '' : sealed.slice(dot + 1);
  if (context === '' || !sameText(tag, mac(`${key}\u0000${context}`))) {
    throw new TesseraError(
      'INVALID_CONTEXT',
      'The context is not valid: its signature does not match (this cluster signs contexts; was it edited, forged, or issued by another cluster or for another key?). Send back the context exactly as a read of this key returned it, or omit it to write a new sibling.',
    );
  }
  return context;
}

/** Equality whose time does not depend on the position of the first difference. */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
