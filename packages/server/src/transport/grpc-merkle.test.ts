import {
  applyWrite,
  type ClusterState,
  decodeState,
  EMPTY_CONTEXT,
  type ErrorCode,
  type Member,
  type Ring,
  TesseraError,
  utf8,
} from '@tessera/core';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AntiEntropy } from '../anti-entropy/anti-entropy.js';
import { MerkleResponder } from '../anti-entropy/responder.js';
import { MemoryEngine } from '../storage/memory-engine.js';
import { ReplicaStore } from '../storage/replica-store.js';
import { createPeerClient } from './grpc-client.js';
import { type PeerServerHandle, startPeerServer } from './grpc-server.js';
import type {
  CoordinateReply,
  CoordinateRequest,
  MerkleKeysReply,
  MerkleKeysRequest,
  PeerApi,
  PeerClient,
} from './peer-api.js';

const TIMEOUT_MS = 2_000;
const Q = 8;
const RING: Ring = { partitionCount: Q, owners: ['a', 'b', 'a', 'b', 'a', 'b', 'a', 'b'], version: 1 };
const silent = pino({ level: 'silent' });

async function newStore(): Promise<ReplicaStore> {
  const engine = new MemoryEngine();
  await engine.open();
  return new ReplicaStore(engine, { partitionCount: Q, sync: false });
}

function put(store: ReplicaStore, node: string, key: string, value: string) {
  return store.update(key, (s) =>
    applyWrite(s, { actor: node, context: EMPTY_CONTEXT, value: utf8(value), nowMs: 1, vvEntriesMax: 8 }),
  );
}

/** A replica's peer handler: store and Merkle calls for real, the rest refused; replies can be spoiled. */
class ReplicaHandler implements PeerApi {
  readonly calls: string[] = [];
  spoilHashes: ((hashes: Uint8Array) => Uint8Array) | undefined;
  spoilKeys: ((reply: MerkleKeysReply) => MerkleKeysReply) | undefined;

  constructor(
    readonly store: ReplicaStore,
    private readonly responder: MerkleResponder,
  ) {}

  async read(key: string): Promise<Uint8Array | undefined> {
    this.calls.push('read');
    return this.store.readEncoded(key);
  }

  async replicate(key: string, state: Uint8Array): Promise<void> {
    this.calls.push('replicate');
    await this.store.merge(key, decodeState(state));
  }

  async coordinate(_request: CoordinateRequest): Promise<CoordinateReply> {
    throw new TesseraError('NOT_SUPPORTED', 'not here');
  }

  async gossip(_state: ClusterState): Promise<ClusterState> {
    throw new TesseraError('NOT_SUPPORTED', 'not here');
  }

  async join(_member: Member): Promise<ClusterState> {
    throw new TesseraError('NOT_SUPPORTED', 'not here');
  }

  async merkleHashes(partition: number, level: number, indices: readonly number[]): Promise<Uint8Array> {
    this.calls.push('merkleHashes');
    const hashes = await this.responder.merkleHashes(partition, level, indices);
    return this.spoilHashes?.(hashes) ?? hashes;
  }

  async merkleKeys(request: MerkleKeysRequest): Promise<MerkleKeysReply> {
    this.calls.push('merkleKeys');
    const reply = await this.responder.merkleKeys(request);
    return this.spoilKeys?.(reply) ?? reply;
  }
}

async function expectCode(promise: Promise<unknown>, code: ErrorCode): Promise<TesseraError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(TesseraError.is(error) && error.code, String(error)).toBe(code);
  return error as TesseraError;
}

describe('gRPC anti-entropy calls', () => {
  let b: ReplicaHandler;
  let server: PeerServerHandle;
  let client: PeerClient;

  beforeAll(async () => {
    const store = await newStore();
    b = new ReplicaHandler(store, new MerkleResponder({ self: 'b', n: 2, ring: () => RING, store }));
    server = await startPeerServer(b, { host: '127.0.0.1', port: 0, logger: silent });
    client = createPeerClient(`127.0.0.1:${server.port}`);
  });

  afterAll(async () => {
    client.close();
    await server.close();
  });

  beforeEach(() => {
    b.calls.length = 0;
    b.spoilHashes = undefined;
    b.spoilKeys = undefined;
  });

  it('carries tree hashes and key listings exactly', async () => {
    for (let i = 0; i < 50; i++) await put(b.store, 'b', `k${i}`, `"${i}"`);
    const tree = await b.store.merkleTree(3);
    const leaves = Array.from({ length: 1024 }, (_, i) => i);
    expect(await client.merkleHashes(3, 2, leaves, TIMEOUT_MS)).toEqual(tree.hashes(2, leaves));
    expect(await client.merkleHashes(3, 0, [0], TIMEOUT_MS)).toEqual(tree.hashes(0, [0]));
    const local = await new MerkleResponder({ self: 'b', n: 2, ring: () => RING, store: b.store }).merkleKeys(
      {
        partition: 3,
        buckets: leaves,
        keysMax: 100,
      },
    );
    const remote = await client.merkleKeys({ partition: 3, buckets: leaves, keysMax: 100 }, TIMEOUT_MS);
    expect(remote).toEqual(local);
    expect(remote.entries.length).toBeGreaterThan(0);
  });

  it('runs a whole exchange against a peer over gRPC, moving only the differing keys', async () => {
    const a = await newStore();
    for (let i = 0; i < 100; i++) {
      const state = await put(a, 'a', `shared-${i}`, '"same"');
      await b.store.merge(`shared-${i}`, state);
    }
    for (const key of ['a-only-1', 'a-only-2']) await put(a, 'a', key, '"a"');
    for (const key of ['b-only-1', 'b-only-2', 'b-only-3']) await put(b.store, 'b', key, '"b"');
    b.calls.length = 0;
    let bOnly = 0;
    for (let p = 0; p < Q; p++)
      for await (const [key] of b.store.scanPartition(p)) if (!key.startsWith('shared-')) bOnly++;
    expect(bOnly).toBe(53);
    const ae = new AntiEntropy({
      self: 'a',
      n: 2,
      ring: () => RING,
      store: a,
      peers: { client: () => client, isDown: () => false, markFailed: () => {}, markAlive: () => {} },
      gate: { tryAcquire: () => true },
      intervalMs: 1_000,
      tombstoneGraceMs: 1_000,
      now: Date.now,
      random: Math.random,
      log: silent,
    });
    let pulled = 0;
    let pushed = 0;
    for (let p = 0; p < Q; p++) {
      const result = await ae.runOnce({ partition: p, peer: 'b' });
      expect(['in-sync', 'repaired']).toContain(result.outcome);
      pulled += result.keysPulled;
      pushed += result.keysPushed;
    }
    expect(pulled).toBe(bOnly); // b's keys of the first test, and the three above
    expect(pushed).toBe(2);
    expect(b.calls.filter((c) => c === 'replicate')).toHaveLength(pushed);
    for (const key of ['a-only-1', 'b-only-3', 'shared-7']) {
      expect(await a.readEncoded(key)).toEqual(await b.store.readEncoded(key));
    }
    for (let p = 0; p < Q; p++)
      expect((await ae.runOnce({ partition: p, peer: 'b' })).outcome).toBe('in-sync');
  });

  it("carries the responder's refusal of a partition it does not replicate", async () => {
    const wide: Ring = { ...RING, owners: ['a', 'c', 'a', 'c', 'a', 'c', 'a', 'c'] };
    const store = await newStore();
    const handler = new ReplicaHandler(
      store,
      new MerkleResponder({ self: 'b', n: 2, ring: () => wide, store }),
    );
    const other = await startPeerServer(handler, { host: '127.0.0.1', port: 0, logger: silent });
    const c = createPeerClient(`127.0.0.1:${other.port}`);
    try {
      await expectCode(c.merkleHashes(0, 0, [0], TIMEOUT_MS), 'CLUSTER_MISMATCH');
      await expectCode(
        c.merkleKeys({ partition: 0, buckets: [0], keysMax: 1 }, TIMEOUT_MS),
        'CLUSTER_MISMATCH',
      );
    } finally {
      c.close();
      await other.close();
    }
  });

  describe('refuses malformed requests with BAD_REQUEST before the handler', () => {
    const cases: Array<[string, (c: PeerClient) => Promise<unknown>]> = [
      ['level 3', (c) => c.merkleHashes(0, 3, [0], TIMEOUT_MS)],
      ['a node past the level', (c) => c.merkleHashes(0, 1, [32], TIMEOUT_MS)],
      ['no nodes', (c) => c.merkleHashes(0, 0, [], TIMEOUT_MS)],
      ['1025 nodes', (c) => c.merkleHashes(0, 2, new Array<number>(1025).fill(0), TIMEOUT_MS)],
      ['partition 4096', (c) => c.merkleHashes(4096, 0, [0], TIMEOUT_MS)],
      ['bucket 1024', (c) => c.merkleKeys({ partition: 0, buckets: [1024], keysMax: 5 }, TIMEOUT_MS)],
      ['no buckets', (c) => c.merkleKeys({ partition: 0, buckets: [], keysMax: 5 }, TIMEOUT_MS)],
      ['keysMax 0', (c) => c.merkleKeys({ partition: 0, buckets: [0], keysMax: 0 }, TIMEOUT_MS)],
      ['keysMax 100001', (c) => c.merkleKeys({ partition: 0, buckets: [0], keysMax: 100_001 }, TIMEOUT_MS)],
    ];
    it.each(cases)('%s', async (_name, send) => {
      const error = await expectCode(send(client), 'BAD_REQUEST');
      expect(error.message).toMatch(/^Peer Merkle\w+ request is malformed: /);
      expect(b.calls).toEqual([]);
    });
  });

  describe('refuses malformed replies with INTERNAL on the client', () => {
    it('a hash list of the wrong length', async () => {
      b.spoilHashes = (h) => h.subarray(1);
      const error = await expectCode(client.merkleHashes(0, 1, [0, 1], TIMEOUT_MS), 'INTERNAL');
      expect(error.message).toMatch(/MerkleHashes reply of peer .* is malformed/);
    });

    it('a digest that is not 16 hex digits', async () => {
      b.spoilKeys = () => ({ entries: [{ key: 'k', digest: 'xyz' }], bucketsDone: 1 });
      await expectCode(client.merkleKeys({ partition: 0, buckets: [0], keysMax: 5 }, TIMEOUT_MS), 'INTERNAL');
    });

    it('more buckets or keys than asked for', async () => {
      b.spoilKeys = () => ({ entries: [], bucketsDone: 2 });
      await expectCode(client.merkleKeys({ partition: 0, buckets: [0], keysMax: 5 }, TIMEOUT_MS), 'INTERNAL');
      const entry = { key: 'k', digest: '0123456789abcdef' };
      b.spoilKeys = () => ({ entries: [entry, entry], bucketsDone: 1 });
      await expectCode(client.merkleKeys({ partition: 0, buckets: [0], keysMax: 1 }, TIMEOUT_MS), 'INTERNAL');
    });
  });
});
