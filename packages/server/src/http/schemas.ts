/** zod schemas for everything a client sends over HTTP. */
import { CONTEXT_CHARS_MAX, TesseraError } from '@tessera/core';
import { z } from 'zod';

export const KEY_BYTES_MAX = 1024;

const intParam = (name: string, min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,9}$/, `${name} must be a whole number`)
    .transform(Number)
    .refine((v) => v >= min && v <= max, `${name} must be from ${min} to ${max}`)
    .meta({ description: `A whole number from ${min} to ${max}.` });

/**
 * The key as a query parameter, for a path whose key segment is empty (`/v1/kv/?key=..`): the keys
 * `.` and `..` cannot be a path segment, since URL parsers (browsers' fetch, undici, curl) remove
 * such segments, and `%2E` with them.
 */
const keyParam = z.string().meta({
  description:
    'The key, when the path ends in `/v1/kv/` with no key segment (every key may go here; needed for `.` and `..`, which URL normalisation removes from a path).',
});

/** What a read or delete of a key with no live value answers: 404 NOT_FOUND (default), or 200. */
const missingParam = z.enum(['error', 'ok']).meta({
  description:
    '`ok`: a key with no live value is answered 200 (no siblings; a read carries the tombstone context when there is one) instead of 404 NOT_FOUND, so browsers log no failed request.',
});

/** `?consistency=strong`: the caller expects a strong key; a key in no strong namespace is NOT_STRONG_KEY. */
const consistencyParam = z.enum(['strong']).meta({
  description:
    '`strong`: the caller expects the key to be in a strong namespace; otherwise the request is refused with NOT_STRONG_KEY before anything is read or written.',
});

export const readQuerySchema = z
  .object({
    consistency: consistencyParam.optional(),
    r: intParam('r', 1, 64).optional(),
    timeoutMs: intParam('timeoutMs', 1, 120_000).optional(),
    local: z.enum(['true', 'false']).optional(),
    missing: missingParam.optional(),
    key: keyParam.optional(),
  })
  .strict();

export const writeQuerySchema = z
  .object({
    consistency: consistencyParam.optional(),
    w: intParam('w', 1, 64).optional(),
    timeoutMs: intParam('timeoutMs', 1, 120_000).optional(),
    key: keyParam.optional(),
  })
  .strict();

/** A get's query as parsed. */
export type ReadQuery = z.infer<typeof readQuerySchema>;
/** A put's query as parsed. */
export type WriteQuery = z.infer<typeof writeQuerySchema>;

export const deleteQuerySchema = writeQuerySchema.extend({ missing: missingParam.optional() }).strict();

/** Arrays and objects nested in a value, at most (deeper ones would overflow the stack when serialized). */
export const VALUE_DEPTH_MAX = 100;

export const putBodySchema = z
  .object({ value: z.unknown(), context: z.string().max(CONTEXT_CHARS_MAX).optional() })
  .strict()
  .refine((b) => b.value !== undefined, {
    message: 'value is required (use null for an explicit null)',
    path: ['value'],
  })
  .refine((b) => depthWithin(b.value, VALUE_DEPTH_MAX), {
    message: `value nests arrays and objects more than ${VALUE_DEPTH_MAX} levels deep`,
    path: ['value'],
  });

/** A put's body as parsed. */
export type PutBody = z.infer<typeof putBodySchema>;

/**
 * A put's body, checked by hand when it has the usual shape (an object of `value` and maybe a
 * `context` string within its limit, the value nested no deeper than VALUE_DEPTH_MAX), which is
 * exactly what putBodySchema accepts; every other input goes through the schema, for its message.
 * Zod cost a coordinator about 1.5% of its CPU per put (docs/benchmarks.md, tenth round).
 */
export function parsePutBody(input: unknown): PutBody {
  return isPlainPutBody(input) ? input : parseInput(putBodySchema, input, 'body');
}

function isPlainPutBody(input: unknown): input is PutBody {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return false;
  if (Object.getPrototypeOf(input) !== Object.prototype) return false;
  for (const name of Object.keys(input)) if (name !== 'value' && name !== 'context') return false;
  const { value, context } = input as { value?: unknown; context?: unknown };
  if (value === undefined) return false;
  if (context !== undefined && (typeof context !== 'string' || context.length > CONTEXT_CHARS_MAX))
    return false;
  return depthWithin(value, VALUE_DEPTH_MAX);
}

/** Whether `value` nests at most `max` levels of arrays and objects (iterative: no recursion to overflow). */
export function depthWithin(value: unknown, max: number): boolean {
  const pending: Array<[unknown, number]> = [[value, 0]];
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    const [v, depth] = item;
    if (typeof v !== 'object' || v === null) continue;
    if (depth + 1 > max) return false;
    for (const child of Array.isArray(v) ? v : Object.values(v)) pending.push([child, depth + 1]);
  }
  return true;
}

/** Keys of a listing page: default and maximum of `limit`. */
export const LIST_LIMIT_DEFAULT = 100;
export const LIST_LIMIT_MAX = 1_000;
/** A listing cursor, at most (a key of 1024 bytes escaped in JSON, then base64url, fits). */
export const CURSOR_CHARS_MAX = 12_000;
/** Keys in one batch get, at most. */
export const BATCH_KEYS_MAX = 100;

const keyBytes = (key: string): number => Buffer.byteLength(key, 'utf8');
const noLoneSurrogate = (s: string): boolean => !/\p{Cs}/u.test(s);

/** A key in a body: what `validateKey` accepts in a path. */
export const keySchema = z
  .string()
  .min(1, 'a key must not be empty')
  .refine((k) => keyBytes(k) <= KEY_BYTES_MAX, `a key is at most ${KEY_BYTES_MAX} bytes of UTF-8`)
  .refine(noLoneSurrogate, 'a key must be well-formed Unicode (no lone surrogate)');

export const listQuerySchema = z
  .object({
    prefix: z
      .string()
      .refine((p) => keyBytes(p) <= KEY_BYTES_MAX, `prefix is at most ${KEY_BYTES_MAX} bytes of UTF-8`)
      .refine(noLoneSurrogate, 'prefix must be well-formed Unicode (no lone surrogate)')
      .meta({
        description:
          'Only keys that start with this (0 to 1024 bytes of UTF-8); absent or empty for every key.',
      })
      .optional(),
    limit: intParam('limit', 1, LIST_LIMIT_MAX).optional(),
    cursor: z
      .string()
      .min(1)
      .max(CURSOR_CHARS_MAX)
      .meta({
        description:
          "The previous page's cursor, unchanged, with the same prefix; absent for the first page.",
      })
      .optional(),
    timeoutMs: intParam('timeoutMs', 1, 120_000).optional(),
  })
  .strict();

export const batchGetBodySchema = z
  .object({
    keys: z.array(keySchema).min(1).max(BATCH_KEYS_MAX),
    r: z.int().min(1).max(64).optional(),
    timeoutMs: z.int().min(1).max(120_000).optional(),
  })
  .strict();

export const deleteBodySchema = z.object({ context: z.string().max(CONTEXT_CHARS_MAX).optional() }).strict();

export const joinBodySchema = z.object({ seed: z.string().regex(/^[A-Za-z0-9.\-[\]:]+:\d{1,5}$/) }).strict();
export const removeBodySchema = z.object({ nodeId: z.string().min(1).max(64) }).strict();

/** Parses `input` with `schema`, turning zod issues into one coded 400 error. */
export function parseInput<T>(
  schema: z.ZodType<T>,
  input: unknown,
  where: string,
  code: 'BAD_REQUEST' | 'INVALID_QUORUM' = 'BAD_REQUEST',
): T {
  if (isEmpty(input)) {
    // Most requests carry no query: its parse is the schema's defaults, made once per schema.
    const known = emptyParses.get(schema);
    if (known !== undefined) return known as T;
  }
  const parsed = schema.safeParse(input ?? {});
  if (parsed.success) {
    if (isEmpty(input) && isRecord(parsed.data)) emptyParses.set(schema, Object.freeze(parsed.data));
    return parsed.data;
  }
  const issues = parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
  const text = issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ');
  const quorum = issues.some((i) => ['r', 'w', 'timeoutMs'].includes(i.path));
  return fail(quorum ? 'INVALID_QUORUM' : code, `Invalid ${where}: ${text}.`, issues);
}

const emptyParses = new WeakMap<z.ZodType<unknown>, unknown>();

function isEmpty(input: unknown): boolean {
  if (input === undefined || input === null) return true;
  if (typeof input !== 'object') return false;
  for (const _ in input) return false;
  return true;
}

function isRecord(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

function fail(code: 'BAD_REQUEST' | 'INVALID_QUORUM', message: string, issues: unknown): never {
  throw new TesseraError(code, message, { issues });
}

export function validateKey(key: unknown): string {
  if (typeof key !== 'string' || key.length === 0) {
    throw new TesseraError(
      'INVALID_KEY',
      'The key is empty. Put the key in the path: /v1/kv/<key>, percent-encoded.',
    );
  }
  const bytes = Buffer.byteLength(key, 'utf8');
  if (bytes > KEY_BYTES_MAX) {
    throw new TesseraError(
      'INVALID_KEY',
      `The key is ${bytes} bytes of UTF-8; the limit is ${KEY_BYTES_MAX}.`,
      { bytes },
    );
  }
  if (/\p{Cs}/u.test(key)) {
    throw new TesseraError(
      'INVALID_KEY',
      'The key is not well-formed Unicode (it contains a lone surrogate).',
    );
  }
  return key;
}
