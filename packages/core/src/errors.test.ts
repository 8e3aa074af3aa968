import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CLIENT_ERROR_CODE_LIST,
  type CodeInfo,
  codeForGrpcStatus,
  ERROR_CODE_LIST,
  ERROR_CODES,
  type ErrorCode,
  GrpcStatus,
  grpcStatusOf,
  httpStatusOf,
  isClientErrorCode,
  isErrorCode,
  isNodeErrorCode,
  NODE_ERROR_CODE_LIST,
  TesseraError,
} from './errors.js';

const GRPC_VALUES: number[] = Object.values(GrpcStatus);
const codeArb = fc.constantFrom(...ERROR_CODE_LIST);

/** Values that are not TesseraErrors, however close. */
const FAKES: unknown[] = [
  null,
  undefined,
  'TesseraError',
  42,
  new Error('plain'),
  { code: 'BAD_REQUEST', message: 'm' },
  { [Symbol.for('tessera.error')]: 'true' },
  { [Symbol.for('tessera.error')]: 1 },
  { [Symbol('tessera.error')]: true },
];

describe('ERROR_CODES', () => {
  it('lists every code once', () => {
    expect(ERROR_CODE_LIST).toEqual(Object.keys(ERROR_CODES));
    expect(new Set(ERROR_CODE_LIST).size).toBe(ERROR_CODE_LIST.length);
    expect(ERROR_CODE_LIST.length).toBeGreaterThan(0);
  });

  it.each(ERROR_CODE_LIST)(
    '%s has an origin, a gRPC status, a summary and a coherent HTTP status',
    (code) => {
      const info: CodeInfo = ERROR_CODES[code];
      expect(code).toMatch(/^[A-Z][A-Z_]*[A-Z]$/);
      expect(['node', 'client']).toContain(info.origin);
      // Every answer of a node has a status; only a client code may have none (no answer behind it).
      if (info.origin === 'node' || info.http !== undefined) {
        expect(info.http).toBeGreaterThanOrEqual(400);
        expect(info.http).toBeLessThan(600);
      }
      expect(GRPC_VALUES).toContain(info.grpc);
      expect(info.grpc).not.toBe(GrpcStatus.OK);
      expect(info.summary.trim().length).toBeGreaterThan(0);
      expect(info.summary).not.toContain('|'); // it is a cell of a Markdown table
      expect(httpStatusOf(code)).toBe(info.http);
      expect(grpcStatusOf(code)).toBe(info.grpc);
      // A client's fault is never reported as the server's over gRPC, nor the other way round.
      if (info.http === undefined) return;
      if (info.http < 500) expect([GrpcStatus.INTERNAL, GrpcStatus.UNAVAILABLE]).not.toContain(info.grpc);
      else expect([GrpcStatus.INVALID_ARGUMENT, GrpcStatus.NOT_FOUND]).not.toContain(info.grpc);
    },
  );

  it('splits the codes into node and client codes', () => {
    expect([...NODE_ERROR_CODE_LIST, ...CLIENT_ERROR_CODE_LIST].sort()).toEqual([...ERROR_CODE_LIST].sort());
    expect(CLIENT_ERROR_CODE_LIST).toContain('CONNECTION_FAILED');
    expect(NODE_ERROR_CODE_LIST).toContain('INVALID_KEY');
    for (const code of ERROR_CODE_LIST) {
      expect(isNodeErrorCode(code)).toBe(ERROR_CODES[code].origin === 'node');
      expect(isClientErrorCode(code)).toBe(ERROR_CODES[code].origin === 'client');
    }
    for (const v of ['toString', '__proto__', '', 'connection_failed', 42, null, undefined]) {
      expect(isNodeErrorCode(v)).toBe(false);
      expect(isClientErrorCode(v)).toBe(false);
    }
  });

  it('isErrorCode accepts exactly the listed codes', () => {
    for (const code of ERROR_CODE_LIST) expect(isErrorCode(code)).toBe(true);
    for (const v of [
      'toString',
      '__proto__',
      'constructor',
      'hasOwnProperty',
      '',
      'bad_request',
      42,
      null,
      undefined,
      {},
    ]) {
      expect(isErrorCode(v)).toBe(false);
    }
    fc.assert(
      fc.property(fc.string(), (s) => {
        expect(isErrorCode(s)).toBe((ERROR_CODE_LIST as string[]).includes(s));
      }),
    );
  });
});

describe('TesseraError', () => {
  it('carries its code, message, statuses, details and cause', () => {
    fc.assert(
      fc.property(
        codeArb,
        fc.string(),
        fc.option(fc.dictionary(fc.string(), fc.jsonValue())),
        (code, message, details) => {
          const cause = new Error('root');
          const err = new TesseraError(code, message, details ?? undefined, { cause });
          expect(err).toBeInstanceOf(Error);
          expect(err.name).toBe('TesseraError');
          expect(err.code).toBe(code);
          expect(err.message).toBe(message);
          expect(err.details).toEqual(details ?? undefined);
          expect(err.cause).toBe(cause);
          expect(err.httpStatus).toBe(ERROR_CODES[code].http);
          expect(err.status).toBe(err.httpStatus);
          expect(err.grpcStatus).toBe(ERROR_CODES[code].grpc);
          expect(err).toMatchObject({ maybeApplied: false, attempts: 1 });
          for (const fact of ['nodeId', 'node', 'key', 'retryAfterMs'] as const)
            expect(err[fact]).toBeUndefined();
        },
      ),
    );
    expect(new TesseraError('INVALID_KEY', 'm').httpStatus).toBe(400);
    expect('cause' in new TesseraError('INTERNAL', 'm')).toBe(false);
  });

  it("carries the facts of a call, and an answer's status over the code's", () => {
    const err = new TesseraError('INSUFFICIENT_REPLICAS', 'm', undefined, {
      httpStatus: 500,
      nodeId: 'a',
      node: 'http://a:7000',
      key: 'k',
      maybeApplied: true,
      attempts: 3,
      retryAfterMs: 1000,
    });
    expect(err).toMatchObject({ httpStatus: 500, nodeId: 'a', node: 'http://a:7000', key: 'k' });
    expect(err).toMatchObject({ maybeApplied: true, attempts: 3, retryAfterMs: 1000, status: 500 });
    // A code from a newer node, unknown here: its answer's status, and gRPC UNKNOWN.
    const future = new TesseraError('FROM_A_NEWER_NODE' as ErrorCode, 'm', undefined, { httpStatus: 418 });
    expect([future.httpStatus, future.grpcStatus]).toEqual([418, GrpcStatus.UNKNOWN]);
    expect(new TesseraError('FROM_A_NEWER_NODE' as ErrorCode, 'm').httpStatus).toBeUndefined();
  });

  it('with() adds facts: known ones win, attempts is the latest, maybeApplied if either', () => {
    const cause = new Error('root');
    const err = new TesseraError('CONNECTION_FAILED', 'm', { a: 1 }, { node: 'http://a:7000', cause });
    const more = new TesseraError('INTERNAL', 'x').with({
      httpStatus: 502,
      nodeId: 'a',
      node: 'http://b:7000',
      key: 'k',
      maybeApplied: true,
      attempts: 2,
      retryAfterMs: 5,
      details: { b: 2 },
      cause: 'other',
    });
    expect(more).toMatchObject({ code: 'INTERNAL', httpStatus: 500, nodeId: 'a', details: { b: 2 } });
    const copy = err.with({
      node: 'http://b:7000',
      key: 'k',
      maybeApplied: true,
      attempts: 2,
      details: { b: 2 },
    });
    expect(copy).not.toBe(err);
    expect(TesseraError.is(copy, 'CONNECTION_FAILED')).toBe(true);
    expect(copy).toMatchObject({
      message: 'm',
      node: 'http://a:7000',
      key: 'k',
      maybeApplied: true,
      attempts: 2,
    });
    expect(copy.details).toEqual({ a: 1 });
    expect(copy.cause).toBe(cause);
    expect(copy.httpStatus).toBeUndefined(); // a client code with no HTTP answer behind it
    expect(copy.with({ maybeApplied: false }).maybeApplied).toBe(true);
    expect(copy.with({}).attempts).toBe(2);
  });

  it('toJSON is { code, message } plus details only when there are some', () => {
    const plain = new TesseraError('NOT_FOUND', 'gone');
    expect(plain.toJSON()).toStrictEqual({ code: 'NOT_FOUND', message: 'gone' });
    expect(Object.keys(plain.toJSON())).toEqual(['code', 'message']);
    const detailed = new TesseraError('VALUE_TOO_LARGE', 'big', { bytes: 10 });
    expect(detailed.toJSON()).toStrictEqual({
      code: 'VALUE_TOO_LARGE',
      message: 'big',
      details: { bytes: 10 },
    });
    // JSON.stringify goes through toJSON: no stack, name, cause or facts of a call leak to clients.
    const viaJson: unknown = JSON.parse(
      JSON.stringify(
        new TesseraError('INTERNAL', 'x', undefined, {
          cause: 1,
          node: 'http://a:7000',
          key: 'k',
          attempts: 2,
        }),
      ),
    );
    expect(viaJson).toStrictEqual({ code: 'INTERNAL', message: 'x' });
  });

  it('TesseraError.is recognises instances and branded objects from another copy of the package', () => {
    const brand = Symbol.for('tessera.error');
    fc.assert(
      fc.property(codeArb, codeArb, (code: ErrorCode, other: ErrorCode) => {
        const err = new TesseraError(code, 'm');
        expect(TesseraError.is(err)).toBe(true);
        expect(TesseraError.is(err, code)).toBe(true);
        expect(TesseraError.is(err, other)).toBe(code === other);
      }),
    );
    expect(TesseraError.is({ [brand]: true, code: 'BAD_REQUEST', message: 'm' })).toBe(true);
    expect(TesseraError.is({ [brand]: true, code: 'BAD_REQUEST', message: 'm' }, 'BAD_REQUEST')).toBe(true);
    expect(TesseraError.is({ [brand]: true, code: 'BAD_REQUEST', message: 'm' }, 'INTERNAL')).toBe(false);
    expect(TesseraError.is(Object.create({ [brand]: true }))).toBe(true);
    class ForeignError extends Error {
      readonly [brand] = true;
    }
    expect(TesseraError.is(new ForeignError('from another copy'))).toBe(true);
    for (const v of FAKES) expect(TesseraError.is(v)).toBe(false);
    for (const v of FAKES) expect(TesseraError.is(v, 'BAD_REQUEST')).toBe(false);
  });

  it('instanceof goes by the brand too, and a subclass of its own keeps plain instanceof', () => {
    const brand = Symbol.for('tessera.error');
    expect(new TesseraError('INTERNAL', 'm')).toBeInstanceOf(TesseraError);
    expect({ [brand]: true, code: 'INTERNAL', message: 'm' }).toBeInstanceOf(TesseraError);
    for (const v of FAKES) expect(v instanceof TesseraError).toBe(false);
    class AppError extends TesseraError {}
    const mine = new AppError('INTERNAL', 'm');
    expect(mine).toBeInstanceOf(AppError);
    expect(mine).toBeInstanceOf(TesseraError);
    expect(new TesseraError('INTERNAL', 'm')).not.toBeInstanceOf(AppError);
  });

  it('an error of one copy of the module is an instance of another copy, both ways', async () => {
    // A second evaluation of this very module: what two installed versions of a package give.
    const url = './errors.js?second-copy';
    const copy = (await import(/* @vite-ignore */ url)) as typeof import('./errors.js');
    expect(copy.TesseraError).not.toBe(TesseraError);
    const theirs = new copy.TesseraError('NOT_FOUND', 'm');
    const ours = new TesseraError('TIMEOUT', 'm');
    expect(theirs).toBeInstanceOf(TesseraError);
    expect(ours).toBeInstanceOf(copy.TesseraError);
    expect(TesseraError.is(theirs, 'NOT_FOUND')).toBe(true);
    expect(copy.TesseraError.is(ours, 'TIMEOUT')).toBe(true);
  });

  it('carries the brand of @tessera/client 0.1 as well, which copies of that version check', () => {
    const legacy = Symbol.for('tessera.client.error');
    expect((new TesseraError('INTERNAL', 'm') as unknown as Record<symbol, unknown>)[legacy]).toBe(true);
    expect(TesseraError.is({ [legacy]: true, code: 'INTERNAL' })).toBe(false);
  });
});

describe('codeForGrpcStatus', () => {
  it('maps a status back to a code with that status, or INTERNAL', () => {
    fc.assert(
      fc.property(fc.oneof(fc.constantFrom(...GRPC_VALUES), fc.integer({ min: -5, max: 40 })), (status) => {
        const code = codeForGrpcStatus(status);
        expect(isErrorCode(code)).toBe(true);
        if (code !== 'INTERNAL') expect(grpcStatusOf(code)).toBe(status);
      }),
    );
    expect(codeForGrpcStatus(GrpcStatus.INVALID_ARGUMENT)).toBe('BAD_REQUEST');
    expect(codeForGrpcStatus(GrpcStatus.DEADLINE_EXCEEDED)).toBe('TIMEOUT');
    expect(codeForGrpcStatus(GrpcStatus.NOT_FOUND)).toBe('NOT_FOUND');
    expect(codeForGrpcStatus(GrpcStatus.UNAVAILABLE)).toBe('PEER_UNAVAILABLE');
    expect(codeForGrpcStatus(2)).toBe('INTERNAL'); // UNKNOWN
  });
});
