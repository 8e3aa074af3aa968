/**
 * This node's view of the cluster — members and ring — kept in memory for the hot path and
 * persisted in the storage engine's meta namespace, so a restarted node keeps its identity and
 * partitions and never claims anew.
 */
import { randomInt } from 'node:crypto';
import {
  type ClusterState,
  DURABILITIES,
  isIdentityTag,
  mergeClusterStates,
  newIdentityTag,
  sameClusterState,
  TesseraError,
} from '@tessera/core';
import { z } from 'zod';
import type { StorageEngine } from '../storage/engine.js';

const STATE_KEY = 'cluster-state';
const IDENTITY_KEY = 'identity';

const memberSchema = z.object({
  nodeId: z.string(),
  http: z.string(),
  peer: z.string(),
  status: z.enum(['joining', 'member', 'leaving', 'removed']),
  incarnation: z.number().int().min(0),
  identity: z.object({ tag: z.string(), generation: z.number().int().min(0) }).optional(),
});

const ringSchema = z.object({
  partitionCount: z.number().int().min(1),
  owners: z.array(z.string()),
  version: z.number().int().min(0),
});
const changeKind = z.enum(['join', 'leave', 'remove']);

export const clusterStateSchema = z.object({
  clusterId: z.string(),
  settings: z
    .object({
      n: z.number().int(),
      r: z.number().int(),
      w: z.number().int(),
      durabilityFloor: z.enum(DURABILITIES).optional(),
    })
    .optional(),
  ring: ringSchema,
  members: z.array(memberSchema),
  pending: z
    .object({ next: ringSchema, kind: changeKind, nodeId: z.string(), done: z.array(z.string()) })
    .optional(),
  history: z
    .array(
      z.object({ ringVersion: z.number().int(), kind: changeKind, nodeId: z.string(), atMs: z.number() }),
    )
    .optional(),
});

/** The data dir's owner, and its identity tag (core member-identity.ts; absent in dirs older than it). */
const identitySchema = z.object({
  nodeId: z.string(),
  createdMs: z.number(),
  tag: z.string().refine(isIdentityTag).optional(),
});

export class ClusterView {
  private current: ClusterState | undefined;
  private readonly listeners: Array<(state: ClusterState) => void> = [];
  private persisting: Promise<void> = Promise.resolve();
  private identityTag: string | undefined;

  constructor(private readonly engine: StorageEngine) {}

  /** Loads the persisted identity and cluster state, if this data dir was used before. */
  async load(nodeId: string): Promise<ClusterState | undefined> {
    const identity = await this.readJson(IDENTITY_KEY, identitySchema);
    if (identity !== undefined && identity.nodeId !== nodeId) {
      throw new TesseraError(
        'BAD_REQUEST',
        `This data dir belongs to node "${identity.nodeId}", not "${nodeId}". Start with --node-id ${identity.nodeId}, or use another --data-dir.`,
      );
    }
    this.identityTag = identity?.tag ?? newIdentityTag(() => randomInt(2 ** 32) / 2 ** 32);
    if (identity?.tag === undefined)
      await this.writeJson(IDENTITY_KEY, {
        nodeId,
        createdMs: identity?.createdMs ?? Date.now(),
        tag: this.identityTag,
      });
    this.current = await this.readJson(STATE_KEY, clusterStateSchema);
    return this.current;
  }

  /** This data dir's identity tag (minted with the dir); known once `load` ran. */
  get tag(): string {
    if (this.identityTag === undefined)
      throw new TesseraError('NODE_NOT_READY', 'This node has not read its data dir yet; retry shortly.');
    return this.identityTag;
  }

  get state(): ClusterState | undefined {
    return this.current;
  }

  /** The state, for callers that run only once the node belongs to a cluster. */
  require(): ClusterState {
    if (this.current === undefined) {
      throw new TesseraError(
        'NODE_NOT_READY',
        'This node has not joined a cluster yet. Start it with --seed, or call POST /v1/admin/join.',
      );
    }
    return this.current;
  }

  /** Replaces the state (creation, join). */
  async set(state: ClusterState): Promise<void> {
    this.current = state;
    await this.persist(state);
    for (const l of this.listeners) l(state);
  }

  /** Merges a peer's view into ours; returns true if ours changed. */
  async merge(other: ClusterState): Promise<boolean> {
    const mine = this.require();
    const merged = mergeClusterStates(mine, other);
    if (sameClusterState(merged, mine)) return false;
    await this.set(merged);
    return true;
  }

  onChange(listener: (state: ClusterState) => void): void {
    this.listeners.push(listener);
  }

  private persist(state: ClusterState): Promise<void> {
    // Serialize writes so an older state never lands after a newer one.
    this.persisting = this.persisting.then(() => this.writeJson(STATE_KEY, state));
    return this.persisting;
  }

  private async readJson<T>(key: string, schema: z.ZodType<T>): Promise<T | undefined> {
    const bytes = await this.engine.get('meta', key);
    if (bytes === undefined) return undefined;
    const parsed = schema.safeParse(JSON.parse(new TextDecoder().decode(bytes)));
    if (!parsed.success) {
      throw new TesseraError(
        'STORAGE_FAILURE',
        `The stored ${key} record is unreadable; the data dir may be damaged.`,
      );
    }
    return parsed.data;
  }

  private writeJson(key: string, value: unknown): Promise<void> {
    return this.engine.batch(
      [{ type: 'put', ns: 'meta', key, value: new TextEncoder().encode(JSON.stringify(value)) }],
      { sync: true },
    );
  }
}
