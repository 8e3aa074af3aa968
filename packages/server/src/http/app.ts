/**
 * The HTTP API (fastify): client key-value calls, cluster and admin calls, health and metrics.
 * Every error leaves as `{ "error": { code, message, details? } }` with the status from the one
 * code table; nothing a client sends produces a 500.
 */
import { TesseraError } from '@tessera/core';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  LogController,
} from 'fastify';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { NodeMetrics } from '../node/metrics.js';
import { type AdminOpsRouteDeps, registerAdminOpsRoutes } from './admin-ops-routes.js';
import { registerAuth } from './auth.js';
import { type BatchRouteDeps, registerBatchRoutes } from './batch-routes.js';
import { handleClientError } from './client-errors.js';
import { type ClusterRouteDeps, registerClusterRoutes } from './cluster-routes.js';
import { registerCors } from './cors.js';
import { installDataPath } from './data-path.js';
import { sendError, toTesseraError } from './error-reply.js';
import { type FaultRouteDeps, registerFaultRoutes } from './fault-routes.js';
import { installJsonBodyParser } from './json-body.js';
import { type KvRouteDeps, registerKvRoutes } from './kv-routes.js';
import { type ListRouteDeps, registerListRoutes } from './list-routes.js';
import { registerOpenApiRoute, trackRoutes } from './openapi.js';
import { type RequestGuardDeps, requestGuard } from './request-guard.js';
import { registerSnapshotRoutes, type SnapshotRouteDeps } from './snapshot-routes.js';
import { registerTransactionRoutes } from './strong-routes.js';
import { httpsServerFactory, type ServerLimits } from './tls.js';
import { registerUiRoute } from './ui-route.js';

/** Room for the context and JSON framing around a value of valueBytesMax. */
const BODY_OVERHEAD_BYTES = 64 * 1024;
/** The longest key segment of a path the router takes (a key of 1024 bytes, percent-encoded, fits). */
const KEY_SEGMENT_CHARS_MAX = 8 * 1024;

/** The settings the app itself reads (limits, timeouts, TLS, tokens). */
export type HttpSettings = Pick<
  Config,
  | 'valueBytesMax'
  | 'httpConnectionsMax'
  | 'httpIdleTimeoutMs'
  | 'httpKeepAliveTimeoutMs'
  | 'httpRequestTimeoutMs'
  | 'httpHeadersTimeoutMs'
  | 'httpTls'
  | 'token'
  | 'adminToken'
  | 'corsOrigins'
>;

/** What the HTTP API uses of a node: its own settings and metrics, and what each group of routes uses. */
export type HttpAppDeps = {
  readonly config: HttpSettings;
  readonly metrics: Pick<NodeMetrics, 'connectionsDropped'>;
} & Pick<RequestGuardDeps, 'refuseClients'> &
  KvRouteDeps &
  ListRouteDeps &
  BatchRouteDeps &
  ClusterRouteDeps &
  FaultRouteDeps &
  SnapshotRouteDeps &
  AdminOpsRouteDeps;

/** Serves the API at `address` until closed. */
export async function serveHttp(
  deps: HttpAppDeps,
  address: { readonly host: string; readonly port: number },
  log: Logger,
): Promise<{ close(): Promise<void> }> {
  const app = createHttpApp(deps, log);
  try {
    await app.listen({ host: address.host, port: address.port });
  } catch (err) {
    await app.close();
    throw err;
  }
  return { close: () => app.close() };
}

/**
 * `dataPath: false` leaves every request to fastify (the tests that compare the two fronts);
 * otherwise plain gets and puts take the data path (data-path.ts) unless CORS is on.
 */
export function createHttpApp(
  deps: HttpAppDeps,
  log: Logger,
  options: { readonly dataPath?: boolean } = {},
): FastifyInstance {
  const { config } = deps;
  const limits = connectionLimits(config);
  const serverFactory = httpsServerFactory(config, limits);
  const app = Fastify({
    ...(serverFactory === undefined ? {} : { serverFactory }),
    loggerInstance: log as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    // The component logger itself, not a child per request: requests are not logged, and a child
    // (with redaction) per request cost about 2% of a node's CPU under load.
    childLoggerFactory: (logger) => logger,
    bodyLimit: config.valueBytesMax + BODY_OVERHEAD_BYTES,
    routerOptions: { maxParamLength: KEY_SEGMENT_CHARS_MAX },
    ...limits,
    return503OnClosing: true,
    clientErrorHandler: handleClientError,
    // Errors before routing (a path that is not percent-encoded UTF-8) get the same coded answers.
    frameworkErrors: (err, _req, reply) => sendError(reply, toTesseraError(err, log)),
  });
  app.server.maxConnections = config.httpConnectionsMax;
  app.server.on('drop', () => deps.metrics.connectionsDropped.inc());
  // JSON only: a text body is a mistake worth a clear 415, not a string value.
  app.removeContentTypeParser('text/plain');
  installJsonBodyParser(app);
  app.setErrorHandler((err: FastifyError, _req, reply) => sendError(reply, toTesseraError(err, log)));
  app.setNotFoundHandler((req, reply) =>
    sendError(
      reply,
      new TesseraError(
        'ROUTE_NOT_FOUND',
        `No endpoint ${req.method} ${req.url.split('?')[0]}. See docs/api.md.`,
      ),
    ),
  );
  // Before authentication: a browser's preflight carries no token (docs/browser.md).
  registerCors(app, config.corsOrigins);
  trackRoutes(app);
  registerAuth(app, config);
  // One count of requests in flight for every data route.
  const guard = requestGuard(deps);
  registerKvRoutes(app, deps, guard);
  registerListRoutes(app, deps, guard);
  registerBatchRoutes(app, deps, guard);
  registerTransactionRoutes(app, deps, guard);
  registerClusterRoutes(app, deps);
  registerUiRoute(app);
  registerFaultRoutes(app, deps);
  registerAdminOpsRoutes(app, deps);
  registerSnapshotRoutes(app, deps);
  registerOpenApiRoute(app);
  const corsOn = config.corsOrigins !== undefined && config.corsOrigins.length > 0;
  if (options.dataPath !== false && !corsOn) {
    const settings = {
      bodyLimitBytes: config.valueBytesMax + BODY_OVERHEAD_BYTES,
      keySegmentCharsMax: KEY_SEGMENT_CHARS_MAX,
      tokens: config,
    };
    installDataPath(app, deps, guard, settings, log);
  }
  return app;
}

/** Timeouts that cut off clients too slow to send a request (slowloris) or idle too long. */
function connectionLimits(c: HttpSettings): ServerLimits {
  return {
    connectionTimeout: c.httpIdleTimeoutMs,
    keepAliveTimeout: c.httpKeepAliveTimeoutMs,
    requestTimeout: c.httpRequestTimeoutMs,
    http: {
      requestTimeout: c.httpRequestTimeoutMs,
      headersTimeout: c.httpHeadersTimeoutMs,
      // How often node checks those two deadlines (its default, 30 s, would let a slow client linger).
      connectionsCheckingInterval: Math.min(1_000, c.httpHeadersTimeoutMs),
      // Node answers a request without Host with a bare 400 of its own; no route here needs Host.
      requireHostHeader: false,
    },
  };
}
