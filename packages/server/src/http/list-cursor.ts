/**
 * The opaque cursor of a key listing: base64url of JSON `{ "v": 1, "q": partitionCount,
 * "p": partition, "k"?: key to resume after, "h": hash of the prefix }`. Clients must not build or
 * edit one; a node checks every field, that the cursor was issued for the same prefix and the same
 * ring layout, and that its key belongs to its partition, and answers a 400 otherwise.
 */
import { murmur3, partitionOf, TesseraError } from '@tessera/core';
import { z } from 'zod';
import type { ListPosition } from '../coordinator/coverage.js';

/** The code of a cursor that is not one this cluster issued for this prefix. */
export const CURSOR_ERROR_CODE = 'INVALID_CURSOR';

const VERSION = 1;
const encoder = new TextEncoder();

const cursorSchema = z
  .object({
    v: z.literal(VERSION),
    q: z.int().min(1),
    p: z.int().min(0),
    k: z.string().min(1).optional(),
    h: z.int().min(0),
  })
  .strict();

export interface CursorScope {
  readonly partitionCount: number;
  readonly prefix: string;
}

export function encodeListCursor(position: ListPosition, scope: CursorScope): string {
  const body = {
    v: VERSION,
    q: scope.partitionCount,
    p: position.partition,
    ...(position.afterKey === undefined ? {} : { k: position.afterKey }),
    h: prefixHash(scope.prefix),
  };
  return Buffer.from(JSON.stringify(body), 'utf8').toString('base64url');
}

export function decodeListCursor(cursor: string, scope: CursorScope): ListPosition {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) invalid('it is not base64url');
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(cursor, 'base64url')));
  } catch {
    invalid('it does not decode');
  }
  const parsed = cursorSchema.safeParse(json);
  if (!parsed.success) invalid('its fields are not those of a cursor');
  const { q, p, k, h } = parsed.data;
  if (q !== scope.partitionCount) {
    invalid(`it was issued by a cluster of ${q} partitions, this one has ${scope.partitionCount}`);
  }
  if (h !== prefixHash(scope.prefix)) invalid('it was issued for another prefix; send the same prefix');
  if (p >= q) invalid('its partition does not exist');
  if (k !== undefined && partitionOf(q, k) !== p) invalid('its key does not belong to its partition');
  return k === undefined ? { partition: p } : { partition: p, afterKey: k };
}

function prefixHash(prefix: string): number {
  return murmur3(encoder.encode(prefix));
}

function invalid(why: string): never {
  throw new TesseraError(
    CURSOR_ERROR_CODE,
    `The cursor is not valid: ${why}. Send the cursor of the previous page unchanged, or start over without one.`,
  );
}
