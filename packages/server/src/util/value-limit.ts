/**
 * The one limit on a value's size, for plain keys (coordinator.ts) and strong keys and
 * transactions (strong/): `VALUE_TOO_LARGE` (413) past `valueBytesMax` bytes of its JSON text.
 */
import { TesseraError } from '@tessera/core';

export function checkValueBytes(bytes: number, valueBytesMax: number): void {
  if (bytes <= valueBytesMax) return;
  throw new TesseraError(
    'VALUE_TOO_LARGE',
    `The value is ${bytes} bytes serialized; the limit is ${valueBytesMax}. Store large blobs elsewhere and keep a reference here.`,
    { bytes, valueBytesMax },
  );
}
