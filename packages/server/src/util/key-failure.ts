/**
 * Whether a failed peer call concerns one key's state rather than the peer or this node: the state
 * is too large for one peer message, or the peer (or this node) refuses it as invalid. Background
 * repair (anti-entropy, hinted handoff) skips such a key and goes on with the others, where a
 * failure of the peer or of this node stops the work until the next round: retried in order, one
 * key that can never cross would otherwise stop every key queued behind it.
 */
import { TesseraError } from '@tessera/core';

const KEY_FAILURES: ReadonlySet<string> = new Set(['VALUE_TOO_LARGE', 'BAD_REQUEST', 'CLOCK_TOO_LARGE']);

export function isKeyFailure(error: unknown): error is TesseraError {
  return TesseraError.is(error) && KEY_FAILURES.has(error.code);
}
