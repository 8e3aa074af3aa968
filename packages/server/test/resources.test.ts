/** Resources: what a beforeAll started is stopped by the afterAll, whatever failed or came late. */
import { describe, expect, it } from 'vitest';
import { Resources } from './resources.js';

/** A promise and the function that resolves it. */
function later<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe('Resources', () => {
  it('stops what started when another start failed, the last started first', async () => {
    const stopped: string[] = [];
    const resources = new Resources();
    const stop = async (name: string) => void stopped.push(name);
    const all = Promise.all([
      resources.add(Promise.resolve('cluster'), stop),
      resources.add(Promise.reject(new Error('no browser')), stop),
      resources.add(Promise.resolve('server'), stop),
    ]);
    await expect(all).rejects.toThrow('no browser');
    await resources.stopAll();
    expect(stopped).toEqual(['server', 'cluster']);
  });

  it('waits for a start still under way, then stops it', async () => {
    const stopped: string[] = [];
    const resources = new Resources();
    const slow = later<string>();
    void resources.add(slow.promise, async (name) => void stopped.push(name));
    const stopping = resources.stopAll();
    await Promise.resolve();
    expect(stopped).toEqual([]);
    slow.resolve('cluster');
    await stopping;
    expect(stopped).toEqual(['cluster']);
  });

  it('stops a resource that starts after stopAll ended, as soon as it exists', async () => {
    const stopped: string[] = [];
    const resources = new Resources();
    await resources.stopAll();
    const started = resources.add(Promise.resolve('late'), async (name) => void stopped.push(name));
    await started;
    expect(stopped).toEqual(['late']);
  });

  it('runs every stop and then throws the first error', async () => {
    const stopped: string[] = [];
    const resources = new Resources();
    await resources.add(Promise.resolve('a'), async () => void stopped.push('a'));
    await resources.add(Promise.resolve('b'), async () => {
      throw new Error('b would not stop');
    });
    await expect(resources.stopAll()).rejects.toThrow('b would not stop');
    expect(stopped).toEqual(['a']);
  });
});
