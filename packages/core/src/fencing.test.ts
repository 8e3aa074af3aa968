import { describe, expect, it } from 'vitest';
import { admittedIdentity, callerFence, fencedError, selfFence } from './fencing.js';
import { compareIdentities, formatIdentity, newIdentityTag, parseIdentity } from './member-identity.js';
import { type ClusterState, type Member, mergeClusterStates } from './membership.js';
import { PEER_PROTOCOL_MIN, PEER_PROTOCOL_VERSION, protocolRefusal } from './protocol-version.js';

const OLD = { tag: 'aaaaaaaaaaaa', generation: 1 };
const NEW = { tag: 'bbbbbbbbbbbb', generation: 2 };

const member = (status: Member['status'], identity = OLD, incarnation = 3): Member => ({
  nodeId: 'n2',
  http: '127.0.0.1:7002',
  peer: '127.0.0.1:8002',
  status,
  incarnation,
  identity,
});

const state = (m: Member, history: ClusterState['history'] = []): ClusterState => ({
  clusterId: 'c1',
  ring: { partitionCount: 4, owners: ['n1', 'n1', 'n2', 'n2'], version: 3 },
  members: [m],
  ...(history.length === 0 ? {} : { history }),
});

describe('identities', () => {
  it('print and parse as <generation>.<tag>, refusing anything else', () => {
    const tag = newIdentityTag(() => 0.5);
    expect(parseIdentity(formatIdentity({ tag, generation: 7 }))).toEqual({ tag, generation: 7 });
    for (const bad of ['', '1', 'x.aaaaaaaaaaaa', '1.AAAAAAAAAAAA', '1.aaaa', '99999999999.aaaaaaaaaaaa'])
      expect(parseIdentity(bad)).toBeUndefined();
  });

  it('order by generation, then tag; a record without one ranks with generation 0', () => {
    expect(compareIdentities(OLD, NEW)).toBeLessThan(0);
    expect(compareIdentities(NEW, OLD)).toBeGreaterThan(0);
    expect(compareIdentities(undefined, OLD)).toBeLessThan(0);
    expect(compareIdentities(undefined, { tag: 'cccccccccccc', generation: 0 })).toBe(0);
  });

  it('a rejoin supersedes the old record in a merge, whatever the incarnations', () => {
    const stale = state(member('member', OLD, 9));
    const rejoined = state(member('member', NEW, 4));
    for (const merged of [mergeClusterStates(stale, rejoined), mergeClusterStates(rejoined, stale)])
      expect(merged.members[0]!.identity).toEqual(NEW);
  });

  it('a seed gives a new data dir under a known id the next generation, and keeps a known one', () => {
    expect(admittedIdentity(undefined, 'cccccccccccc')).toEqual({ tag: 'cccccccccccc', generation: 1 });
    expect(admittedIdentity(member('removed', OLD), 'cccccccccccc')).toEqual({
      tag: 'cccccccccccc',
      generation: 2,
    });
    expect(admittedIdentity(member('member', OLD), OLD.tag)).toEqual(OLD);
  });
});

describe('callerFence', () => {
  it('refuses an older identity as superseded, and lets a newer one through (a rejoin not heard of yet)', () => {
    const s = state(member('member', NEW));
    expect(callerFence(s, s.members[0]!, OLD)).toBe('superseded');
    expect(callerFence(s, s.members[0]!, NEW)).toBeUndefined();
    expect(callerFence(state(member('removed', OLD)), member('removed', OLD), NEW)).toBeUndefined();
  });

  it('refuses a removed member as removed, or left when its last change was a leave', () => {
    const removed = member('removed');
    expect(callerFence(state(removed), removed, OLD)).toBe('removed');
    const left = state(removed, [{ ringVersion: 4, kind: 'leave', nodeId: 'n2', atMs: 1 }]);
    expect(callerFence(left, removed, OLD)).toBe('left');
    expect(callerFence(state(removed), removed, undefined)).toBe('removed');
    expect(callerFence(state(member('member')), member('member'), undefined)).toBeUndefined();
  });
});

describe('selfFence', () => {
  it('fences a node whose record holds another tag, or that was removed', () => {
    expect(selfFence(state(member('member', NEW)), 'n2', OLD.tag, false)).toBe('superseded');
    expect(selfFence(state(member('member', OLD)), 'n2', OLD.tag, false)).toBeUndefined();
    expect(selfFence(state(member('removed', OLD)), 'n2', OLD.tag, false)).toBe('removed');
    expect(selfFence(state(member('member')), 'n9', OLD.tag, false)).toBeUndefined();
  });

  it('does not fence a node that watched itself leave (it hands over), but does one started after its leave', () => {
    const left = state(member('removed'), [{ ringVersion: 4, kind: 'leave', nodeId: 'n2', atMs: 1 }]);
    expect(selfFence(left, 'n2', OLD.tag, true)).toBeUndefined();
    expect(selfFence(left, 'n2', OLD.tag, false)).toBe('left');
  });

  it('says what to do in its error', () => {
    const error = fencedError('n2', 'c1', 'superseded', 'caller');
    expect(error.code).toBe('NODE_FENCED');
    expect(error.message).toMatch(/empty --data-dir and --seed/);
    expect(error.details).toMatchObject({ nodeId: 'n2', reason: 'superseded', fenced: 'caller' });
  });
});

describe('protocolRefusal', () => {
  it('serves its own version and the one before (and callers that send none, version 1)', () => {
    expect(protocolRefusal(String(PEER_PROTOCOL_VERSION))).toBeUndefined();
    expect(protocolRefusal(String(PEER_PROTOCOL_MIN))).toBeUndefined();
    expect(protocolRefusal(undefined)).toBeUndefined();
  });

  it('refuses other versions with PROTOCOL_MISMATCH naming both and the policy', () => {
    const error = protocolRefusal(String(PEER_PROTOCOL_VERSION + 1));
    expect(error?.code).toBe('PROTOCOL_MISMATCH');
    expect(error?.message).toContain(`speaks peer protocol ${PEER_PROTOCOL_VERSION + 1}`);
    expect(error?.message).toContain(`this node speaks ${PEER_PROTOCOL_VERSION}`);
    expect(error?.message).toMatch(/one version apart/);
    expect(protocolRefusal('banana')?.code).toBe('PROTOCOL_MISMATCH');
  });
});
