/**
 * The Node.js entry (chosen by the "node" export condition): everything from the main entry, with
 * a TesseraClient whose default transport is a keep-alive undici connection pool per node.
 */
import { TesseraClient as BaseClient } from './client.js';
import type { TesseraClientOptions } from './options.js';
import type { Transport } from './transport/types.js';
import { type PoolOptions, type TlsOptions, undiciTransport } from './transport/undici.js';

export * from './index.js';
export { type PoolOptions, type TlsOptions, undiciTransport } from './transport/undici.js';

export interface NodeClientOptions extends TesseraClientOptions {
  /** The undici connection pool (ignored when `transport` is given). */
  readonly pool?: PoolOptions;
  /** TLS for https node URLs: a private CA, a client certificate (ignored when `transport` is given). */
  readonly tls?: TlsOptions;
}

export class TesseraClient extends BaseClient {
  constructor(options: NodeClientOptions) {
    super(options);
  }

  protected static override createTransport(options: NodeClientOptions): Transport {
    return undiciTransport(options.pool, options.tls);
  }
}
