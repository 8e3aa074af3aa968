/**
 * The context a client gets with every read and sends back with a write: an opaque,
 * integrity-checked string naming the versions it saw (paper 4.4). It is bound to its key, so a
 * context from another key, or one that was truncated or edited, is a clear INVALID_CONTEXT error.
 *
 * A context is a version vector plus, optionally, single dots outside it: the context a put
 * returns covers what the writer saw and the one version it wrote, not other writes that the
 * same coordinator made concurrently (a plain vector could not say that).
 *
 * A context may also name a **coordinator** (paper sections 5 and 6.4): the node that coordinated
 * the read when it is a replica of the key (its own copy is part of every read it coordinates),
 * else the replica that answered the read fastest, or the node that coordinated the write. The
 * next write with this context goes to that node first, which spreads writes over the replicas
 * and makes reading one's own writes likelier.
 * It is advice: a write goes elsewhere when that node is down or no longer a replica.
 *
 * Format: `c1.<base64url(JSON {"v": [[node, counter], …], "d": [[node, counter], …], "c"?: node})>.<checksum of key and payload>`.
 */

export interface CausalContext {
  readonly vv: VersionVector;
  /** Single writes seen beyond `vv`. */
  readonly dots: readonly Dot[];
  /** The node the next write with this context should be coordinated by, if any. */
  readonly coordinator?: NodeId;
}

export const EMPTY_CONTEXT: CausalContext = Object.freeze({ vv: Object.freeze([]), dots: Object.freeze([]) });

import type { Dot, NodeId, VersionVector, VvEntry } from './clock.js';
import { TesseraError } from './errors.js';
import { checksum64Text, utf8 } from './hash.js';

const PREFIX = 'c1.';
export const CONTEXT_CHARS_MAX = 65_536;
const ENTRIES_MAX = 1024;
const NODE_ID_CHARS_MAX = 128;

export function encodeContext(key: string, context: CausalContext): string {
  // Written by hand rather than through an object and JSON.stringify: every read and write answers
  // with a context. Node ids go through JSON.stringify, which escapes what JSON needs.
  let json = `{"v":${entriesJson(context.vv)},"d":${entriesJson(context.dots)}`;
  if (context.coordinator !== undefined) json += `,"c":${JSON.stringify(context.coordinator)}`;
  json += '}';
  // Node ids are ASCII in practice, and then the JSON is too: btoa takes it as it is, without the
  // detour through UTF-8 bytes.
  const payload = ASCII.test(json) ? toBase64url(btoa(json)) : base64url(utf8(json));
  return `${PREFIX}${payload}.${sign(key, payload)}`;
}

function entriesJson(entries: readonly Dot[]): string {
  let json = '[';
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    json += `${i === 0 ? '' : ','}[${JSON.stringify(e.node)},${JSON.stringify(e.counter)}]`;
  }
  return `${json}]`;
}

export function decodeContext(key: string, context: string): CausalContext {
  const { payload, checksum } = split(context);
  if (checksum !== sign(key, payload)) {
    throw invalid('its checksum does not match (was it edited, truncated, or issued for another key?)');
  }
  const parsed = readPayload(payload);
  const { v, d, c } = parsed as { v?: unknown; d?: unknown; c?: unknown };
  const dots = parseEntries(d).map((e) => ({ node: e.node, counter: e.counter }));
  if (c === undefined) return { vv: parseEntries(v), dots };
  if (!isNodeId(c)) throw invalid('it names an invalid coordinator');
  return { vv: parseEntries(v), dots, coordinator: c };
}

/**
 * The coordinator a context names, read without checking it (clients route writes with it; the
 * node that receives the write checks the whole context). Undefined for anything unreadable.
 */
export function contextCoordinator(context: string): NodeId | undefined {
  try {
    // The payload ends at the first dot: a cluster that signs contexts appends another part.
    const { payload } = split(context);
    const { c } = readPayload(payload.split('.')[0]!) as { c?: unknown };
    return isNodeId(c) ? c : undefined;
  } catch {
    return undefined;
  }
}

function split(context: string): { payload: string; checksum: string } {
  if (context.length > CONTEXT_CHARS_MAX)
    throw invalid(`it is longer than ${CONTEXT_CHARS_MAX} characters, more than Tessera ever issues`);
  if (!context.startsWith(PREFIX)) throw invalid('it does not start with "c1."');
  const rest = context.slice(PREFIX.length);
  const dot = rest.lastIndexOf('.');
  if (dot < 0) throw invalid('it has no checksum (was it truncated?)');
  return { payload: rest.slice(0, dot), checksum: rest.slice(dot + 1) };
}

function readPayload(payload: string): object {
  let parsed: unknown;
  try {
    parsed = JSON.parse(payloadText(payload));
  } catch {
    throw invalid('its payload is not readable');
  }
  if (typeof parsed !== 'object' || parsed === null) throw invalid('its payload is not a clock');
  return parsed;
}

function isNodeId(node: unknown): node is NodeId {
  return typeof node === 'string' && node.length > 0 && node.length <= NODE_ID_CHARS_MAX;
}

function parseEntries(parsed: unknown): VvEntry[] {
  if (!Array.isArray(parsed) || parsed.length > ENTRIES_MAX) throw invalid('its payload is not a clock');
  const entries: VvEntry[] = [];
  for (const item of parsed) {
    if (!Array.isArray(item) || item.length !== 2) throw invalid('its payload is not a clock');
    const [node, counter] = item as unknown[];
    if (!isNodeId(node)) throw invalid('it names an invalid node');
    if (typeof counter !== 'number' || !Number.isSafeInteger(counter) || counter < 1) {
      throw invalid('it holds an invalid counter');
    }
    const prev = entries[entries.length - 1];
    if (prev !== undefined && prev.node >= node) throw invalid('its clock entries are out of order');
    entries.push({ node, counter, timestampMs: 0 });
  }
  return entries;
}

function sign(key: string, payload: string): string {
  return checksum64Text(`${key}\u0000${payload}`);
}

function invalid(why: string): TesseraError {
  return new TesseraError(
    'INVALID_CONTEXT',
    `The context is not valid: ${why}. Send back the context string exactly as a read of this key returned it, or omit it to write a new sibling.`,
  );
}

/** Printable ASCII; JSON.stringify escapes every control character, so this is all ASCII JSON. */
const ASCII = /^[\x20-\x7e]*$/;

function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return toBase64url(btoa(binary));
}

function toBase64url(base64: string): string {
  let end = base64.length;
  while (end > 0 && base64.charCodeAt(end - 1) === 61 /* = */) end--;
  return base64.slice(0, end).replaceAll('+', '-').replaceAll('/', '_');
}

/** Decodes UTF-8 strictly: a payload that is not UTF-8 is not a context. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The payload's JSON text. An ASCII payload (the usual one) is its own UTF-8 decoding. */
function payloadText(text: string): string {
  const binary = unbase64urlBinary(text);
  if (!HIGH_BYTE.test(binary)) return binary;
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return UTF8.decode(out);
}

/** A byte of 0x80 or more in a binary string; without one, the bytes are ASCII, UTF-8 as they are. */
const HIGH_BYTE = /[\u0080-\uffff]/;

function unbase64urlBinary(text: string): string {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new Error('not base64url');
  const b64 = text.replaceAll('-', '+').replaceAll('_', '/');
  return atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
}
