/**
 * Builds response bodies. Sibling values are stored as JSON bytes and spliced into the response
 * as they are, never parsed and re-serialized.
 */
import type { KeyState } from '@tessera/core';

const encoder = new TextEncoder();

export function renderSiblings(key: string, context: string, state: KeyState): Buffer {
  const parts: Uint8Array[] = [
    encoder.encode(`{"key":${JSON.stringify(key)},"context":${JSON.stringify(context)},"siblings":[`),
  ];
  state.siblings.forEach((s, i) => {
    parts.push(encoder.encode(`${i === 0 ? '' : ','}{"value":`));
    parts.push(s.value);
    parts.push(encoder.encode(`,"lastModified":"${new Date(s.lastModifiedMs).toISOString()}"}`));
  });
  parts.push(encoder.encode(']}'));
  return Buffer.concat(parts);
}
