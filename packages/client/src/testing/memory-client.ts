/**
 * A TesseraClient for application tests: the real client, talking to an in-memory node instead
 * of a cluster (memory-node.ts). Same class, same methods, same errors; `client.memory` scripts
 * siblings and failures. Browser-safe: no Node-only import.
 *
 *   const client = createMemoryClient();
 *   client.memory.write('cart/1', other);                        // a concurrent writer
 *   client.memory.fail('put', 'INSUFFICIENT_REPLICAS', { applied: true });
 */
import { TesseraClient } from '../client.js';
import type { TesseraClientOptions } from '../options.js';
import { MemoryNode } from './memory-node.js';
import type { MemoryStoreOptions } from './memory-store.js';

export interface MemoryClientOptions
  extends Omit<TesseraClientOptions, 'nodes' | 'transport' | 'routing' | 'token'>,
    MemoryStoreOptions {
  /** The node to talk to: give another client's `memory` to share its data (two devices). */
  readonly memory?: MemoryNode;
}

export class MemoryClient extends TesseraClient {
  /** The in-memory node: its data, its call log and its fault controls. */
  readonly memory: MemoryNode;

  constructor(options: MemoryClientOptions = {}) {
    const { memory, now, siblingsMax, valueBytesMax, ...client } = options;
    const node =
      memory ??
      new MemoryNode({
        ...(now === undefined ? {} : { now }),
        ...(siblingsMax === undefined ? {} : { siblingsMax }),
        ...(valueBytesMax === undefined ? {} : { valueBytesMax }),
        ...(client.json === undefined ? {} : { json: client.json }),
      });
    super({
      backoff: { baseMs: 1, maxMs: 10 },
      ringRefreshMs: 0,
      ...client,
      nodes: [node.url],
      transport: node,
      routing: false,
    });
    this.memory = node;
  }
}

/** A client backed by an in-memory node (a new one, or `options.memory` to share one). */
export function createMemoryClient(options: MemoryClientOptions = {}): MemoryClient {
  return new MemoryClient(options);
}
