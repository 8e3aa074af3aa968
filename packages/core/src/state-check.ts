/**
 * The one way a state that came from another node is read, whatever brought it (a Replicate, a
 * pipe batch, a handoff, a replica's read reply, an anti-entropy reply, a transfer page): decoded
 * within bounds, so a hostile or broken peer cannot exhaust memory, then checked to hold what
 * Tessera itself writes. Values are spliced into HTTP responses as they are, so one that is not
 * JSON would corrupt every later read of its key; a time past what a Date holds would fail them.
 */
import { type DecodeLimits, decodeState } from './codec.js';
import { TesseraError } from './errors.js';
import type { KeyState } from './versions.js';

/** Bounds on one state a peer sends: at least the largest siblingsMax (10 000) and vvEntriesMax (256). */
export const PEER_DECODE_LIMITS: DecodeLimits = Object.freeze({ entriesMax: 1024, siblingsMax: 10_000 });

/** The last instant a JavaScript Date can represent, in ms since the epoch. */
export const TIME_MS_MAX = 8_640_000_000_000_000;
/** Longest node id a state may name (ids are 1 to 64 characters; room for older ones). */
const NODE_CHARS_MAX = 128;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * `bytes` (core `encodeState`) from a peer as a state; BAD_REQUEST if they do not decode within
 * PEER_DECODE_LIMITS or hold something Tessera would never have written.
 */
export function decodePeerState(bytes: Uint8Array): KeyState {
  const state = decodeState(bytes, PEER_DECODE_LIMITS);
  checkReceivedState(state);
  return state;
}

/** Throws BAD_REQUEST naming the first thing in `state` that Tessera would never have written. */
export function checkReceivedState(state: KeyState): void {
  for (const entry of state.vv) {
    checkNode(entry.node);
    checkTime(entry.timestampMs, 'a clock entry time');
  }
  if (state.deletedAtMs !== undefined) checkTime(state.deletedAtMs, 'its deletion time');
  for (const sibling of state.siblings) {
    checkNode(sibling.dot.node);
    if (sibling.dot.counter < 1) invalid('a sibling has a version counter below 1');
    checkTime(sibling.lastModifiedMs, 'a sibling time');
    if (!isJsonText(sibling.value)) invalid('a sibling value is not UTF-8 JSON text');
  }
}

function checkNode(node: string): void {
  if (node.length === 0 || node.length > NODE_CHARS_MAX) invalid('a node id is empty or too long');
}

function checkTime(ms: number, what: string): void {
  if (ms > TIME_MS_MAX) invalid(`${what} is past the year 275760`);
}

/** Whether `value` is UTF-8 text holding one JSON value. */
export function isJsonText(value: Uint8Array): boolean {
  try {
    JSON.parse(utf8.decode(value));
    return true;
  } catch {
    return false;
  }
}

function invalid(problem: string): never {
  throw new TesseraError('BAD_REQUEST', `The state sent by the peer is malformed: ${problem}.`);
}
