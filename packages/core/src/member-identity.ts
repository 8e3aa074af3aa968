/**
 * A member's identity (docs/operations.md, "Identity fencing"): each data dir is one identity of
 * its node id, a random tag minted when the dir is first used, carried in the node's member record
 * with a generation the admitting seed raises. A node that rejoins under its id with a new data
 * dir (a wipe, a replacement) gets the next generation, so the old dir's identity is superseded
 * (fencing.ts). Not to be confused with `Member.incarnation`, the version of a member record, nor
 * with the actor incarnations of actors.ts (renewed after a crash).
 */
import type { Rng } from './random.js';

export interface MemberIdentity {
  /** Minted when the data dir is first used; never changes for that dir. */
  readonly tag: string;
  /** Raised by the seed that admits a new data dir under a known id: the higher one supersedes. */
  readonly generation: number;
}

const TAG_CHARS = 12;
const TAG = /^[0-9a-z]{12}$/;
/** Generations stay far below 2^53 (one per rejoin). */
export const IDENTITY_GENERATION_MAX = 1_000_000_000;

/** A new random identity tag: 12 base-36 characters (about 62 bits). */
export function newIdentityTag(random: Rng): string {
  let tag = '';
  for (let i = 0; i < TAG_CHARS; i++) tag += Math.floor(random() * 36).toString(36);
  return tag;
}

export function isIdentityTag(tag: string): boolean {
  return TAG.test(tag);
}

/** `<generation>.<tag>`, as a caller presents it in the `tessera-identity` metadata. */
export function formatIdentity(identity: MemberIdentity): string {
  return `${identity.generation}.${identity.tag}`;
}

/** The identity in `<generation>.<tag>`, or undefined if malformed. */
export function parseIdentity(text: string): MemberIdentity | undefined {
  const match = /^(\d{1,10})\.([0-9a-z]{12})$/.exec(text);
  if (match === null) return undefined;
  const generation = Number(match[1]);
  return generation <= IDENTITY_GENERATION_MAX ? { tag: match[2]!, generation } : undefined;
}

/**
 * Orders two identities of one node id: the higher generation wins, and two admitted at once
 * (through two seeds) are ordered by tag. A record without an identity (written before identities
 * existed) ranks as generation 0 with no tag: it orders equal to any generation-0 identity.
 */
export function compareIdentities(a: MemberIdentity | undefined, b: MemberIdentity | undefined): number {
  const ga = a?.generation ?? 0;
  const gb = b?.generation ?? 0;
  if (ga !== gb) return ga < gb ? -1 : 1;
  if (a === undefined || b === undefined || a.tag === b.tag) return 0;
  return a.tag < b.tag ? -1 : 1;
}
