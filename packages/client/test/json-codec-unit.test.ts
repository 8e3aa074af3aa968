/**
 * The `json` option: bodies go out and come back through the codec given, so a number past 2^53
 * that the node stored exactly reads exactly and is written back as its digits (README, "Numbers
 * past 2^53"); without it, a BigInt is refused before anything is sent.
 */
import { isInteger, isSafeNumber, parse, parseNumberAndBigInt, stringify } from 'lossless-json';
import { afterEach, describe, expect, it } from 'vitest';
import { TesseraClient, type TesseraError } from '../src/index.js';
import { createMemoryClient } from '../src/testing/index.js';
import type { Transport, TransportRequest, TransportResponse } from '../src/transport/types.js';

const NODE = 'http://127.0.0.1:1';
const RECEIPT =
  '{"acks":[{"node":"n0","as":"replica"},{"node":"n1","as":"replica"}],"replicas":2,"n":3,"w":2}';
const ID = '12345678901234567890';
/** The README's codec: an integer past 2^53 as a bigint, every other number as JSON.parse reads it. */
const number = (text: string) => (isInteger(text) && !isSafeNumber(text) ? BigInt(text) : Number(text));
const json = {
  parse: (text: string) => parse(text, null, number),
  stringify: (value: unknown) => stringify(value),
};

/** A node that holds one key's value as text, as a Tessera node does, and records what it was sent. */
class TextNode implements Transport {
  readonly sent: string[] = [];
  value = `{"id":${ID},"total":1.50}`;

  async request(req: TransportRequest): Promise<TransportResponse> {
    if (req.method === 'POST') {
      this.sent.push(req.body ?? '');
      return { status: 200, text: '{"committed":true,"versions":{"stock/1":"1"}}' };
    }
    if (req.method === 'PUT') {
      this.sent.push(req.body ?? '');
      // The value member's text, as the node keeps it (the test's bodies put it last but one).
      this.value = /"value":(.*),"context"|"value":(.*)}$/
        .exec(req.body ?? '')!
        .slice(1)
        .find(Boolean)!;
      return { status: 200, text: `{"context":"c1","stored":${RECEIPT}}` };
    }
    const body = `{"key":"k","context":"c0","siblings":[{"value":${this.value},"lastModified":"2026-12-03T00:00:00.000Z"}]}`;
    return { status: 200, text: body };
  }
}

const clients: TesseraClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

function client(node: TextNode, withJson: boolean): TesseraClient {
  const c = new TesseraClient({
    nodes: [NODE],
    transport: node,
    routing: false,
    ...(withJson ? { json } : {}),
  });
  clients.push(c);
  return c;
}

describe('the json option', () => {
  it('reads a number past 2^53 exactly and writes it back as its digits through update()', async () => {
    const node = new TextNode();
    const c = client(node, true);
    expect((await c.get('k')).siblings).toEqual([{ id: BigInt(ID), total: 1.5 }]);
    const written = await c.update<{ id: bigint; total: number }>('k', (order) => ({ ...order!, total: 2 }));
    expect(node.sent).toEqual([`{"value":{"id":${ID},"total":2},"context":"c0"}`]);
    // The client's own fields read as numbers, as with JSON.parse.
    expect(written.stored).toEqual(JSON.parse(RECEIPT));
  });

  it("serves a transaction's values too: a BigInt goes out as its digits", async () => {
    const node = new TextNode();
    await client(node, true).transact([{ type: 'put', key: 'stock/1', value: { id: BigInt(ID) } }]);
    expect(node.sent[0]).toContain(`"value":{"id":${ID}}`);
  });

  it('without it, JSON.parse rounds the number, as the README says', async () => {
    const c = client(new TextNode(), false);
    expect((await c.get<{ id: number }>('k')).siblings[0]?.id).toBe(12345678901234567000);
  });

  it('without it, a BigInt in a value is INVALID_VALUE, before anything is sent', async () => {
    const node = new TextNode();
    const err = await client(node, false)
      .put('k', { id: BigInt(ID) })
      .catch((e: unknown) => e as TesseraError);
    expect(err).toMatchObject({ code: 'INVALID_VALUE', key: 'k' });
    expect((err as TesseraError).message).toMatch(/json option/);
    expect(node.sent).toEqual([]);
  });

  it("refuses a codec that reads the client's own fields otherwise than JSON.parse (every integer a bigint)", () => {
    const everyIntegerBig = {
      parse: (text: string) => parse(text, null, parseNumberAndBigInt),
      stringify: (value: unknown) => stringify(value),
    };
    expect(() => new TesseraClient({ nodes: [NODE], json: everyIntegerBig })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/past 2\^53/) }),
    );
  });

  it('refuses a json option without parse and stringify functions', () => {
    expect(() => new TesseraClient({ nodes: [NODE], json: { parse: JSON.parse } as never })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
  });

  it("an in-memory client (@tessera/client/testing) keeps the value's text as a node does", async () => {
    const c = createMemoryClient({ json });
    clients.push(c);
    await c.put('k', { id: BigInt(ID), total: 1.5 });
    await c.update<{ id: bigint; total: number }>('k', (order) => ({ ...order!, total: 2 }));
    expect((await c.get('k')).siblings).toEqual([{ id: BigInt(ID), total: 2 }]);
    expect(c.memory.store.readTexts('k').texts.map((t) => t.text)).toEqual([`{"id":${ID},"total":2}`]);
    // Its test helpers read and write through the client's codec too.
    expect(c.memory.siblings('k')).toEqual([{ id: BigInt(ID), total: 2 }]);
    c.memory.write('k', { id: BigInt(ID) + 1n });
    expect(c.memory.store.readTexts('k').texts.map((t) => t.text)).toContain('{"id":12345678901234567891}');
    // A value its codec cannot write is INVALID_VALUE, as from the client.
    expect(() => c.memory.write('k', { f: () => 1 })).toThrow(
      expect.objectContaining({ code: 'INVALID_VALUE' }),
    );
    const plain = createMemoryClient();
    clients.push(plain);
    expect(() => plain.memory.write('k', 1n)).toThrow(expect.objectContaining({ code: 'INVALID_VALUE' }));
  });
});
