/**
 * The key-value store behind the in-memory client: one node's worth of Tessera's sibling
 * semantics, from @tessera/core itself (dotted version vectors, `applyWrite`, contexts bound to
 * their key). A put with a read's context replaces exactly what that read saw; a put without one,
 * or with a stale one, leaves a sibling; a delete leaves a tombstone whose context a later put
 * can supersede. Values are kept as JSON text: the text a put sent comes back as it is, as from a
 * node (a number past 2^53 stays exact).
 */
import {
  applyWrite,
  type CausalContext,
  contextAfterWrite,
  decodeContext,
  EMPTY_CONTEXT,
  EMPTY_STATE,
  encodeContext,
  type KeyState,
  latestDot,
} from '@tessera/core';
import { TesseraError } from '../errors.js';
import { type JsonCodec, STANDARD_JSON, serializeBody } from '../http/call.js';
import type { Version } from '../resolvers/types.js';

const ACTOR = 'memory';
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export interface MemoryStoreOptions {
  /** The clock stamping `lastModified`, ms. Default: Date.now, made strictly increasing. */
  readonly now?: () => number;
  /** A write that would leave more siblings is refused (TOO_MANY_SIBLINGS), as by a node. Default 100. */
  readonly siblingsMax?: number;
  /** Largest value in bytes of JSON (VALUE_TOO_LARGE). Default 1 MiB, as a node. */
  readonly valueBytesMax?: number;
  /**
   * How `read`, `siblings` and `write` turn values into JSON text and back (the client option of
   * that name; `createMemoryClient` passes its own). Default JSON.parse and JSON.stringify.
   */
  readonly json?: JsonCodec;
}

/** A version as stored: its value's JSON text. */
export interface StoredText {
  readonly text: string;
  readonly lastModified: Date;
}

export interface StoredRead {
  readonly versions: Version<unknown>[];
  /** Undefined when the key was never written. */
  readonly context: string | undefined;
}

export class MemoryStore {
  private readonly states = new Map<string, KeyState>();
  private readonly now: () => number;
  private readonly siblingsMax: number;
  private readonly valueBytesMax: number;
  private readonly json: JsonCodec;

  constructor(options: MemoryStoreOptions = {}) {
    this.json = options.json ?? STANDARD_JSON;
    this.now = options.now ?? increasing(Date.now);
    this.siblingsMax = options.siblingsMax ?? 100;
    this.valueBytesMax = options.valueBytesMax ?? 1024 * 1024;
  }

  /** Every current version of `key` and the context covering them (a tombstone's, after a delete). */
  read(key: string): StoredRead {
    const { texts, context } = this.readTexts(key);
    const versions = texts.map((v) => ({
      value: this.json.parse(v.text),
      lastModified: v.lastModified,
    }));
    return { versions, context };
  }

  /** `read`, with each value as the JSON text it was written as. */
  readTexts(key: string): { readonly texts: StoredText[]; readonly context: string | undefined } {
    const state = this.states.get(key) ?? EMPTY_STATE;
    const texts = state.siblings.map((s) => ({
      text: decoder.decode(s.value),
      lastModified: new Date(s.lastModifiedMs),
    }));
    const context = state.vv.length === 0 ? undefined : encodeContext(key, { vv: state.vv, dots: [] });
    return { texts, context };
  }

  /**
   * A put (`value` set) or delete (`value` undefined) with the context of a read, or none: a put
   * without one supersedes nothing, a delete without one deletes every current version (a node
   * reads first). Answers the context of the new version; NOT_FOUND for a delete of nothing.
   */
  write(key: string, value: unknown, context?: string): string {
    // As the client serializes a value before sending it: INVALID_VALUE for one JSON cannot hold.
    return this.writeText(key, serializeBody(value, key, this.json), context);
  }

  /** `write` of a value given as its JSON text (undefined: a delete), kept as it is. */
  writeText(key: string, text: string | undefined, context?: string): string {
    const stored = this.states.get(key) ?? EMPTY_STATE;
    const seen = this.contextOf(key, stored, text, context);
    const bytes = text === undefined ? undefined : this.encode(text);
    const next = applyWrite(stored, {
      actor: ACTOR,
      context: seen,
      value: bytes,
      nowMs: this.now(),
      vvEntriesMax: 64,
    });
    if (next.siblings.length > this.siblingsMax && next.siblings.length > stored.siblings.length) {
      throw new TesseraError(
        'TOO_MANY_SIBLINGS',
        `Key "${key}" already has ${stored.siblings.length} siblings (limit ${this.siblingsMax}).`,
        { details: { siblings: stored.siblings.length, siblingsMax: this.siblingsMax } },
      );
    }
    this.states.set(key, next);
    const written = bytes === undefined ? undefined : latestDot(next, ACTOR);
    return encodeContext(key, contextAfterWrite(seen, written));
  }

  /** The current values of `key` (empty when it has none), oldest first. */
  siblings<T = unknown>(key: string): T[] {
    return this.read(key).versions.map((v) => v.value as T);
  }

  /** Keys with a live value, sorted. */
  keys(): string[] {
    return [...this.states.entries()]
      .filter(([, s]) => s.siblings.length > 0)
      .map(([k]) => k)
      .sort();
  }

  /** Forgets every key. */
  clear(): void {
    this.states.clear();
  }

  private contextOf(
    key: string,
    stored: KeyState,
    text: string | undefined,
    context: string | undefined,
  ): CausalContext {
    if (context !== undefined) return decodeContext(key, context);
    if (text !== undefined) return EMPTY_CONTEXT;
    if (stored.siblings.length === 0)
      throw new TesseraError('NOT_FOUND', `Key "${key}" has no value to delete.`);
    return { vv: stored.vv, dots: [] };
  }

  private encode(text: string): Uint8Array {
    const bytes = encoder.encode(text);
    if (bytes.length > this.valueBytesMax) {
      throw new TesseraError(
        'VALUE_TOO_LARGE',
        `The value is ${bytes.length} bytes serialized; the limit is ${this.valueBytesMax}.`,
        { details: { bytes: bytes.length, valueBytesMax: this.valueBytesMax } },
      );
    }
    return bytes;
  }
}

/** A clock that never repeats a reading, so that siblings' lastModified always differ. */
function increasing(clock: () => number): () => number {
  let last = Number.NEGATIVE_INFINITY;
  return () => {
    last = Math.max(clock(), last + 1);
    return last;
  };
}
