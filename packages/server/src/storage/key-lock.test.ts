import { describe, expect, it } from 'vitest';
import { KeyLock, lockHash } from './key-lock.js';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe('KeyLock', () => {
  it('runs tasks for one key one at a time, in call order', async () => {
    const lock = new KeyLock();
    const events: string[] = [];
    const gate = deferred();
    const first = lock.run('k', lockHash('k'), async () => {
      events.push('first start');
      await gate.promise;
      events.push('first end');
    });
    const second = lock.run('k', lockHash('k'), async () => {
      events.push('second');
    });
    await Promise.resolve();
    expect(events).toEqual(['first start']);
    gate.resolve();
    await Promise.all([first, second]);
    expect(events).toEqual(['first start', 'first end', 'second']);
  });

  it('runs tasks for different keys in parallel', async () => {
    const lock = new KeyLock();
    const gate = deferred();
    const blocked = lock.run('a', lockHash('a'), () => gate.promise);
    await expect(lock.run('b', lockHash('b'), async () => 'b done')).resolves.toBe('b done');
    gate.resolve();
    await blocked;
  });

  it('passes a failure to its caller, releases the key, and forgets idle keys', async () => {
    const lock = new KeyLock();
    const failing = lock.run('k', lockHash('k'), async () => {
      throw new Error('boom');
    });
    const next = lock.run('k', lockHash('k'), async () => 42);
    expect(lock.size).toBe(1);
    await expect(failing).rejects.toThrow('boom');
    await expect(next).resolves.toBe(42);
    expect(lock.size).toBe(0);
    await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        lock.run(`key-${i % 10}`, lockHash(`key-${i % 10}`), async () => i),
      ),
    );
    expect(lock.size).toBe(0);
  });

  it('never starts a task inside the run call that queued it, and passes on a task that throws at once', async () => {
    const lock = new KeyLock();
    const events: string[] = [];
    const first = lock.run('k', lockHash('k'), async () => {
      events.push('first');
    });
    events.push('queued');
    const thrown = lock.run('k', lockHash('k'), () => {
      throw new Error('at once');
    });
    const third = lock.run('k', lockHash('k'), async () => 'third');
    expect(events).toEqual(['queued']);
    await first;
    expect(events).toEqual(['queued', 'first']);
    await expect(thrown).rejects.toThrow('at once');
    await expect(third).resolves.toBe('third');
    expect(lock.size).toBe(0);
  });

  it('holds many waiters of one key in call order and frees the key after the last', async () => {
    const lock = new KeyLock();
    const order: number[] = [];
    const gate = deferred();
    const head = lock.run('k', lockHash('k'), () => gate.promise);
    const rest = Array.from({ length: 50 }, (_, i) =>
      lock.run('k', lockHash('k'), async () => {
        order.push(i);
        await Promise.resolve();
      }),
    );
    expect(lock.size).toBe(1);
    gate.resolve();
    await Promise.all([head, ...rest]);
    expect(order).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(lock.size).toBe(0);
  });

  it("answers a queued task's group until it starts, or until another task is queued after it", async () => {
    const lock = new KeyLock<string[]>();
    const gate = deferred();
    const first = lock.run('k', lockHash('k'), () => gate.promise, ['first']);
    expect(lock.openGroup('k', lockHash('k'))).toEqual(['first']);
    await Promise.resolve();
    // Started: its group is closed.
    expect(lock.openGroup('k', lockHash('k'))).toBeUndefined();
    const second = ['second'];
    const queued = lock.run('k', lockHash('k'), async () => 'second ran', second);
    expect(lock.openGroup('k', lockHash('k'))).toBe(second);
    const third = lock.run('k', lockHash('k'), async () => 'no group');
    expect(lock.openGroup('k', lockHash('k'))).toBeUndefined();
    const fourth = ['fourth'];
    const last = lock.run('k', lockHash('k'), async () => 'fourth ran', fourth);
    expect(lock.openGroup('k', lockHash('k'))).toBe(fourth);
    lock.closeGroup('k', lockHash('k'));
    expect(lock.openGroup('k', lockHash('k'))).toBeUndefined();
    expect(lock.openGroup('other', lockHash('other'))).toBeUndefined();
    gate.resolve();
    await expect(Promise.all([first, queued, third, last])).resolves.toEqual([
      undefined,
      'second ran',
      'no group',
      'fourth ran',
    ]);
    expect(lock.size).toBe(0);
  });

  it('frees the key whatever a task returns, a thenable that throws included', async () => {
    const lock = new KeyLock();
    const bad = {
      // biome-ignore lint/suspicious/noThenProperty: the point of the test is a broken thenable.
      then: () => {
        throw new Error('bad thenable');
      },
    } as unknown as Promise<void>;
    await expect(lock.run('k', lockHash('k'), () => bad)).rejects.toThrow('bad thenable');
    await expect(lock.run('k', lockHash('k'), async () => 'after')).resolves.toBe('after');
    expect(lock.size).toBe(0);
  });
});

describe('KeyLock.runNext', () => {
  it('runs right after the running task, before the tasks waiting, and leaves the open group open', async () => {
    const lock = new KeyLock<string[]>();
    const hash = lockHash('k');
    const order: string[] = [];
    const group = ['g'];
    let next: Promise<void> | undefined;
    const first = lock.run('k', hash, async () => {
      order.push('first');
      next = lock.runNext('k', hash, async () => {
        order.push('next');
      });
    });
    const waiting = lock.run(
      'k',
      hash,
      async () => {
        order.push('waiting');
      },
      group,
    );
    // Before the first task starts, the last queued task's group is open.
    expect(lock.openGroup('k', hash)).toBe(group);
    await first;
    expect(lock.openGroup('k', hash)).toBe(group);
    await Promise.all([next, waiting]);
    expect(order).toEqual(['first', 'next', 'waiting']);
    expect(lock.size).toBe(0);
  });

  it('on a free key is run', async () => {
    const lock = new KeyLock();
    await expect(lock.runNext('k', lockHash('k'), async () => 7)).resolves.toBe(7);
    expect(lock.size).toBe(0);
  });
});
