/**
 * Builds response bodies by hand, not with JSON.stringify of an object (a compiled serializer, in
 * effect: about half its time for a put's answer). Sibling values are stored as JSON bytes and
 * spliced into the response as they are, never parsed and re-serialized.
 */
import type { KeyState, WriteReceipt } from '@tessera/core';

const encoder = new TextEncoder();

/**
 * Bodies rendered for cached (frozen, shared) states, reused while the key reads the same: `body`
 * is kept from the second render on (a key read once, of a million, keeps none).
 */
const rendered = new WeakMap<
  KeyState,
  { readonly key: string; readonly context: string; readonly body: Buffer | undefined }
>();

/**
 * The body of a successful get: `{ key, context, siblings }`. A hot key read again and again comes
 * back as the same cached state with the same context: its body is rendered twice, then reused
 * (never change it).
 */
export function renderSiblings(key: string, context: string, state: KeyState): Buffer {
  const memo = rendered.get(state);
  const again = memo !== undefined && memo.key === key && memo.context === context;
  if (again && memo.body !== undefined) return memo.body;
  const body = renderBody(key, context, state);
  if (!Object.isFrozen(state)) return body;
  if (!again) {
    rendered.set(state, { key, context, body: undefined });
    return body;
  }
  // A buffer of its own: Buffer.concat's result is a view into a shared 8 KiB pool slab, which a
  // kept body would keep alive whole (10,000 hot keys kept 60 MiB of slabs, measured).
  const own = Buffer.allocUnsafeSlow(body.length);
  body.copy(own);
  rendered.set(state, { key, context, body: own });
  return own;
}

function renderBody(key: string, context: string, state: KeyState): Buffer {
  const parts: Uint8Array[] = [
    encoder.encode(`{"key":${JSON.stringify(key)},"context":${JSON.stringify(context)},"siblings":[`),
  ];
  // A loop, not forEach: cached states are frozen, and V8's forEach of a frozen array is slow.
  for (let i = 0; i < state.siblings.length; i++) {
    const s = state.siblings[i]!;
    parts.push(encoder.encode(`${i === 0 ? '' : ','}{"value":`));
    parts.push(s.value);
    parts.push(encoder.encode(`,"lastModified":"${new Date(s.lastModifiedMs).toISOString()}"}`));
  }
  parts.push(encoder.encode(']}'));
  return Buffer.concat(parts);
}

const quoted = JSON.stringify;

/**
 * The JSON text of a put's or delete's answer, `{ context, stored }`: the text JSON.stringify
 * makes of that object (property test), in about half its time.
 */
export function renderWriteAnswer(context: string, stored: WriteReceipt | undefined): string {
  const head = `{"context":${quoted(context)}`;
  if (stored === undefined) return `${head}}`;
  let acks = '';
  for (let i = 0; i < stored.acks.length; i++) {
    const ack = stored.acks[i]!;
    const hint = ack.as === 'hint' ? `,"for":${quoted(ack.for)}` : '';
    acks += `${i === 0 ? '' : ','}{"node":${quoted(ack.node)},"as":${quoted(ack.as)}${hint}}`;
  }
  return `${head},"stored":{"acks":[${acks}],"replicas":${stored.replicas},"n":${stored.n},"w":${stored.w}}}`;
}
