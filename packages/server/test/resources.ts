/**
 * What a test file's `beforeAll` starts (clusters, servers, browsers), stopped by its `afterAll`
 * even when the `beforeAll` failed or ran out of time part-way. Each resource's stop is registered
 * the moment the resource exists, so one that started while another failed is still stopped.
 * `stopAll` first waits for starts still under way (a cluster half started when the browser failed
 * to launch: the worker may exit right after the file, leaving its nodes running); one that ends
 * even later (past the `afterAll`'s own timeout) is stopped as soon as it exists.
 */
import { Closers } from '../src/node/closers.js';

/** A node's Closers (newest first, every close runs), plus starts still under way. */
export class Resources {
  private readonly stops = new Closers();
  private readonly pending = new Set<Promise<unknown>>();
  private stopping = false;

  /** `started`, with `stop` registered for its value once it resolves. */
  add<T>(started: Promise<T>, stop: (resource: T) => Promise<unknown>): Promise<T> {
    const registered = started.then(async (resource) => {
      if (this.stopping) await stop(resource);
      else this.stops.add(async () => void (await stop(resource)));
      return resource;
    });
    const settled: Promise<void> = registered.then(
      () => void this.pending.delete(settled),
      () => void this.pending.delete(settled),
    );
    this.pending.add(settled);
    return registered;
  }

  /**
   * Waits for the starts under way, then stops every resource started, the last started first.
   * Every stop runs; when some failed, the first error is thrown after them.
   */
  async stopAll(): Promise<void> {
    await Promise.all(this.pending);
    this.stopping = true;
    const errors: unknown[] = [];
    await this.stops.closeAll((err) => errors.push(err));
    if (errors.length > 0) throw errors[0];
  }
}
