/**
 * What one node asks of another. The gRPC server in this folder serves a `PeerApi` handler; the
 * gRPC client implements `PeerClient`. Nothing outside `transport/` sees gRPC.
 */
import { type ClusterState, type Member, type NodeSettings, TesseraError } from '@tessera/core';
import type { WriteReceipt } from '../coordinator/receipt.js';

export interface CoordinateRequest {
  readonly key: string;
  /** The value as UTF-8 JSON bytes; absent for a delete. */
  readonly value?: Uint8Array;
  /** The opaque context string from a read, if any. */
  readonly context?: string;
  /** Write quorum; absent means the node's default W. */
  readonly w?: number;
  readonly timeoutMs: number;
}

export interface CoordinateReply {
  /** The context of the version just written. */
  readonly context: string;
  /** How the write was stored when the coordinator answered; absent from nodes of older versions. */
  readonly stored?: WriteReceipt;
}

/** Which live keys of some Merkle buckets a replica holds (anti-entropy). */
export interface MerkleKeysRequest {
  readonly partition: number;
  readonly buckets: readonly number[];
  /** At most this many entries in the reply; the server may send fewer. */
  readonly keysMax: number;
}

/** A live key and its core `stateDigest`. */
export interface KeyDigest {
  readonly key: string;
  readonly digest: string;
}

export interface MerkleKeysReply {
  /** The live keys of the first `bucketsDone` requested buckets, each of those buckets complete. */
  readonly entries: readonly KeyDigest[];
  readonly bucketsDone: number;
}

/** One key of a partition transfer and its state (core `encodeState` bytes). */
export interface TransferEntry {
  readonly key: string;
  readonly state: Uint8Array;
}

/** Which keys of a partition a transfer receiver asks for (paper 4.9). */
export interface TransferPage {
  readonly partition: number;
  /** Resume after this key (exclusive). */
  readonly afterKey?: string;
  readonly keysMax: number;
}

/**
 * Key listing, a coverage query (docs/api.md): which live keys of a partition start with `prefix`,
 * in the partition's scan order after `afterKey`, scanning at most `scanMax` stored entries.
 */
export interface ListKeysRequest {
  readonly partition: number;
  /** Resume after this key (exclusive), a key of `partition`; absent to start at its beginning. */
  readonly afterKey?: string;
  /** Only keys that start with this; empty for every key. */
  readonly prefix: string;
  /** At most this many keys in the reply. */
  readonly keysMax: number;
  /** At most this many stored entries scanned, tombstones and keys without the prefix included. */
  readonly scanMax: number;
}

export interface ListKeysReply {
  /** Live keys (at least one sibling) that start with the prefix, in scan order. */
  readonly keys: readonly string[];
  /** The last key scanned, to resume after; absent when nothing was scanned. */
  readonly lastKey?: string;
  /** Stored entries scanned. */
  readonly scanned: number;
  /** True when the scan reached the end of the partition: nothing is left after `lastKey`. */
  readonly done: boolean;
}

/** What a node serves to a peer's key listing (served when given to the peer server). */
export interface KeyListingSource {
  listKeys(request: ListKeysRequest): Promise<ListKeysReply>;
}

/** What a node serves to a peer's strong-key messages (core `encodeStrong` bytes in and out). */
export interface StrongSource {
  strong(payload: Uint8Array): Promise<Uint8Array>;
}

/** Implemented by the node; served to peers over gRPC. */
export interface PeerApi {
  /** This replica's stored state of `key` (core `encodeState` bytes), or undefined if none. */
  read(key: string): Promise<Uint8Array | undefined>;
  /**
   * Merge `state` (core `encodeState` bytes) into this replica's copy of `key`; with `hint`, keep it
   * instead as a hint for that node, which was down (sloppy quorum), and hand it off later.
   */
  replicate(key: string, state: Uint8Array, hint?: string): Promise<void>;
  /** Coordinate a put or delete for a key this node is a replica of (forwarded by another node). */
  coordinate(request: CoordinateRequest): Promise<CoordinateReply>;
  /** Push-pull gossip: merge the caller's view and answer with this node's merged view. */
  gossip(state: ClusterState): Promise<ClusterState>;
  /** A new node asks a seed to be admitted; answers with the cluster state that includes it. */
  join(member: Member, settings?: NodeSettings): Promise<ClusterState>;
  /**
   * Anti-entropy: the hashes of nodes `indices` of `level` of this replica's Merkle tree of
   * `partition`, MERKLE_HASH_BYTES each, in order (core `MerkleTree.hashes`).
   */
  merkleHashes(partition: number, level: number, indices: readonly number[]): Promise<Uint8Array>;
  /** Anti-entropy: the live keys, with their state digests, of some buckets of a partition. */
  merkleKeys(request: MerkleKeysRequest): Promise<MerkleKeysReply>;
}

/**
 * The details a peer call's PEER_UNAVAILABLE carries when the call surely failed before its request
 * left this node (no connection, a refused stream, a closed client, traffic blocked): the peer did
 * nothing. Without it, the peer may have run the call (a connection dropped mid-call).
 */
export const NOT_SENT = { sent: false } as const;

/** Whether a peer call surely failed before its request reached the peer (see `NOT_SENT`). */
export function failedBeforeSending(err: unknown): boolean {
  return TesseraError.is(err, 'PEER_UNAVAILABLE') && err.details?.sent === false;
}

/**
 * A connection to one peer. Every call fails with a `TesseraError` (e.g. PEER_UNAVAILABLE, TIMEOUT);
 * a PEER_UNAVAILABLE that surely came before the request left carries `NOT_SENT`.
 */
export interface PeerClient {
  /** host:port of the peer. */
  readonly address: string;
  read(key: string, timeoutMs: number): Promise<Uint8Array | undefined>;
  replicate(key: string, state: Uint8Array, timeoutMs: number, hint?: string): Promise<void>;
  coordinate(request: CoordinateRequest, timeoutMs: number): Promise<CoordinateReply>;
  gossip(state: ClusterState, timeoutMs: number): Promise<ClusterState>;
  /** `settings`: the joiner's, which a seed compares with the cluster's (core `settingsMismatch`). */
  join(member: Member, timeoutMs: number, settings?: NodeSettings): Promise<ClusterState>;
  merkleHashes(
    partition: number,
    level: number,
    indices: readonly number[],
    timeoutMs: number,
  ): Promise<Uint8Array>;
  merkleKeys(request: MerkleKeysRequest, timeoutMs: number): Promise<MerkleKeysReply>;
  /**
   * Partition transfer (paper 4.9): one page of a partition's keys, streamed in chunks; each chunk
   * goes to `onChunk` as it arrives, the next one waiting for it. Resolves once the page ended;
   * rejects with the first failure, the peer's or `onChunk`'s. `timeoutMs` covers the whole page.
   */
  transferPage(
    request: TransferPage,
    timeoutMs: number,
    onChunk: (entries: readonly TransferEntry[]) => Promise<void>,
  ): Promise<void>;
  /**
   * Key listing (a coverage query): one bounded scan of a partition of the peer. Optional so that
   * in-process stand-ins (the simulation, test fakes) need not list; the gRPC client has it.
   */
  listKeys?(request: ListKeysRequest, timeoutMs: number): Promise<ListKeysReply>;
  /**
   * Strong keys: one consensus message or record pull (core `encodeStrong` bytes in and out).
   * Optional so that in-process stand-ins need not serve strong keys; the gRPC client has it.
   */
  strong?(payload: Uint8Array, timeoutMs: number): Promise<Uint8Array>;
  close(): void;
}
