/**
 * What the pipe's first frames carry (pipe-frames.ts): the caller's HELLO, the same facts a gRPC
 * call carries as metadata (credentials.ts), checked by the same peer guard (peer-guard.ts); and a
 * wire error (REFUSE, FAIL) as JSON. Both are decoded here, bounded, and validated with zod.
 */
import { z } from 'zod';

/** Payload limits of the first frames: far above what they hold, far below a pipe message. */
export const HELLO_BYTES_MAX = 4_096;
export const WIRE_ERROR_BYTES_MAX = 16_384;

/** The caller's metadata, by the names a gRPC call carries it under (tessera-node, …). */
export type PipeHello = Readonly<Record<string, string>>;

const helloSchema = z
  .record(z.string().max(64), z.string().max(512))
  .refine((r) => Object.keys(r).length <= 16, {
    message: 'at most 16 entries',
  });

const wireErrorSchema = z.object({
  code: z.string().max(64),
  message: z.string().max(4_096),
  details: z.string().max(WIRE_ERROR_BYTES_MAX).optional(),
});

export function encodeJson(value: unknown): Uint8Array {
  return Buffer.from(JSON.stringify(value), 'utf8');
}

/** The hello's entries, or undefined when the payload is not one. */
export function parseHello(payload: Buffer): PipeHello | undefined {
  if (payload.length > HELLO_BYTES_MAX) return undefined;
  const parsed = helloSchema.safeParse(parseJson(payload));
  return parsed.success ? parsed.data : undefined;
}

/** A REFUSE or FAIL payload as sent (its code is checked by wire-error.ts's `fromWireError`). */
export interface SentError {
  readonly code: string;
  readonly message: string;
  readonly details?: string;
}

/** A REFUSE or FAIL payload's error, or undefined when the payload is not one. */
export function parseWireError(payload: Buffer): SentError | undefined {
  if (payload.length > WIRE_ERROR_BYTES_MAX) return undefined;
  const parsed = wireErrorSchema.safeParse(parseJson(payload));
  if (!parsed.success) return undefined;
  const { code, message, details } = parsed.data;
  return details === undefined ? { code, message } : { code, message, details };
}

function parseJson(payload: Buffer): unknown {
  try {
    return JSON.parse(payload.toString('utf8'));
  } catch {
    return undefined;
  }
}
