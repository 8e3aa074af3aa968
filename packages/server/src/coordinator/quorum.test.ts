/**
 * A quorum's Collector: answers at `needed` successes; when the quorum cannot be met, its error counts
 * every reply actually received (it waits for the calls still out, up to the deadline) instead
 * of the replies that happened to be in at the first failure.
 */
import { type NodeId, TesseraError } from '@tessera/core';
import { afterEach, describe, expect, it } from 'vitest';
import { Deadlines } from '../util/deadlines.js';
import { Collector, type ReplicaReply } from './quorum.js';

interface QuorumOutcome<T> {
  readonly replies: ReplicaReply<T>[];
  readonly settled: Promise<ReplicaReply<T>[]>;
}

/** The calls' replies recorded into one Collector, as the read and the write fan-out do. */
function collectQuorum<T>(
  calls: ReadonlyArray<{ node: NodeId; run: () => Promise<T> }>,
  needed: number,
  timeoutMs: number,
  what: 'read' | 'write',
  deadlines: Deadlines,
): Promise<QuorumOutcome<T>> {
  return new Promise<QuorumOutcome<T>>((resolve, reject) => {
    let resolveSettled: (replies: ReplicaReply<T>[]) => void = () => {};
    const settled = new Promise<ReplicaReply<T>[]>((res) => {
      resolveSettled = res;
    });
    const collector = new Collector<T>(calls.length, needed, what, (error, replies) => {
      if (error === undefined) resolve({ replies, settled });
      else reject(error);
    });
    collector.settled = resolveSettled;
    collector.begin(deadlines, timeoutMs);
    for (const call of calls) {
      call.run().then(
        (value) => collector.record({ node: call.node, ok: true, value }),
        (error: unknown) => collector.record({ node: call.node, ok: false, error }),
      );
    }
  });
}

const deadlines = new Deadlines();
const timers: ReturnType<typeof setTimeout>[] = [];
afterEach(() => {
  for (const t of timers.splice(0)) clearTimeout(t);
});

/** A replica call that succeeds (or fails with `code`) after `ms`; `never` never settles. */
function replica(node: string, ms: number, code?: string) {
  return {
    node,
    run: () =>
      new Promise<string>((resolve, reject) => {
        timers.push(
          setTimeout(
            () =>
              code === undefined ? resolve(node) : reject(new TesseraError(code as never, `${node} failed`)),
            ms,
          ),
        );
      }),
  };
}
const never = (node: string) => ({ node, run: () => new Promise<string>(() => {}) });

async function failure(promise: Promise<unknown>): Promise<TesseraError> {
  try {
    await promise;
  } catch (err) {
    expect(TesseraError.is(err)).toBe(true);
    return err as TesseraError;
  }
  throw new Error('expected the quorum to fail');
}

describe('a quorum (Collector)', () => {
  it('answers as soon as `needed` replicas succeeded', async () => {
    const outcome = await collectQuorum(
      [replica('a', 1), replica('b', 5), never('c')],
      2,
      5_000,
      'read',
      deadlines,
    );
    expect(outcome.replies.map((r) => r.node)).toEqual(['a', 'b']);
  });

  it('w=3 with one replica failing fast: waits for the two others and says 2 of 3 answered', async () => {
    const err = await failure(
      collectQuorum(
        [replica('down', 1, 'PEER_UNAVAILABLE'), replica('b', 30), replica('c', 40)],
        3,
        5_000,
        'write',
        deadlines,
      ),
    );
    expect(err.code).toBe('INSUFFICIENT_REPLICAS');
    expect(err.details).toMatchObject({ needed: 3, answered: 2, asked: 3, failed: 1, pending: 0 });
    expect(err.details?.failures).toEqual([{ node: 'down', code: 'PEER_UNAVAILABLE' }]);
    expect(err.message).toMatch(/^Only 2 of the 3 replicas a write needs answered/);
    expect(err.message).toContain('down PEER_UNAVAILABLE');
    expect(err.message).toContain('The 2 that acknowledged hold the new version');
  });

  it('fewer replicas asked than needed: still waits for those asked and counts them', async () => {
    const err = await failure(
      collectQuorum([replica('a', 5), replica('b', 10)], 3, 5_000, 'write', deadlines),
    );
    expect(err.details).toMatchObject({ needed: 3, answered: 2, asked: 2, failed: 0, pending: 0 });
  });

  it('no replica to ask: fails at once', async () => {
    const err = await failure(collectQuorum([], 1, 5_000, 'read', deadlines));
    expect(err.details).toMatchObject({ needed: 1, answered: 0, asked: 0 });
  });

  it('when the deadline passes while counting, says "at least" and how many had not answered', async () => {
    const started = Date.now();
    const err = await failure(
      collectQuorum([replica('a', 1, 'TIMEOUT'), replica('b', 5), never('c')], 3, 200, 'write', deadlines),
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(err.code).toBe('INSUFFICIENT_REPLICAS');
    expect(err.details).toMatchObject({ needed: 3, answered: 1, failed: 1, pending: 1 });
    expect(err.message).toMatch(/^At least 1 of the 3 replicas a write needs answered by the deadline/);
  });

  it('a quorum still possible at the deadline is a TIMEOUT with the counts of that moment', async () => {
    const err = await failure(
      collectQuorum([replica('a', 1), never('b'), never('c')], 2, 100, 'read', deadlines),
    );
    expect(err.code).toBe('TIMEOUT');
    expect(err.details).toMatchObject({ needed: 2, answered: 1, failed: 0, pending: 2 });
  });

  it('reports every reply in `settled`, late ones included', async () => {
    const outcome = await collectQuorum(
      [replica('a', 1), replica('b', 20, 'PEER_UNAVAILABLE'), replica('c', 40)],
      1,
      5_000,
      'read',
      deadlines,
    );
    const all = await outcome.settled;
    expect(all.map((r) => [r.node, r.ok])).toEqual([
      ['a', true],
      ['b', false],
      ['c', true],
    ]);
  });
});
