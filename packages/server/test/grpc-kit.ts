/** Shared pieces of the gRPC transport tests: a fake peer, ports, raw calls, assertions. */
import { once } from 'node:events';
import { createServer } from 'node:net';
import { Client, credentials, Metadata, type ServiceError } from '@grpc/grpc-js';
import { type ClusterState, type ErrorCode, type Member, TesseraError, withMember } from '@tessera/core';
import { pino } from 'pino';
import { afterAll, beforeAll, expect } from 'vitest';
import type { Logger } from '../src/logger.js';
import { NODE_METADATA } from '../src/transport/credentials.js';
import { type PeerServerHandle, startPeerServer } from '../src/transport/grpc-server.js';
import type {
  CoordinateReply,
  CoordinateRequest,
  MerkleKeysReply,
  MerkleKeysRequest,
  PeerApi,
} from '../src/transport/peer-api.js';

export const TIMEOUT_MS = 2_000;

export const member = (nodeId: string, port: number, incarnation = 1): Member => ({
  nodeId,
  http: `127.0.0.1:${port}`,
  peer: `127.0.0.1:${port + 1000}`,
  status: 'member',
  incarnation,
});

export function clusterState(nodes: string[]): ClusterState {
  const owners = Array.from({ length: 64 }, (_, p) => nodes[p % nodes.length]!);
  return {
    clusterId: 'c-7f3a9e',
    ring: { partitionCount: 64, owners, version: 7 },
    members: nodes.map((id, i) => member(id, 8000 + i)),
  };
}

/** An in-memory `PeerApi` that records what it was asked; `fail` or `hang` change its answers. */
export class FakePeer implements PeerApi {
  readonly states = new Map<string, Uint8Array>();
  readonly calls: string[] = [];
  readonly coordinated: CoordinateRequest[] = [];
  readonly gossiped: ClusterState[] = [];
  readonly joined: Member[] = [];
  fail: (() => never) | undefined;
  hang = false;
  private readonly hanging: Array<() => void> = [];

  private async enter(name: string): Promise<void> {
    this.calls.push(name);
    if (this.hang) await new Promise<void>((resolve) => this.hanging.push(resolve));
    this.fail?.();
  }

  release(): void {
    for (const resolve of this.hanging.splice(0)) resolve();
  }

  async read(key: string): Promise<Uint8Array | undefined> {
    await this.enter('read');
    return this.states.get(key);
  }

  async replicate(key: string, state: Uint8Array): Promise<void> {
    await this.enter('replicate');
    this.states.set(key, state.slice());
  }

  async coordinate(request: CoordinateRequest): Promise<CoordinateReply> {
    await this.enter('coordinate');
    this.coordinated.push(request);
    return { context: `ctx-for-${request.key}` };
  }

  async gossip(state: ClusterState): Promise<ClusterState> {
    await this.enter('gossip');
    this.gossiped.push(state);
    return withMember(state, member('z-server', 9000, 3));
  }

  async join(joining: Member): Promise<ClusterState> {
    await this.enter('join');
    this.joined.push(joining);
    return withMember(clusterState(['a', 'b']), joining);
  }

  async merkleHashes(_partition: number, _level: number, indices: readonly number[]): Promise<Uint8Array> {
    await this.enter('merkleHashes');
    return new Uint8Array(indices.length * 8);
  }

  async merkleKeys(_request: MerkleKeysRequest): Promise<MerkleKeysReply> {
    await this.enter('merkleKeys');
    return { entries: [], bucketsDone: 0 };
  }
}

export async function expectTesseraError(promise: Promise<unknown>, code: ErrorCode): Promise<TesseraError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(TesseraError.is(error), `expected a TesseraError ${code}, got ${String(error)}`).toBe(true);
  const tessera = error as TesseraError;
  expect(tessera.code).toBe(code);
  return tessera;
}

export function capturingLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });
  return { logger, lines };
}

export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Sends raw bytes to a method, as a hostile or broken peer could. */
export function sendRaw(port: number, path: string, bytes: Uint8Array): Promise<ServiceError | null> {
  const raw = new Client(`127.0.0.1:${port}`, credentials.createInsecure());
  return new Promise((resolve) => {
    raw.makeUnaryRequest(
      path,
      (b: Buffer) => b,
      (b: Buffer) => b,
      Buffer.from(bytes),
      { deadline: Date.now() + TIMEOUT_MS },
      (error) => {
        raw.close();
        resolve(error);
      },
    );
  });
}

/**
 * The identity a raw test call claims (`tessera-node`): a member's id, so the peer guard lets
 * it through and the test reaches the handlers, as a hostile or broken member would.
 */
export function memberMetadata(nodeId: string): Metadata {
  const metadata = new Metadata();
  metadata.set(NODE_METADATA, nodeId);
  return metadata;
}

/**
 * A plaintext peer server over `peer` on a free loopback port for the tests of one file: started
 * before them, closed after. `port()` is valid inside the tests.
 */
export function peerServerForFile(peer: PeerApi): { port(): number } {
  let server: PeerServerHandle | undefined;
  beforeAll(async () => {
    server = await startPeerServer(peer, { host: '127.0.0.1', port: 0, logger: pino({ level: 'silent' }) });
  });
  afterAll(() => server?.close());
  return {
    port: () => {
      if (server === undefined) throw new Error('the peer server starts in beforeAll');
      return server.port;
    },
  };
}
