/**
 * The peer protocol version (docs/operations.md, "Versions and upgrades"): every peer call carries
 * the caller's version, and a node serves callers of its own version and of the one before, so a
 * cluster is upgraded one node at a time, one version apart. Version 1 is the protocol of nodes
 * that sent no version (before identity fencing); version 2 adds member identities.
 */
import { TesseraError } from './errors.js';

/** The peer protocol this build speaks. */
export const PEER_PROTOCOL_VERSION = 2;
/** The oldest caller version this build serves: one version apart. */
export const PEER_PROTOCOL_MIN = PEER_PROTOCOL_VERSION - 1;
/** What a caller that sends no version speaks. */
export const PEER_PROTOCOL_UNVERSIONED = 1;

/** The caller's version from its metadata value (absent: unversioned); undefined if malformed. */
export function parseProtocolVersion(text: string | undefined): number | undefined {
  if (text === undefined) return PEER_PROTOCOL_UNVERSIONED;
  if (!/^\d{1,6}$/.test(text)) return undefined;
  return Number(text);
}

/** Why a caller speaking `text` (its metadata value) is refused, or undefined if it is served. */
export function protocolRefusal(text: string | undefined): TesseraError | undefined {
  const theirs = parseProtocolVersion(text);
  if (theirs !== undefined && theirs >= PEER_PROTOCOL_MIN && theirs <= PEER_PROTOCOL_VERSION)
    return undefined;
  const shown = theirs === undefined ? `"${String(text).slice(0, 20)}" (not a version)` : String(theirs);
  return new TesseraError(
    'PROTOCOL_MISMATCH',
    `The caller speaks peer protocol ${shown}; this node speaks ${PEER_PROTOCOL_VERSION} and serves ${PEER_PROTOCOL_MIN} to ${PEER_PROTOCOL_VERSION}. Nodes must be at most one version apart: upgrade one node at a time, each to the next version, and finish one upgrade before starting the next (docs/operations.md, "Versions and upgrades").`,
    {
      callerVersion: theirs ?? null,
      version: PEER_PROTOCOL_VERSION,
      minVersion: PEER_PROTOCOL_MIN,
    },
  );
}
