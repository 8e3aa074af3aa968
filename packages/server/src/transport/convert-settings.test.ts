/** The cluster-wide settings on the wire: a joiner's (JoinRequest) and a cluster's (ClusterState). */
import { type ClusterState, createRing, type Member, type NodeSettings } from '@tessera/core';
import { describe, expect, it } from 'vitest';
import { clusterStateSchema, clusterStateToProto, joinRequestSchema, joinRequestToProto } from './convert.js';
import { JoinRequest, ClusterState as PbClusterState } from './generated/tessera/peer/v1/peer.js';

const MEMBER: Member = {
  nodeId: 'n4',
  http: '127.0.0.1:7003',
  peer: '127.0.0.1:8003',
  status: 'member',
  incarnation: 1,
};

function throughWire(member: Member, settings?: NodeSettings): unknown {
  const bytes = JoinRequest.encode(joinRequestToProto(member, settings)).finish();
  return joinRequestSchema.parse(JoinRequest.decode(bytes));
}

describe('join settings on the wire', () => {
  it('carries Q, the durability and the floor when the joiner gives them', () => {
    const settings: NodeSettings = {
      n: 3,
      r: 2,
      w: 2,
      partitions: 128,
      durability: 'fsync-one',
      durabilityFloor: 'fsync-one',
    };
    expect(throughWire(MEMBER, settings)).toEqual({ member: MEMBER, settings });
  });

  it('leaves out what the joiner left out, and accepts a join from an older node without settings', () => {
    expect(throughWire(MEMBER, { n: 3, r: 2, w: 2 })).toEqual({
      member: MEMBER,
      settings: { n: 3, r: 2, w: 2 },
    });
    expect(throughWire(MEMBER)).toEqual({ member: MEMBER });
  });

  it('refuses an unknown durability', () => {
    const proto = { ...joinRequestToProto(MEMBER, { n: 3, r: 2, w: 2 }), durability: 'sometimes' };
    expect(() => joinRequestSchema.parse(JoinRequest.decode(JoinRequest.encode(proto).finish()))).toThrow();
  });
});

describe('cluster settings in gossip', () => {
  it('keeps the durability floor, and reads a state without one as a state without one', () => {
    const state: ClusterState = {
      clusterId: 'c1',
      settings: { n: 3, r: 2, w: 2, durabilityFloor: 'fsync' },
      ring: createRing(8, 'n1'),
      members: [{ ...MEMBER, nodeId: 'n1' }],
    };
    const roundTrip = (s: ClusterState) =>
      clusterStateSchema.parse(PbClusterState.decode(PbClusterState.encode(clusterStateToProto(s)).finish()));
    expect(roundTrip(state).settings).toEqual(state.settings);
    expect(roundTrip({ ...state, settings: { n: 3, r: 2, w: 2 } }).settings?.durabilityFloor).toBeUndefined();
  });
});
