/** The parts of `GET /v1/status` the client routes with, checked field by field. */
import { TesseraError } from '../errors.js';
import { isRecord } from '../http/call.js';

export interface StatusMember {
  readonly nodeId: string;
  /** host:port of the member's HTTP API. */
  readonly http: string;
  /** This node's view: up, down, joining or leaving. */
  readonly status: string;
  readonly partitions: number;
}

export interface StatusRing {
  readonly partitionCount: number;
  readonly owners: readonly string[];
  readonly version: number;
}

export interface NodeStatus {
  readonly nodeId: string;
  readonly clusterId: string | undefined;
  readonly n: number;
  readonly partitionCount: number;
  readonly ringVersion: number;
  readonly members: readonly StatusMember[];
  /** The partition owners, when the node publishes them (optional field of /v1/status). */
  readonly ring: StatusRing | undefined;
}

export function parseStatus(body: unknown, from: string): NodeStatus {
  const fail = (what: string): never => {
    throw new TesseraError('BAD_RESPONSE', `${from}/v1/status: ${what}.`, { node: from });
  };
  if (!isRecord(body)) return fail('not an object');
  const { nodeId, n, partitionCount, ringVersion, members } = body;
  if (typeof nodeId !== 'string') fail('no nodeId');
  if (!isCount(n)) fail('no n');
  if (!isCount(partitionCount)) fail('no partitionCount');
  if (typeof ringVersion !== 'number') fail('no ringVersion');
  if (!Array.isArray(members)) return fail('no members');
  const parsed = members.map((m): StatusMember => {
    if (!isRecord(m) || typeof m.nodeId !== 'string' || typeof m.http !== 'string') {
      return fail('a member without nodeId or http');
    }
    return {
      nodeId: m.nodeId,
      http: m.http,
      status: typeof m.status === 'string' ? m.status : 'up',
      partitions: typeof m.partitions === 'number' ? m.partitions : 0,
    };
  });
  return {
    nodeId: nodeId as string,
    clusterId: typeof body.clusterId === 'string' ? body.clusterId : undefined,
    n: n as number,
    partitionCount: partitionCount as number,
    ringVersion: ringVersion as number,
    members: parsed,
    ring: parseRing(body.ring, partitionCount as number),
  };
}

function parseRing(ring: unknown, partitionCount: number): StatusRing | undefined {
  if (!isRecord(ring)) return undefined;
  const { owners, version } = ring;
  if (ring.partitionCount !== partitionCount || typeof version !== 'number') return undefined;
  if (!Array.isArray(owners) || owners.length !== partitionCount) return undefined;
  if (!owners.every((o): o is string => typeof o === 'string')) return undefined;
  return { partitionCount, owners, version };
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1;
}
