/**
 * The client's errors are Tessera's one error class family: recognised by core and client alike,
 * with the one table's statuses, the client's constructor and facts, and a README that says so.
 */
import { readFileSync } from 'node:fs';
import {
  CLIENT_ERROR_CODE_LIST,
  TesseraError as CoreTesseraError,
  ERROR_CODES,
  type ErrorCode,
  GrpcStatus,
  isClientErrorCode,
} from '@tessera/core';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CLIENT_ERROR_CODES,
  TesseraClient,
  TesseraError,
  type Transport,
  TransportFailure,
} from '../src/index.js';

const clients: TesseraClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

/** A client on one node whose transport answers with `request`, without retries or routing. */
function clientWith(request: Transport['request']): TesseraClient {
  const client = new TesseraClient({
    nodes: ['http://a.test:7000'],
    transport: { request },
    routing: false,
    retries: 0,
  });
  clients.push(client);
  return client;
}

async function failure(promise: Promise<unknown>): Promise<TesseraError> {
  try {
    await promise;
  } catch (err) {
    expect(TesseraError.is(err), String(err)).toBe(true);
    return err as TesseraError;
  }
  throw new Error('expected the call to fail');
}

describe('TesseraError of the client', () => {
  it('is the core class family: instanceof and is() hold both ways', () => {
    const ours = new TesseraError('NODE_UNREACHABLE', 'm', { node: 'http://a.test:7000' });
    const core = new CoreTesseraError('TIMEOUT', 'm');
    expect(ours).toBeInstanceOf(CoreTesseraError);
    expect(ours).toBeInstanceOf(Error);
    expect(core).toBeInstanceOf(TesseraError);
    expect(CoreTesseraError.is(ours, 'NODE_UNREACHABLE')).toBe(true);
    expect(TesseraError.is(core, 'TIMEOUT')).toBe(true);
    expect(TesseraError.is(core, 'NODE_UNREACHABLE')).toBe(false);
    expect(ours.name).toBe('TesseraError');
    // A copy of the package that made the error elsewhere: only its brand is shared.
    expect({ [Symbol.for('tessera.error')]: true, code: 'TIMEOUT' }).toBeInstanceOf(TesseraError);
    expect(new Error('plain')).not.toBeInstanceOf(TesseraError);
  });

  it("takes the call's facts in one object, status the deprecated name of httpStatus", () => {
    const err = new TesseraError('INSUFFICIENT_REPLICAS', 'm', {
      status: 500,
      nodeId: 'a',
      node: 'http://a.test:7000',
      key: 'k',
      maybeApplied: true,
      attempts: 2,
      retryAfterMs: 10,
      details: { replicas: 1 },
      cause: 'root',
    });
    expect(err).toMatchObject({ code: 'INSUFFICIENT_REPLICAS', httpStatus: 500, status: 500, nodeId: 'a' });
    expect(err).toMatchObject({ node: 'http://a.test:7000', key: 'k', maybeApplied: true, attempts: 2 });
    expect(err).toMatchObject({ retryAfterMs: 10, details: { replicas: 1 }, cause: 'root' });
    expect(new TesseraError('TIMEOUT', 'm', { httpStatus: 503, status: 500 }).httpStatus).toBe(503);
    expect(new TesseraError('TIMEOUT', 'm').httpStatus).toBe(504);
    expect(new TesseraError('TIMEOUT', 'm').grpcStatus).toBe(GrpcStatus.DEADLINE_EXCEEDED);
  });

  it('with() keeps the class, and toJSON shows the facts of the call', () => {
    const err = new TesseraError('CONNECTION_FAILED', 'm', { node: 'http://a.test:7000' });
    const more = err.with({ nodeId: 'a', key: 'k', attempts: 2, maybeApplied: true });
    expect(Object.getPrototypeOf(more)).toBe(TesseraError.prototype);
    expect(JSON.parse(JSON.stringify(more))).toStrictEqual({
      name: 'TesseraError',
      code: 'CONNECTION_FAILED',
      message: 'm',
      nodeId: 'a',
      node: 'http://a.test:7000',
      key: 'k',
      maybeApplied: true,
      attempts: 2,
    });
  });

  it('passes a code from a newer node through, with the status the node answered', async () => {
    const body = JSON.stringify({ error: { code: 'FROM_A_NEWER_NODE', message: 'new' } });
    const err = await failure(clientWith(async () => ({ status: 418, text: body })).get('k'));
    expect(err).toMatchObject({ code: 'FROM_A_NEWER_NODE', httpStatus: 418, grpcStatus: GrpcStatus.UNKNOWN });
  });
});

describe('statuses of errors the client raises itself', () => {
  const unused: Transport['request'] = async () => {
    throw new Error('the client must not send this call');
  };

  it('INVALID_KEY carries the status a node would answer, 400', async () => {
    for (const key of ['', 'x'.repeat(1025)]) {
      const err = await failure(clientWith(unused).get(key));
      expect(err).toMatchObject({ code: 'INVALID_KEY', httpStatus: 400, status: 400 });
      expect(err.grpcStatus).toBe(GrpcStatus.INVALID_ARGUMENT);
    }
  });

  it("a client code has its table status, or none when no node's answer is behind it", async () => {
    expect((await failure(clientWith(unused).put('k', undefined))).httpStatus).toBe(400); // INVALID_ARGUMENT
    const refused: Transport['request'] = async () => {
      throw new TransportFailure('connect ECONNREFUSED', false);
    };
    const err = await failure(clientWith(refused).get('k'));
    expect(err).toMatchObject({ code: 'NODE_UNREACHABLE', node: 'http://a.test:7000' });
    expect(err.httpStatus).toBeUndefined();
    const junk = await failure(clientWith(async () => ({ status: 502, text: '<html>' })).get('k'));
    expect(junk).toMatchObject({ code: 'BAD_RESPONSE', httpStatus: 502 }); // the answer's status
  });
});

describe('client codes', () => {
  it('CLIENT_ERROR_CODES are the client rows of the one table', () => {
    expect(Object.keys(CLIENT_ERROR_CODES)).toEqual(CLIENT_ERROR_CODE_LIST);
    for (const code of CLIENT_ERROR_CODE_LIST)
      expect(CLIENT_ERROR_CODES[code]).toBe(ERROR_CODES[code].summary);
  });

  it("the README's table lists every client code with its HTTP status and meaning, both ways", () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('\n## Errors\n'), readme.indexOf('\n## Browsers\n'));
    const rows = section
      .split('\n')
      .filter((line) => /^\|\s*`/.test(line))
      .map((line) =>
        line
          .split('|')
          .slice(1, -1)
          .map((cell) => cell.trim()),
      );
    const expected = (code: ErrorCode): string[] => {
      const info = ERROR_CODES[code];
      return [`\`${code}\``, info.http === undefined ? 'none' : String(info.http), info.summary];
    };
    expect(rows.map((cells) => cells[0])).toEqual(CLIENT_ERROR_CODE_LIST.map((code) => `\`${code}\``));
    for (const cells of rows) {
      const code = cells[0]!.replaceAll('`', '');
      expect(isClientErrorCode(code), code).toBe(true);
      if (isClientErrorCode(code)) expect(cells).toEqual(expected(code));
    }
  });
});
