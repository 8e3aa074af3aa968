import { BinaryWriter } from '@bufbuild/protobuf/wire';
import { status } from '@grpc/grpc-js';
import { type Member, TesseraError, withMember } from '@tessera/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  capturingLogger,
  clusterState,
  expectTesseraError,
  FakePeer,
  member,
  sendRaw,
  TIMEOUT_MS,
} from '../../test/grpc-kit.js';
import { createPeerClient } from './grpc-client.js';
import { type PeerServerHandle, startPeerServer } from './grpc-server.js';
import type { PeerClient } from './peer-api.js';

describe('gRPC peer transport', () => {
  const peer = new FakePeer();
  const log = capturingLogger();
  let server: PeerServerHandle;
  let client: PeerClient;

  beforeAll(async () => {
    server = await startPeerServer(peer, { host: '127.0.0.1', port: 0, logger: log.logger });
    client = createPeerClient(`127.0.0.1:${server.port}`, { logger: log.logger });
  });

  afterAll(async () => {
    client.close();
    peer.release();
    await server.close();
  });

  beforeEach(() => {
    peer.calls.length = 0;
    peer.fail = undefined;
    peer.hang = false;
  });

  it('binds a free port when asked for port 0', () => {
    expect(server.port).toBeGreaterThan(0);
    expect(client.address).toBe(`127.0.0.1:${server.port}`);
  });

  it('reads a key the replica does not have as undefined', async () => {
    expect(await client.read('nothing-here', TIMEOUT_MS)).toBeUndefined();
    expect(peer.calls).toEqual(['read']);
  });

  it('round-trips states of several KB under unicode keys', async () => {
    const state = new Uint8Array(9_000);
    for (let i = 0; i < state.length; i++) state[i] = (i * 31 + 7) % 256;
    const key = 'cart/ключ/鍵/🔑';
    await client.replicate(key, state, TIMEOUT_MS);
    expect(peer.states.get(key)).toEqual(state);
    const read = await client.read(key, TIMEOUT_MS);
    expect(read).toBeInstanceOf(Uint8Array);
    expect(read).toEqual(state);
  });

  it('coordinates a put with value, context and w', async () => {
    const value = new TextEncoder().encode('{"items":["🍎"]}');
    const reply = await client.coordinate(
      { key: 'k1', value, context: 'c1.abc.def', w: 2, timeoutMs: 1500 },
      TIMEOUT_MS,
    );
    expect(reply).toEqual({ context: 'ctx-for-k1' });
    const got = peer.coordinated.at(-1)!;
    expect(got).toMatchObject({ key: 'k1', context: 'c1.abc.def', w: 2, timeoutMs: 1500 });
    expect(got.value).toEqual(value);
  });

  it('coordinates a delete: no value, no context, no w arrive as absent', async () => {
    await client.coordinate({ key: 'k2', timeoutMs: 1000 }, TIMEOUT_MS);
    const got = peer.coordinated.at(-1)!;
    expect(got.key).toBe('k2');
    expect(got.value).toBeUndefined();
    expect(got.context).toBeUndefined();
    expect(got.w).toBeUndefined();
  });

  it('tells an empty value apart from a delete', async () => {
    await client.coordinate({ key: 'k3', value: new Uint8Array(0), timeoutMs: 1000 }, TIMEOUT_MS);
    expect(peer.coordinated.at(-1)!.value).toEqual(new Uint8Array(0));
  });

  it('gossips cluster states both ways', async () => {
    const mine = clusterState(['a', 'b', 'c']);
    const merged = await client.gossip(mine, TIMEOUT_MS);
    expect(peer.gossiped.at(-1)).toEqual(mine);
    expect(merged).toEqual(withMember(mine, member('z-server', 9000, 3)));
  });

  it('joins a member and answers with the cluster state', async () => {
    const joining: Member = { ...member('new-node.1', 7000), status: 'joining' };
    const state = await client.join(joining, TIMEOUT_MS);
    expect(peer.joined.at(-1)).toEqual(joining);
    expect(state.members.map((m) => m.nodeId)).toEqual(['a', 'b', 'new-node.1']);
    expect(state.members[2]).toEqual(joining);
    expect(state.ring.owners).toHaveLength(64);
  });

  it("carries a handler's TesseraError across with its code, message and details", async () => {
    peer.fail = () => {
      throw new TesseraError('TOO_MANY_SIBLINGS', 'Key "k" would have 101 siblings; siblingsMax is 100.', {
        siblings: 101,
        note: 'ünïcödé',
      });
    };
    const error = await expectTesseraError(
      client.coordinate({ key: 'k', value: new Uint8Array([1]), timeoutMs: 500 }, TIMEOUT_MS),
      'TOO_MANY_SIBLINGS',
    );
    expect(error.message).toBe('Key "k" would have 101 siblings; siblingsMax is 100.');
    expect(error.details).toMatchObject({ siblings: 101, note: 'ünïcödé', peer: client.address });
  });

  it('keeps a remote code whose gRPC status maps to something else (UNAVAILABLE -> NODE_NOT_READY)', async () => {
    peer.fail = () => {
      throw new TesseraError('NODE_NOT_READY', 'Starting up.');
    };
    const error = await expectTesseraError(client.read('k', TIMEOUT_MS), 'NODE_NOT_READY');
    expect(error.message).toBe('Starting up.');
  });

  it('answers a plain Error as INTERNAL and logs it', async () => {
    peer.fail = () => {
      throw new Error('secret internal detail');
    };
    const error = await expectTesseraError(client.read('k', TIMEOUT_MS), 'INTERNAL');
    expect(error.message).not.toContain('secret');
    expect(error.details).toMatchObject({ peer: client.address });
    expect(log.lines.some((line) => line.includes('secret internal detail'))).toBe(true);
  });

  it('answers many concurrent calls on one channel', async () => {
    const state = new Uint8Array([1, 2, 3]);
    await Promise.all(Array.from({ length: 300 }, (_, i) => client.replicate(`c${i}`, state, TIMEOUT_MS)));
    const reads = await Promise.all(Array.from({ length: 300 }, (_, i) => client.read(`c${i}`, TIMEOUT_MS)));
    expect(reads.every((r) => r !== undefined && r.length === 3)).toBe(true);
  });

  it('refuses a malformed reply as INTERNAL on the client', async () => {
    const original = peer.gossip.bind(peer);
    peer.gossip = async (state) => ({ ...(await original(state)), clusterId: 'has space' });
    try {
      const error = await expectTesseraError(client.gossip(clusterState(['a']), TIMEOUT_MS), 'INTERNAL');
      expect(error.message).toMatch(/Gossip reply of peer .* is malformed: state\.clusterId/);
      expect(error.details).toMatchObject({ peer: client.address });
    } finally {
      peer.gossip = original;
    }
  });

  it('survives a handler answering with a value that cannot be encoded', async () => {
    const original = peer.join.bind(peer);
    peer.join = async (m) => {
      const state = await original(m);
      return { ...state, members: [{ ...m, status: 'bogus' as Member['status'] }] };
    };
    try {
      await expectTesseraError(client.join(member('x', 7000), TIMEOUT_MS), 'INTERNAL');
    } finally {
      peer.join = original;
    }
    expect(await client.read('nothing-here', TIMEOUT_MS)).toBeUndefined();
  });

  describe('refuses malformed requests with BAD_REQUEST before the handler', () => {
    const cases: Array<[string, (c: PeerClient) => Promise<unknown>]> = [
      ['an empty key', (c) => c.read('', TIMEOUT_MS)],
      ['a 2000-byte key', (c) => c.replicate('k'.repeat(2000), new Uint8Array([1]), TIMEOUT_MS)],
      ['a 1025-byte key of multi-byte characters', (c) => c.read(`${'é'.repeat(512)}x`, TIMEOUT_MS)],
      ['an empty state', (c) => c.replicate('k', new Uint8Array(0), TIMEOUT_MS)],
      ['w = 0', (c) => c.coordinate({ key: 'k', w: 0, timeoutMs: 100 }, TIMEOUT_MS)],
      ['w = 65', (c) => c.coordinate({ key: 'k', w: 65, timeoutMs: 100 }, TIMEOUT_MS)],
      ['timeoutMs = 0', (c) => c.coordinate({ key: 'k', timeoutMs: 0 }, TIMEOUT_MS)],
      ['timeoutMs = 120001', (c) => c.coordinate({ key: 'k', timeoutMs: 120_001 }, TIMEOUT_MS)],
      ['a node id with a space', (c) => c.join({ ...member('a b', 7000) }, TIMEOUT_MS)],
      ['a node id of 65 characters', (c) => c.join({ ...member('n'.repeat(65), 7000) }, TIMEOUT_MS)],
      ['an address without a port', (c) => c.join({ ...member('a', 7000), peer: 'localhost' }, TIMEOUT_MS)],
      ['an address with port 70000', (c) => c.join({ ...member('a', 7000), http: 'h:70000' }, TIMEOUT_MS)],
      [
        'a ring with fewer owners than partitions',
        (c) => {
          const s = clusterState(['a']);
          return c.gossip({ ...s, ring: { ...s.ring, owners: s.ring.owners.slice(1) } }, TIMEOUT_MS);
        },
      ],
      [
        'unsorted members',
        (c) => {
          const s = clusterState(['a', 'b']);
          return c.gossip({ ...s, members: [...s.members].reverse() }, TIMEOUT_MS);
        },
      ],
      ['an empty cluster id', (c) => c.gossip({ ...clusterState(['a']), clusterId: '' }, TIMEOUT_MS)],
    ];
    it.each(cases)('%s', async (_name, send) => {
      const error = await expectTesseraError(send(client), 'BAD_REQUEST');
      expect(error.message).toMatch(/^Peer \w+ request is malformed: /);
      expect(error.details).toMatchObject({ peer: client.address });
      expect(peer.calls).toEqual([]);
    });
  });

  it('does not echo a hostile key back in the error', async () => {
    const error = await expectTesseraError(client.read('x'.repeat(5000), TIMEOUT_MS), 'BAD_REQUEST');
    expect(error.message.length).toBeLessThan(300);
  });

  it('survives bytes that are not protobuf, and numbers above 2^53', async () => {
    const garbage = await sendRaw(
      server.port,
      '/tessera.peer.v1.Peer/Read',
      new Uint8Array([0xff, 0xff, 0xff]),
    );
    expect(garbage?.code).toBe(status.INVALID_ARGUMENT);
    expect(garbage?.metadata.get('tessera-code')).toEqual(['BAD_REQUEST']);

    const huge = new BinaryWriter();
    huge.uint32(10).fork(); // JoinRequest.member
    huge.uint32(10).string('a').uint32(18).string('h:1').uint32(26).string('h:2').uint32(32).int32(2);
    huge.uint32(40).uint64(2n ** 60n); // incarnation
    huge.join();
    const tooBig = await sendRaw(server.port, '/tessera.peer.v1.Peer/Join', huge.finish());
    expect(tooBig?.code).toBe(status.INVALID_ARGUMENT);
    expect(peer.calls).toEqual([]);
    // The server still serves.
    expect(await client.read('nothing-here', TIMEOUT_MS)).toBeUndefined();
  });

  it('answers an unknown status enum value as BAD_REQUEST', async () => {
    const w = new BinaryWriter();
    w.uint32(10).fork();
    w.uint32(10).string('a').uint32(18).string('h:1').uint32(26).string('h:2').uint32(32).int32(42);
    w.join();
    const error = await sendRaw(server.port, '/tessera.peer.v1.Peer/Join', w.finish());
    expect(error?.code).toBe(status.INVALID_ARGUMENT);
    expect(peer.calls).toEqual([]);
  });

  it('answers TIMEOUT after about timeoutMs when the handler never answers', async () => {
    peer.hang = true;
    const started = Date.now();
    const error = await expectTesseraError(client.read('slow', 300), 'TIMEOUT');
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(1_500);
    expect(error.details).toMatchObject({ peer: client.address, rpc: 'Read' });
    expect(peer.calls).toEqual(['read']);
    peer.release();
  });

  it('fails calls on a closed client with PEER_UNAVAILABLE', async () => {
    const other = createPeerClient(`127.0.0.1:${server.port}`);
    expect(await other.read('nothing-here', TIMEOUT_MS)).toBeUndefined();
    other.close();
    await expectTesseraError(other.read('k', TIMEOUT_MS), 'PEER_UNAVAILABLE');
  });
});
