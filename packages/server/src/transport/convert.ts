/**
 * Proto <-> core for the peer protocol, and the zod schemas that check what arrives from the wire.
 * The server parses requests with them, the client parses replies with them: one definition of a
 * well-formed member, ring or cluster state, so malformed input reaches core from neither side.
 */
import {
  type ClusterState,
  CONTEXT_CHARS_MAX,
  DURABILITIES,
  type ErrorCode,
  type ErrorDetails,
  HISTORY_MAX,
  IDENTITY_GENERATION_MAX,
  isIdentityTag,
  levelWidth,
  MERKLE_BUCKETS,
  MERKLE_LEAF_LEVEL,
  type Member,
  type MemberStatus,
  type NodeSettings,
  PARTITION_COUNT_MAX,
  STATE_DIGEST_PATTERN,
  TesseraError,
} from '@tessera/core';
import { z } from 'zod';
import { ackOf, replicasIn, type WriteReceipt } from '../coordinator/receipt.js';
import * as pb from './generated/tessera/peer/v1/peer.js';
import type { CoordinateReply, CoordinateRequest, ListKeysReply, ListKeysRequest } from './peer-api.js';

export const KEY_BYTES_MAX = 1024;
export const QUORUM_MAX = 64;
export const TIMEOUT_MS_MAX = 120_000;
export const MEMBERS_MAX = 1024;
/** Replicas per key, at most (config `n`, 1 to 16): a receipt has at most one ack per replica. */
export const REPLICAS_MAX = 16;
/** Keys in one ListKeys reply, at most (1024 keys of 1 KiB stay far below the message limit). */
export const LIST_KEYS_MAX = 1_000;
/** Stored entries one ListKeys call may scan, at most. */
export const LIST_SCAN_MAX = 100_000;
/** Entries in one MerkleKeys reply, at most (a reply also stays under its byte bound). */
export const MERKLE_KEYS_MAX = 100_000;
const ADDRESS_CHARS_MAX = 300;
const ISSUES_MAX = 5;

export const NODE_ID = /^[A-Za-z0-9._-]{1,64}$/;
/** Printable ASCII without spaces. */
const CLUSTER_ID = /^[!-~]{1,128}$/;
/** host:port, where host is a name, an IPv4 address or a bracketed IPv6 address. */
const ADDRESS = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):([0-9]{1,5})$/;

export function fitsKeyBytes(key: string): boolean {
  // Every UTF-16 unit is 1 to 3 bytes of UTF-8: most keys are decided without counting.
  if (key.length * 3 <= KEY_BYTES_MAX) return true;
  return key.length <= KEY_BYTES_MAX && Buffer.byteLength(key, 'utf8') <= KEY_BYTES_MAX;
}

function hasValidPort(address: string): boolean {
  const port = Number(address.slice(address.lastIndexOf(':') + 1));
  return port >= 1 && port <= 65_535;
}

const keySchema = z
  .string()
  .min(1, 'must not be empty')
  .refine(fitsKeyBytes, `must be at most ${KEY_BYTES_MAX} bytes of UTF-8`);
const bytesSchema = z.instanceof(Uint8Array);
const nodeIdSchema = z.string().regex(NODE_ID, 'must be 1 to 64 characters of A-Z, a-z, 0-9, ".", "_", "-"');
const addressSchema = z
  .string()
  .max(ADDRESS_CHARS_MAX)
  .regex(ADDRESS, 'must be host:port')
  .refine(hasValidPort, 'must have a port from 1 to 65535');

const STATUS_TO_PROTO: Readonly<Record<MemberStatus, pb.MemberStatus>> = {
  joining: pb.MemberStatus.MEMBER_STATUS_JOINING,
  member: pb.MemberStatus.MEMBER_STATUS_MEMBER,
  leaving: pb.MemberStatus.MEMBER_STATUS_LEAVING,
  removed: pb.MemberStatus.MEMBER_STATUS_REMOVED,
};

const statusSchema = z
  .literal([
    pb.MemberStatus.MEMBER_STATUS_JOINING,
    pb.MemberStatus.MEMBER_STATUS_MEMBER,
    pb.MemberStatus.MEMBER_STATUS_LEAVING,
    pb.MemberStatus.MEMBER_STATUS_REMOVED,
  ])
  .transform((status): MemberStatus => {
    switch (status) {
      case pb.MemberStatus.MEMBER_STATUS_JOINING:
        return 'joining';
      case pb.MemberStatus.MEMBER_STATUS_MEMBER:
        return 'member';
      case pb.MemberStatus.MEMBER_STATUS_LEAVING:
        return 'leaving';
      case pb.MemberStatus.MEMBER_STATUS_REMOVED:
        return 'removed';
    }
  });

/** A proto `Member` in, a core `Member` out. */
export const memberSchema = z.object({
  nodeId: nodeIdSchema,
  http: addressSchema,
  peer: addressSchema,
  status: statusSchema,
  incarnation: z.int().min(0),
  identity: z
    .object({
      tag: z.string().refine(isIdentityTag, 'must be 12 characters of 0-9, a-z'),
      generation: z.int().min(0).max(IDENTITY_GENERATION_MAX),
    })
    .optional(),
}) satisfies z.ZodType<Member, pb.Member>;

const ringSchema = z
  .object({
    partitionCount: z.int().min(1).max(PARTITION_COUNT_MAX),
    owners: z.array(nodeIdSchema).max(PARTITION_COUNT_MAX),
    version: z.int().min(0),
  })
  .refine((ring) => ring.owners.length === ring.partitionCount, {
    message: 'must name one owner per partition',
    path: ['owners'],
  });

function sortedByNodeId(members: readonly Member[]): boolean {
  for (let i = 1; i < members.length; i++) if (!(members[i - 1]!.nodeId < members[i]!.nodeId)) return false;
  return true;
}

const changeKindSchema = z.enum(['join', 'leave', 'remove']);

/** A proto `PendingChange` in, a core `PendingChange` out (paper 4.9). */
const pendingChangeSchema = z.object({
  next: ringSchema,
  kind: changeKindSchema,
  nodeId: nodeIdSchema,
  done: z.array(nodeIdSchema).max(MEMBERS_MAX),
});

const changeRecordSchema = z.object({
  ringVersion: z.int().min(0),
  kind: changeKindSchema,
  nodeId: nodeIdSchema,
  atMs: z.int().min(0),
});

/** A proto `ClusterState` in, a core `ClusterState` out. */
export const clusterStateSchema = z.object({
  clusterId: z.string().regex(CLUSTER_ID, 'must be 1 to 128 printable ASCII characters'),
  settings: z.lazy(() => settingsSchema).optional(),
  ring: ringSchema,
  members: z
    .array(memberSchema)
    .max(MEMBERS_MAX)
    .refine(sortedByNodeId, 'must be sorted by nodeId, without duplicates'),
  pending: pendingChangeSchema.optional(),
  history: z
    .array(changeRecordSchema)
    .max(HISTORY_MAX)
    .transform((h) => (h.length === 0 ? undefined : h)),
}) satisfies z.ZodType<ClusterState, pb.ClusterState>;

export const readRequestSchema = z.object({ key: keySchema }) satisfies z.ZodType<unknown, pb.ReadRequest>;

export const replicateRequestSchema = z.object({
  key: keySchema,
  state: bytesSchema.refine((state) => state.byteLength > 0, 'must not be empty'),
  hint: nodeIdSchema.optional(),
}) satisfies z.ZodType<unknown, pb.ReplicateRequest>;

/** A proto `CoordinateRequest` in, the `PeerApi` one out. */
export const coordinateRequestSchema = z.object({
  key: keySchema,
  value: bytesSchema.optional(),
  context: z.string().max(CONTEXT_CHARS_MAX).optional(),
  w: z.int().min(1).max(QUORUM_MAX).optional(),
  timeoutMs: z.int().min(1).max(TIMEOUT_MS_MAX),
}) satisfies z.ZodType<CoordinateRequest, pb.CoordinateRequest>;

/** A proto `WriteReceipt` in, a coordinator `WriteReceipt` out (`replicas` counted from the acks). */
const writeReceiptSchema = z
  .object({
    acks: z.array(z.object({ node: nodeIdSchema, hintFor: nodeIdSchema.optional() })).max(REPLICAS_MAX),
    n: z.int().min(1).max(REPLICAS_MAX),
    w: z.int().min(1).max(REPLICAS_MAX),
  })
  .transform((r): WriteReceipt => {
    const acks = r.acks.map((a) => ackOf(a.node, a.hintFor));
    return { acks, replicas: replicasIn(acks), n: r.n, w: r.w };
  }) satisfies z.ZodType<WriteReceipt, pb.WriteReceipt>;

/** A proto `CoordinateResponse` in, the `PeerApi` reply out; `stored` is absent from older nodes. */
export const coordinateResponseSchema = z
  .object({
    context: z.string().max(CONTEXT_CHARS_MAX),
    stored: writeReceiptSchema.optional(),
  })
  .transform(
    (r): CoordinateReply => (r.stored === undefined ? { context: r.context } : r),
  ) satisfies z.ZodType<CoordinateReply, pb.CoordinateResponse>;

export const gossipRequestSchema = z.object({ state: clusterStateSchema }) satisfies z.ZodType<
  unknown,
  pb.GossipRequest
>;

/** A proto `ClusterSettings` in, a core `ClusterSettings` out (no floor from older nodes). */
const settingsSchema = z.object({
  n: z.int().min(1).max(REPLICAS_MAX),
  r: z.int().min(1).max(REPLICAS_MAX),
  w: z.int().min(1).max(REPLICAS_MAX),
  durabilityFloor: z.enum(DURABILITIES).optional(),
});

/** A proto `JoinRequest` in: the member, and its `NodeSettings` (absent from older nodes). */
export const joinRequestSchema = z
  .object({
    member: memberSchema,
    settings: settingsSchema.optional(),
    partitions: z.int().min(1).max(PARTITION_COUNT_MAX).optional(),
    durability: z.enum(DURABILITIES).optional(),
  })
  .transform(({ member, settings, partitions, durability }) => ({
    member,
    ...(settings === undefined
      ? {}
      : { settings: { ...settings, ...definedOnly({ partitions, durability }) } satisfies NodeSettings }),
  })) satisfies z.ZodType<{ member: Member; settings?: NodeSettings }, pb.JoinRequest>;

/** A join as sent: the joiner's settings split into the proto's `settings`, `partitions` and `durability`. */
export function joinRequestToProto(member: Member, settings?: NodeSettings): pb.JoinRequest {
  if (settings === undefined) return { member: memberToProto(member) };
  const { n, r, w, durabilityFloor, partitions, durability } = settings;
  return {
    member: memberToProto(member),
    settings: { n, r, w, ...definedOnly({ durabilityFloor }) },
    ...definedOnly({ partitions, durability }),
  };
}

function definedOnly<T extends object>(obj: T): Partial<T> {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** The reply of Gossip and of Join. */
export const clusterStateResponseSchema = z.object({ state: clusterStateSchema }) satisfies z.ZodType<
  unknown,
  pb.GossipResponse & pb.JoinResponse
>;

const partitionSchema = z
  .int()
  .min(0)
  .max(PARTITION_COUNT_MAX - 1);

export const merkleHashesRequestSchema = z
  .object({
    partition: partitionSchema,
    level: z.int().min(0).max(MERKLE_LEAF_LEVEL),
    indices: z.array(z.int().min(0)).min(1).max(MERKLE_BUCKETS),
  })
  .refine((r) => r.indices.every((i) => i < levelWidth(r.level)), {
    message: 'must be node positions within the level',
    path: ['indices'],
  }) satisfies z.ZodType<unknown, pb.MerkleHashesRequest>;

export const merkleKeysRequestSchema = z.object({
  partition: partitionSchema,
  buckets: z
    .array(
      z
        .int()
        .min(0)
        .max(MERKLE_BUCKETS - 1),
    )
    .min(1)
    .max(MERKLE_BUCKETS),
  keysMax: z.int().min(1).max(MERKLE_KEYS_MAX),
}) satisfies z.ZodType<unknown, pb.MerkleKeysRequest>;

export const merkleKeysResponseSchema = z.object({
  entries: z
    .array(
      z.object({ key: keySchema, digest: z.string().regex(STATE_DIGEST_PATTERN, 'must be 16 hex digits') }),
    )
    .max(MERKLE_KEYS_MAX),
  bucketsDone: z.int().min(0).max(MERKLE_BUCKETS),
}) satisfies z.ZodType<unknown, pb.MerkleKeysResponse>;

/** A key prefix: a string of any length, from empty (every key) to a whole key. */
const prefixSchema = z
  .string()
  .refine((p) => p.length === 0 || fitsKeyBytes(p), `must be at most ${KEY_BYTES_MAX} bytes of UTF-8`);

/** A proto `ListKeysRequest` in, the `PeerApi` one out. */
/** A strong-key message: opaque here, checked by core `decodeStrongRequest` / `decodeStrongReply`. */
export const strongPayloadSchema = z.object({ payload: z.instanceof(Uint8Array) }) satisfies z.ZodType<
  unknown,
  pb.StrongRequest
>;

export const listKeysRequestSchema = z.object({
  partition: partitionSchema,
  afterKey: keySchema.optional(),
  prefix: prefixSchema,
  keysMax: z.int().min(1).max(LIST_KEYS_MAX),
  scanMax: z.int().min(1).max(LIST_SCAN_MAX),
}) satisfies z.ZodType<ListKeysRequest, pb.ListKeysRequest>;

export const listKeysResponseSchema = z.object({
  keys: z.array(keySchema).max(LIST_KEYS_MAX),
  lastKey: keySchema.optional(),
  scanned: z.int().min(0).max(LIST_SCAN_MAX),
  done: z.boolean(),
}) satisfies z.ZodType<ListKeysReply, pb.ListKeysResponse>;

/**
 * `value` checked against `schema`, or a `TesseraError(code)` naming the first few problems
 * (never echoing the input, which may be large or hostile).
 */
export function parseWire<S extends z.ZodType>(
  schema: S,
  value: unknown,
  code: ErrorCode,
  what: string,
  details?: ErrorDetails,
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues
    .slice(0, ISSUES_MAX)
    .map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message }));
  const summary = issues.map((issue) => `${issue.path || '(message)'} ${issue.message}`).join('; ');
  throw new TesseraError(code, `${what} is malformed: ${summary}.`, { ...details, issues });
}

export function memberToProto(member: Member): pb.Member {
  return {
    nodeId: member.nodeId,
    http: member.http,
    peer: member.peer,
    status: STATUS_TO_PROTO[member.status],
    incarnation: member.incarnation,
    ...(member.identity === undefined ? {} : { identity: member.identity }),
  };
}

export function clusterStateToProto(state: ClusterState): pb.ClusterState {
  return {
    clusterId: state.clusterId,
    ring: state.ring,
    members: state.members.map(memberToProto),
    ...(state.pending === undefined ? {} : { pending: state.pending }),
    history: state.history ?? [],
    ...(state.settings === undefined ? {} : { settings: state.settings }),
  };
}

export function coordinateRequestToProto(request: CoordinateRequest): pb.CoordinateRequest {
  return request;
}

export function coordinateReplyToProto(reply: CoordinateReply): pb.CoordinateResponse {
  if (reply.stored === undefined) return { context: reply.context };
  const { acks, n, w } = reply.stored;
  return {
    context: reply.context,
    stored: {
      acks: acks.map((a) => (a.as === 'hint' ? { node: a.node, hintFor: a.for } : { node: a.node })),
      n,
      w,
    },
  };
}
