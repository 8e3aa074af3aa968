import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  codeForGrpcStatus,
  ERROR_CODE_LIST,
  ERROR_CODES,
  type ErrorCode,
  GrpcStatus,
  grpcStatusOf,
  httpStatusOf,
  isErrorCode,
  TesseraError,
} from './errors.js';

const GRPC_VALUES: number[] = Object.values(GrpcStatus);
const codeArb = fc.constantFrom(...ERROR_CODE_LIST);

describe('ERROR_CODES', () => {
  it('lists every code once', () => {
    expect(ERROR_CODE_LIST).toEqual(Object.keys(ERROR_CODES));
    expect(new Set(ERROR_CODE_LIST).size).toBe(ERROR_CODE_LIST.length);
    expect(ERROR_CODE_LIST.length).toBeGreaterThan(0);
  });

  it.each(ERROR_CODE_LIST)('%s has an HTTP 4xx/5xx status, a gRPC status and a summary', (code) => {
    const info = ERROR_CODES[code];
    expect(code).toMatch(/^[A-Z][A-Z_]*[A-Z]$/);
    expect(info.http).toBeGreaterThanOrEqual(400);
    expect(info.http).toBeLessThan(600);
    expect(GRPC_VALUES).toContain(info.grpc);
    expect(info.grpc).not.toBe(GrpcStatus.OK);
    expect(info.summary.trim().length).toBeGreaterThan(0);
    expect(httpStatusOf(code)).toBe(info.http);
    expect(grpcStatusOf(code)).toBe(info.grpc);
    // A client's fault is never reported as the server's over gRPC, nor the other way round.
    if (info.http < 500) expect([GrpcStatus.INTERNAL, GrpcStatus.UNAVAILABLE]).not.toContain(info.grpc);
    else expect([GrpcStatus.INVALID_ARGUMENT, GrpcStatus.NOT_FOUND]).not.toContain(info.grpc);
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
          expect(err.grpcStatus).toBe(ERROR_CODES[code].grpc);
        },
      ),
    );
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
    // JSON.stringify goes through toJSON: no stack, name or cause leaks to clients.
    const viaJson: unknown = JSON.parse(
      JSON.stringify(new TesseraError('INTERNAL', 'x', undefined, { cause: 1 })),
    );
    expect(viaJson).toStrictEqual({ code: 'INTERNAL', message: 'x' });
  });

  it('TesseraError.is recognises instances and branded objects from another copy of the package', () => {
    const brand = Symbol.for('tessera.error');
    fc.assert(
      fc.property(codeArb, (code: ErrorCode) => {
        expect(TesseraError.is(new TesseraError(code, 'm'))).toBe(true);
      }),
    );
    expect(TesseraError.is({ [brand]: true, code: 'BAD_REQUEST', message: 'm' })).toBe(true);
    expect(TesseraError.is(Object.create({ [brand]: true }))).toBe(true);
    class ForeignError extends Error {
      readonly [brand] = true;
    }
    expect(TesseraError.is(new ForeignError('from another copy'))).toBe(true);
    const fakes: unknown[] = [
      null,
      undefined,
      'TesseraError',
      42,
      new Error('plain'),
      { code: 'BAD_REQUEST', message: 'm' },
      { [brand]: 'true' },
      { [brand]: 1 },
      { [Symbol('tessera.error')]: true },
    ];
    for (const v of fakes) expect(TesseraError.is(v)).toBe(false);
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
