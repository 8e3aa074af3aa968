/**
 * `@tessera/server`: a Tessera node in your own process. `startNode(settings)` parses the settings
 * (the same fields as `tessera start --config FILE`, docs/operations.md) and starts a node with its
 * HTTP API; `stop()` stops it. The storage engine interface and the built-in engines are here for
 * engine authors, with their conformance suite under `@tessera/server/conformance`; node processes
 * on this machine (what `tessera cluster up` runs) are under `@tessera/server/local-cluster`.
 */
import { type ConfigInput, parseConfig } from './config.js';
import { createLogger, type Logger } from './logger.js';
import type { TesseraNode } from './node/node.js';
import { startServer } from './server.js';

export { type Config, type ConfigInput, configSchema, parseConfig } from './config.js';
export { createLogger, type Logger, silentLogger } from './logger.js';
export type { TesseraNode } from './node/node.js';
export { startServer } from './server.js';
export { BaseEngine, type CheckedRange, keysOf } from './storage/base-engine.js';
export type { BatchOp, KeyRange, Namespace, StorageEngine, WriteOptions } from './storage/engine.js';
export { LevelEngine } from './storage/level-engine.js';
export { MemoryEngine } from './storage/memory-engine.js';

export interface StartNodeOptions {
  /** Where the node logs (default: pino JSON on stdout at the settings' `logLevel`). */
  readonly log?: Logger;
}

/**
 * Starts a node and its HTTP API once it is ready: storage open, peers listening, cluster state
 * loaded or joined through `seeds`. Invalid settings throw a TesseraError `BAD_REQUEST`.
 */
export async function startNode(settings: ConfigInput, options: StartNodeOptions = {}): Promise<TesseraNode> {
  const config = parseConfig(settings);
  const log = options.log ?? createLogger({ level: config.logLevel, nodeId: config.nodeId });
  return startServer(config, log);
}
