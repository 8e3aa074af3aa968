/** Clients bound to one node each (no routing), made on first use and kept until closed. */
import type { TesseraClient } from '@tessera/client';
import { createClient } from './worker.js';

export class PinnedClients {
  private readonly clients = new Map<string, TesseraClient>();

  constructor(private readonly urlOf: (node: string) => string) {}

  /** The client of `node`; `weak`: R=1 and W=1. */
  get(node: string, weak = false): TesseraClient {
    const name = `${node}${weak ? '/weak' : ''}`;
    let client = this.clients.get(name);
    if (client === undefined) {
      client = createClient([this.urlOf(node)], { pinned: true, weak });
      this.clients.set(name, client);
    }
    return client;
  }

  async close(): Promise<void> {
    await Promise.all([...this.clients.values()].map((c) => c.close()));
  }
}
