/**
 * The peer guard in front of a real gRPC server, with a cluster secret and no TLS: callers prove
 * they hold the secret, and only members get past it for data calls; joiners may join as
 * themselves only. (Mutual TLS is covered end to end in test/security.test.ts.)
 */

import type { ClusterState } from '@tessera/core';
import { PEER_PROTOCOL_VERSION } from '@tessera/core';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterState, expectTesseraError, FakePeer, member, TIMEOUT_MS } from '../../test/grpc-kit.js';
import {
  AUTH_METADATA,
  CLUSTER_METADATA,
  IDENTITY_METADATA,
  loadPeerSecurity,
  PROTOCOL_METADATA,
  peerClientSecurity,
  peerProof,
} from './credentials.js';
import { createPeerClient } from './grpc-client.js';
import { type PeerServerHandle, startPeerServer } from './grpc-server.js';
import { PROOF_SKEW_MAX_SECONDS, refusal } from './peer-guard.js';
import { peerServerSecurity } from './peer-security.js';
import { peerService } from './service.js';

const SECRET = 'a-cluster-secret-of-32-characters';
const silent = pino({ level: 'silent' });
let state: ClusterState | undefined = clusterState(['a', 'b']);
const peer = new FakePeer();
let server: PeerServerHandle;

beforeAll(async () => {
  const security = loadPeerSecurity({ nodeId: 'server', clusterSecret: SECRET });
  server = await startPeerServer(peer, {
    host: '127.0.0.1',
    port: 0,
    logger: silent,
    security: peerServerSecurity(security, () => state, silent),
  });
});

afterAll(() => server.close());

/** A client calling as `nodeId` with `secret`. */
function as(nodeId: string, secret: string | undefined) {
  const { client } = loadPeerSecurity({ nodeId, clusterSecret: secret });
  return createPeerClient(`127.0.0.1:${server.port}`, { security: client });
}

describe('peer guard with a cluster secret', () => {
  it('serves a member that proves the secret', async () => {
    const a = as('a', SECRET);
    try {
      await expect(a.read('k', TIMEOUT_MS)).resolves.toBeUndefined();
    } finally {
      a.close();
    }
  });

  it('refuses a wrong secret and no secret with UNAUTHENTICATED', async () => {
    for (const caller of [as('a', 'not-the-cluster-secret-at-all'), as('a', undefined)]) {
      try {
        await expectTesseraError(caller.read('k', TIMEOUT_MS), 'UNAUTHENTICATED');
      } finally {
        caller.close();
      }
    }
  });

  it('refuses data calls from a node with the secret that is not a member, and from a removed one', async () => {
    const stranger = as('z', SECRET);
    try {
      const error = await expectTesseraError(stranger.read('k', TIMEOUT_MS), 'FORBIDDEN');
      expect(error.message).toContain('not a member');
      state = clusterState(['a', 'b']);
      state = {
        ...state,
        members: state.members.map((m) => (m.nodeId === 'b' ? { ...m, status: 'removed' } : m)),
      };
      const removed = as('b', SECRET);
      const fenced = await expectTesseraError(removed.read('k', TIMEOUT_MS), 'NODE_FENCED');
      expect(fenced.message).toMatch(/was removed from the cluster c-7f3a9e.*empty --data-dir/);
      removed.close();
    } finally {
      stranger.close();
      state = clusterState(['a', 'b']);
    }
  });

  it('lets a non-member with the secret join as itself, never as another node', async () => {
    const joiner = as('c', SECRET);
    try {
      const joined = await joiner.join(member('c', 7002), TIMEOUT_MS);
      expect(joined.members.map((m) => m.nodeId)).toContain('c');
      await expectTesseraError(joiner.join(member('a', 7000), TIMEOUT_MS), 'FORBIDDEN');
      expect(peer.joined.map((m) => m.nodeId)).toEqual(['c']);
    } finally {
      joiner.close();
    }
  });
});

/** A client calling as member `a` with the secret, presenting `extra` metadata on every call. */
function presenting(extra: Record<string, string>) {
  const security = peerClientSecurity('a', SECRET, undefined, () => extra);
  return createPeerClient(`127.0.0.1:${server.port}`, { security });
}

describe('peer guard: protocol version, cluster and identity', () => {
  it('refuses a peer speaking an unsupported protocol version, naming both versions and the policy', async () => {
    const future = presenting({ [PROTOCOL_METADATA]: String(PEER_PROTOCOL_VERSION + 5) });
    try {
      const error = await expectTesseraError(future.read('k', TIMEOUT_MS), 'PROTOCOL_MISMATCH');
      expect(error.message).toContain(`speaks peer protocol ${PEER_PROTOCOL_VERSION + 5}`);
      expect(error.message).toContain(`this node speaks ${PEER_PROTOCOL_VERSION}`);
      expect(error.message).toMatch(/one version apart/);
      // Joining is refused too: an incompatible node never becomes a member.
      await expectTesseraError(future.join(member('a', 7000), TIMEOUT_MS), 'PROTOCOL_MISMATCH');
    } finally {
      future.close();
    }
    const current = presenting({ [PROTOCOL_METADATA]: String(PEER_PROTOCOL_VERSION) });
    try {
      await expect(current.read('k', TIMEOUT_MS)).resolves.toBeUndefined();
    } finally {
      current.close();
    }
  });

  it('refuses a caller of another cluster, naming both ids, and a superseded data dir', async () => {
    const other = presenting({ [CLUSTER_METADATA]: 'c-other' });
    try {
      const error = await expectTesseraError(
        other.gossip(clusterState(['a']), TIMEOUT_MS),
        'CLUSTER_MISMATCH',
      );
      expect(error.message).toMatch(/cluster c-other, this node to cluster c-7f3a9e/);
    } finally {
      other.close();
    }
    const base = clusterState(['a', 'b']);
    state = {
      ...base,
      members: base.members.map((m) =>
        m.nodeId === 'a' ? { ...m, identity: { tag: 'bbbbbbbbbbbb', generation: 2 } } : m,
      ),
    };
    const stale = presenting({ [IDENTITY_METADATA]: '1.aaaaaaaaaaaa' });
    const fresh = presenting({ [IDENTITY_METADATA]: '2.bbbbbbbbbbbb' });
    try {
      const error = await expectTesseraError(stale.read('k', TIMEOUT_MS), 'NODE_FENCED');
      expect(error.details).toMatchObject({ nodeId: 'a', reason: 'superseded', fenced: 'caller' });
      await expect(fresh.read('k', TIMEOUT_MS)).resolves.toBeUndefined();
    } finally {
      stale.close();
      fresh.close();
      state = clusterState(['a', 'b']);
    }
  });
});

describe('refusal', () => {
  const settings = { security: { mtls: false, clusterSecret: SECRET }, state: () => clusterState(['a']) };
  const read = peerService.read.path;
  const at = (seconds: number) => ({
    method: read,
    nodeId: 'a',
    proof: peerProof(SECRET, 'a', read, seconds),
    certName: undefined,
    nowMs: 1_000_000_000,
  });

  it('accepts a proof within the allowed clock skew and refuses a stale or replayed-elsewhere one', () => {
    expect(refusal(at(1_000_000), settings)).toBeUndefined();
    expect(refusal(at(1_000_000 - PROOF_SKEW_MAX_SECONDS - 1), settings)?.code).toBe('UNAUTHENTICATED');
    const forOtherMethod = { ...at(1_000_000), method: peerService.replicate.path };
    expect(refusal(forOtherMethod, settings)?.code).toBe('UNAUTHENTICATED');
    expect(AUTH_METADATA).toBe('tessera-auth');
  });

  it('with mTLS, refuses a caller whose certificate names another node', () => {
    const mtls = {
      security: { mtls: true, clusterSecret: undefined },
      state: () => clusterState(['a', 'b']),
    };
    const facts = { method: read, nodeId: 'a', proof: undefined, nowMs: 0 };
    expect(refusal({ ...facts, certName: 'a' }, mtls)).toBeUndefined();
    expect(refusal({ ...facts, certName: 'b' }, mtls)?.code).toBe('UNAUTHENTICATED');
    expect(refusal({ ...facts, certName: undefined }, mtls)?.code).toBe('UNAUTHENTICATED');
  });
});
