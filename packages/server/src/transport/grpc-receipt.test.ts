/**
 * A forwarded write's receipt comes back through the Coordinate call: the coordinator's acks,
 * replicas and hints with the replica they are for, n and w, as they were. A reply without one (a
 * node of an older version) still parses, without `stored`; a malformed one is refused.
 */
import { TesseraError } from '@tessera/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capturingLogger, FakePeer, TIMEOUT_MS } from '../../test/grpc-kit.js';
import type { WriteReceipt } from '../coordinator/receipt.js';
import { coordinateReplyToProto, coordinateResponseSchema, parseWire } from './convert.js';
import { CoordinateResponse } from './generated/tessera/peer/v1/peer.js';
import { createPeerClient } from './grpc-client.js';
import { type PeerServerHandle, startPeerServer } from './grpc-server.js';
import type { CoordinateReply, CoordinateRequest, PeerClient } from './peer-api.js';

const RECEIPT: WriteReceipt = {
  acks: [
    { node: 'n0', as: 'replica' },
    { node: 'n3', as: 'hint', for: 'n1' },
    { node: 'n4', as: 'hint', for: 'n2' },
  ],
  replicas: 1,
  n: 3,
  w: 2,
};

/** A peer that coordinates every write with RECEIPT, or without a receipt (an older node) for `old-*` keys. */
class ReceiptPeer extends FakePeer {
  override async coordinate(request: CoordinateRequest): Promise<CoordinateReply> {
    const reply = await super.coordinate(request);
    return request.key.startsWith('old-') ? reply : { ...reply, stored: RECEIPT };
  }
}

describe('the receipt over Coordinate', () => {
  const peer = new ReceiptPeer();
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

  it("reaches the forwarding node as the coordinator's receipt", async () => {
    const reply = await client.coordinate(
      { key: 'k', value: new Uint8Array([49]), timeoutMs: 500 },
      TIMEOUT_MS,
    );
    expect(reply).toEqual({ context: 'ctx-for-k', stored: RECEIPT });
  });

  it('is absent from the reply of a node that sends none', async () => {
    const reply = await client.coordinate({ key: 'old-k', timeoutMs: 500 }, TIMEOUT_MS);
    expect(reply).toEqual({ context: 'ctx-for-old-k' });
    expect('stored' in reply).toBe(false);
  });
});

describe('the receipt on the wire', () => {
  const parse = (bytes: Uint8Array): CoordinateReply =>
    parseWire(coordinateResponseSchema, CoordinateResponse.decode(bytes), 'BAD_RESPONSE', 'Coordinate reply');

  it('round-trips through the proto: a hint carries hint_for, a replica none', () => {
    const proto = coordinateReplyToProto({ context: 'c', stored: RECEIPT });
    expect(proto.stored?.acks).toEqual([
      { node: 'n0' },
      { node: 'n3', hintFor: 'n1' },
      { node: 'n4', hintFor: 'n2' },
    ]);
    expect(parse(CoordinateResponse.encode(proto).finish())).toEqual({ context: 'c', stored: RECEIPT });
  });

  it("counts the replicas from the acks, not from the sender's word", () => {
    const bytes = CoordinateResponse.encode({
      context: 'c',
      stored: { acks: [{ node: 'n0' }, { node: 'n1' }, { node: 'n5', hintFor: 'n2' }], n: 3, w: 3 },
    }).finish();
    expect(parse(bytes).stored).toMatchObject({ replicas: 2, n: 3, w: 3 });
  });

  it('decodes the reply of an older node (context only) without a receipt', () => {
    const bytes = CoordinateResponse.encode({ context: 'c' }).finish();
    expect(parse(bytes)).toEqual({ context: 'c' });
  });

  it.each([
    ['n = 0', { acks: [], n: 0, w: 1 }],
    ['w = 0', { acks: [], n: 3, w: 0 }],
    ['a node id with a space', { acks: [{ node: 'n 0' }], n: 3, w: 1 }],
    ['a hint for an empty id', { acks: [{ node: 'n0', hintFor: '' }], n: 3, w: 1 }],
    [
      'more acks than replicas can be',
      { acks: Array.from({ length: 17 }, (_, i) => ({ node: `n${i}` })), n: 3, w: 1 },
    ],
  ])('refuses a receipt with %s', (_what, stored) => {
    const bytes = CoordinateResponse.encode({ context: 'c', stored }).finish();
    expect(() => parse(bytes)).toThrow(TesseraError);
  });
});
