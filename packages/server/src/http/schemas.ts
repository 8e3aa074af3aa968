/** zod schemas for everything a client sends over HTTP. */
import { CONTEXT_CHARS_MAX, TesseraError } from '@tessera/core';
import { z } from 'zod';

export const KEY_BYTES_MAX = 1024;

const intParam = (name: string, min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,9}$/, `${name} must be a whole number`)
    .transform(Number)
    .refine((v) => v >= min && v <= max, `${name} must be from ${min} to ${max}`);

export const readQuerySchema = z
  .object({
    r: intParam('r', 1, 64).optional(),
    timeoutMs: intParam('timeoutMs', 1, 120_000).optional(),
    local: z.enum(['true', 'false']).optional(),
  })
  .strict();

export const writeQuerySchema = z
  .object({
    w: intParam('w', 1, 64).optional(),
    timeoutMs: intParam('timeoutMs', 1, 120_000).optional(),
  })
  .strict();

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
  const parsed = schema.safeParse(input ?? {});
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
  const text = issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ');
  const quorum = issues.some((i) => ['r', 'w', 'timeoutMs'].includes(i.path));
  return fail(quorum ? 'INVALID_QUORUM' : code, `Invalid ${where}: ${text}.`, issues);
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
