/**
 * The client's copy of the ring (paper 6.4): the partition owners and how to reach each member,
 * learned from one node. The owners come from `ring` in GET /v1/status when the node publishes it;
 * otherwise the client reconstructs them by asking GET /v1/preference-list for one key of each
 * partition (Q small requests to one node) and keeps the result until the ring version changes.
 */
import { partitionCounts, partitionOf, preferenceList, type Ring } from '@tessera/core';
import { TesseraError } from '../errors.js';
import { isRecord } from '../http/call.js';
import { type NodeStatus, parseStatus, type StatusMember } from './status.js';

export interface RingMember {
  readonly nodeId: string;
  /** Base URL of the member's HTTP API. */
  readonly url: string;
  /** Down in the view of the node the ring was learned from. */
  readonly down: boolean;
}

export interface RingView {
  readonly ring: Ring;
  readonly n: number;
  readonly clusterId: string | undefined;
  readonly members: ReadonlyMap<string, RingMember>;
  /** `status` when the node published its owners, `probe` when the client reconstructed them. */
  readonly source: 'status' | 'probe';
  /** The node it was learned from. */
  readonly from: string;
}

/** A GET returning the parsed JSON body; throws a TesseraError on failure. */
export type Getter = (baseUrl: string, path: string) => Promise<unknown>;

/**
 * Maps a member to the base URL the client should use for it, or undefined when this client
 * cannot reach it (it is then never routed to; calls go to the other members and the seeds).
 */
export type NodeUrl = (
  member: { readonly nodeId: string; readonly http: string },
  from: string,
) => string | undefined;

export const defaultNodeUrl = (member: { readonly http: string }, from: string): string => {
  const origin = new URL(from);
  const url = new URL(`${origin.protocol}//${member.http}`);
  // A node listening on every interface advertises 0.0.0.0: reach it the way `from` was reached.
  if (url.hostname === '0.0.0.0' || url.hostname === '[::]') url.hostname = origin.hostname;
  return url.origin;
};

/**
 * A browser's default: a member's default URL only when it is one of the `listed` node URLs the
 * client was given (the nodes the page is meant to call, and that allow its origin); any other
 * member (a loopback or private address the ring advertises, say) is not routed to.
 */
export function listedNodesOnly(listed: readonly string[]): NodeUrl {
  const allowed = new Set(listed);
  return (member, from) => {
    const url = defaultNodeUrl(member, from);
    return allowed.has(url) ? url : undefined;
  };
}

/** The ring's owners for the key's partition, in preference order: the first `n` are replicas. */
export function preferenceFor(view: RingView, key: string): string[] {
  return [...preferenceList(view.ring, partitionOf(view.ring.partitionCount, key))];
}

const PROBE_CONCURRENCY = 8;
const PROBE_ROUNDS_MAX = 3;

export async function loadRing(
  get: Getter,
  from: string,
  previous: RingView | undefined,
  nodeUrl: NodeUrl = defaultNodeUrl,
): Promise<RingView> {
  for (let round = 0; round < PROBE_ROUNDS_MAX; round++) {
    const status = parseStatus(await get(from, '/v1/status'), from);
    const members = memberMap(status.members, from, nodeUrl);
    const base = { n: status.n, clusterId: status.clusterId, members, from };
    if (status.ring !== undefined) return { ...base, ring: status.ring, source: 'status' };
    if (previous !== undefined && sameRing(previous, status)) {
      return { ...base, ring: previous.ring, source: previous.source };
    }
    const owners = await probeOwners(get, from, status.partitionCount);
    // The owners must all be from one ring version: check it did not change while probing.
    const after = parseStatus(await get(from, '/v1/status'), from);
    if (after.ringVersion === status.ringVersion) {
      const ring = { partitionCount: status.partitionCount, owners, version: status.ringVersion };
      return { ...base, ring, source: 'probe' };
    }
  }
  throw new TesseraError('BAD_RESPONSE', `The ring at ${from} kept changing while the client read it.`, {
    node: from,
  });
}

/** Same version, same partition count and the same partitions per member: nothing to re-read. */
function sameRing(previous: RingView, status: NodeStatus): boolean {
  if (previous.ring.version !== status.ringVersion) return false;
  if (previous.ring.partitionCount !== status.partitionCount) return false;
  if (previous.clusterId !== status.clusterId) return false;
  const counts = partitionCounts(previous.ring);
  return status.members.every((m) => (counts.get(m.nodeId) ?? 0) === m.partitions);
}

function memberMap(
  members: readonly StatusMember[],
  from: string,
  nodeUrl: NodeUrl,
): Map<string, RingMember> {
  const map = new Map<string, RingMember>();
  for (const m of members) {
    const url = nodeUrl(m, from);
    if (url !== undefined) map.set(m.nodeId, { nodeId: m.nodeId, url, down: m.status === 'down' });
  }
  return map;
}

/** One probe key per partition, found by hashing candidates locally (memoized per Q). */
const probeKeyCache = new Map<number, string[]>();

export function probeKeys(partitionCount: number): string[] {
  const cached = probeKeyCache.get(partitionCount);
  if (cached !== undefined) return cached;
  const keys = new Array<string | undefined>(partitionCount).fill(undefined);
  let missing = partitionCount;
  for (let i = 0; missing > 0; i++) {
    const key = `~ring-probe/${i}`;
    const p = partitionOf(partitionCount, key);
    if (keys[p] === undefined) {
      keys[p] = key;
      missing--;
    }
  }
  const done = keys as string[];
  probeKeyCache.set(partitionCount, done);
  return done;
}

async function probeOwners(get: Getter, from: string, partitionCount: number): Promise<string[]> {
  const keys = probeKeys(partitionCount);
  const owners = new Array<string>(partitionCount);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < partitionCount) {
      const p = next++;
      const body = await get(from, `/v1/preference-list/${encodeURIComponent(keys[p]!)}`);
      if (!isRecord(body) || !Array.isArray(body.nodes) || typeof body.nodes[0] !== 'string') {
        throw new TesseraError('BAD_RESPONSE', `${from}/v1/preference-list answered without nodes.`, {
          node: from,
        });
      }
      if (body.partition !== p) {
        // The node hashes keys differently from this client: routing would send keys astray.
        throw new TesseraError(
          'BAD_RESPONSE',
          `${from} puts key ${keys[p]} in partition ${String(body.partition)}, this client in ${p}: incompatible versions.`,
          { node: from },
        );
      }
      owners[p] = body.nodes[0];
    }
  };
  await Promise.all(Array.from({ length: Math.min(PROBE_CONCURRENCY, partitionCount) }, worker));
  return owners;
}
