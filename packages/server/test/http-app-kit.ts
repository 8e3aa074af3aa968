/**
 * A node's HTTP app in process, for tests of the API's front (validation, CORS, the data path,
 * TLS limits): the config of a node that never starts, and the dependencies every app needs,
 * to which a test adds the parts of a node its requests reach.
 */
import { type Config, parseConfig } from '../src/config.js';
import type { HttpAppDeps } from '../src/http/app.js';
import { NodeMetrics } from '../src/node/metrics.js';

/** The config of node `a` on port 0 with no data dir in use, plus `settings`. */
export function appConfig(settings: Record<string, unknown> = {}): Config {
  return parseConfig({
    nodeId: 'a',
    http: '127.0.0.1:0',
    peer: '127.0.0.1:0',
    dataDir: 'unused',
    ...settings,
  });
}

/** An app's dependencies: `config`, fresh metrics, a gate that records nothing, no strong keys, and `more`. */
export function appDeps(config: Config, more: Record<string, unknown> = {}): HttpAppDeps {
  return {
    config,
    metrics: new NodeMetrics(),
    admission: { recordForeground: () => {} },
    strong: { isStrong: () => false },
    ...more,
  } as unknown as HttpAppDeps;
}
