/**
 * The pipe's Nagle-style hold (pipeHoldMs): on a busy pipe a small batch of writes waits for more,
 * so a partly loaded node sends fewer, fuller messages; an idle pipe, a read, and a full batch
 * never wait. Driven through a fake stream (which messages leave, and when) and fake timers.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type * as pb from './generated/tessera/peer/v1/peer.js';
import { PIPE_HOLD_CALLS_MAX, PipeClient, type PipeEvents } from './pipe-client.js';

const HOLD_MS = 1_000;

class FakeStream {
  events: PipeEvents | undefined;
  readonly sent: pb.PipeRequest[] = [];
  write(message: pb.PipeRequest): boolean {
    this.sent.push(message);
    return true;
  }
  end(): void {}
  /** Answers every call sent so far. */
  answerAll(): void {
    const replies = this.sent.flatMap((m) => m.calls).map((c) => ({ id: c.id, replicate: {} }));
    this.events?.replies({ replies });
  }
}

function pipe(holdMs: number): { client: PipeClient; stream: FakeStream } {
  const stream = new FakeStream();
  const open = (events: PipeEvents): FakeStream => {
    stream.events = events;
    return stream;
  };
  return { client: new PipeClient(open, 'peer:1', { messageBytesMax: 1 << 20, holdMs }), stream };
}

/** Sends `op`; calls still waiting when the test closes the client fail then, as they should. */
function send(client: PipeClient, op: Parameters<PipeClient['call']>[0]): void {
  client.call(op, op.read === undefined ? 'Replicate' : 'Read', 60_000).catch(() => undefined);
}
const write = (key: string) => ({ replicate: { key, state: new Uint8Array([1]) } });
const read = (key: string) => ({ read: { key } });
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));
const keysOf = (m: pb.PipeRequest) => m.calls.map((c) => c.replicate?.key ?? c.read?.key);

describe('replication pipe hold (pipeHoldMs)', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sends a write on an idle pipe at the end of its tick, and holds the next small batches while it is busy', async () => {
    const { client, stream } = pipe(HOLD_MS);
    send(client, write('a'));
    await tick();
    expect(stream.sent.map(keysOf)).toEqual([['a']]);
    // 'a' waits for its reply: the pipe is busy, so 'b' and 'c', from two ticks, wait together.
    send(client, write('b'));
    await tick();
    send(client, write('c'));
    await tick();
    expect(stream.sent).toHaveLength(1);
    vi.advanceTimersByTime(HOLD_MS);
    expect(stream.sent.map(keysOf)).toEqual([['a'], ['b', 'c']]);
    client.close();
  });

  it('never holds a read, and a read that joins a held batch sends it at the end of the tick', async () => {
    const { client, stream } = pipe(HOLD_MS);
    send(client, write('a'));
    await tick();
    send(client, read('r1'));
    await tick();
    expect(stream.sent.map(keysOf)).toEqual([['a'], ['r1']]);
    send(client, write('b'));
    await tick();
    expect(stream.sent).toHaveLength(2);
    send(client, read('r2'));
    await tick();
    expect(stream.sent.map(keysOf)).toEqual([['a'], ['r1'], ['b', 'r2']]);
    client.close();
  });

  it(`sends a held batch once it reaches ${PIPE_HOLD_CALLS_MAX} calls, and holds nothing once replies caught up`, async () => {
    const { client, stream } = pipe(HOLD_MS);
    send(client, write('a'));
    await tick();
    for (let i = 0; i < PIPE_HOLD_CALLS_MAX; i++) send(client, write(`k${i}`));
    await tick();
    expect(stream.sent.map((m) => m.calls.length)).toEqual([1, PIPE_HOLD_CALLS_MAX]);
    stream.answerAll();
    send(client, write('z'));
    await tick();
    expect(stream.sent.map(keysOf).at(-1)).toEqual(['z']);
    client.close();
  });

  it('with pipeHoldMs 0, sends every batch at the end of its tick', async () => {
    const { client, stream } = pipe(0);
    send(client, write('a'));
    await tick();
    send(client, write('b'));
    await tick();
    expect(stream.sent.map(keysOf)).toEqual([['a'], ['b']]);
    client.close();
  });
});
