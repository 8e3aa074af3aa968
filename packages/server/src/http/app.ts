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
  type FastifyReply,
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
import { type FaultRouteDeps, registerFaultRoutes } from './fault-routes.js';
import { type KvRouteDeps, registerKvRoutes } from './kv-routes.js';
import { type ListRouteDeps, registerListRoutes } from './list-routes.js';
import { registerOpenApiRoute, trackRoutes } from './openapi.js';
import { type RequestGuardDeps, requestGuard } from './request-guard.js';
import { registerSnapshotRoutes, type SnapshotRouteDeps } from './snapshot-routes.js';
import { registerTransactionRoutes } from './strong-routes.js';
import { httpsServerFactory } from './tls.js';
import { registerUiRoute } from './ui-route.js';

/** Room for the context and JSON framing around a value of valueBytesMax. */
const BODY_OVERHEAD_BYTES = 64 * 1024;

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

export function createHttpApp(deps: HttpAppDeps, log: Logger): FastifyInstance {
  const { config } = deps;
  const serverFactory = httpsServerFactory(config);
  const app = Fastify({
    ...(serverFactory === undefined ? {} : { serverFactory }),
    loggerInstance: log as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    // The component logger itself, not a child per request: requests are not logged, and a child
    // (with redaction) per request cost about 2% of a node's CPU under load.
    childLoggerFactory: (logger) => logger,
    bodyLimit: config.valueBytesMax + BODY_OVERHEAD_BYTES,
    routerOptions: { maxParamLength: 8 * 1024 },
    ...connectionLimits(config),
    return503OnClosing: true,
    clientErrorHandler: handleClientError,
    // Errors before routing (a path that is not percent-encoded UTF-8) get the same coded answers.
    frameworkErrors: (err, _req, reply) => sendError(reply, toTesseraError(err, log)),
  });
  app.server.maxConnections = config.httpConnectionsMax;
  app.server.on('drop', () => deps.metrics.connectionsDropped.inc());
  // JSON only: a text body is a mistake worth a clear 415, not a string value.
  app.removeContentTypeParser('text/plain');
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
  return app;
}

/** Timeouts that cut off clients too slow to send a request (slowloris) or idle too long. */
function connectionLimits(c: HttpSettings) {
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

export function sendError(reply: FastifyReply, err: TesseraError): FastifyReply {
  if (err.code === 'OVERLOADED' || err.code === 'NODE_NOT_READY') reply.header('retry-after', '1');
  return reply
    .code(err.httpStatus ?? 500)
    .type('application/json')
    .send({ error: err.toJSON() });
}

/**
 * 5xx codes that are the cluster's state, not a fault of the node (a quorum not met, a deadline, a
 * strong key's majority not reached): the answer says it, no error log with a stack trace.
 */
const EXPECTED_UNAVAILABLE: ReadonlySet<string> = new Set([
  'INSUFFICIENT_REPLICAS',
  'TIMEOUT',
  'STRONG_UNAVAILABLE',
]);

/** Maps fastify's own errors (bad JSON, huge bodies, wrong media type) onto our codes. */
function toTesseraError(err: FastifyError, log: Logger): TesseraError {
  if (TesseraError.is(err)) {
    if ((err.httpStatus ?? 500) >= 500 && !EXPECTED_UNAVAILABLE.has(err.code)) {
      log.error({ err }, 'request failed');
    }
    return err;
  }
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new TesseraError(
        'VALUE_TOO_LARGE',
        'The request body is larger than this node accepts. Send a smaller value.',
      );
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new TesseraError(
        'UNSUPPORTED_MEDIA_TYPE',
        'Send the body as JSON with the header Content-Type: application/json.',
      );
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new TesseraError(
        'INVALID_JSON',
        'The body is empty but Content-Type says JSON. Send a JSON object, or no Content-Type.',
      );
    case 'FST_ERR_BAD_URL':
      return new TesseraError(
        'BAD_REQUEST',
        'The URL path is not valid percent-encoded UTF-8. Encode keys with encodeURIComponent.',
      );
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new TesseraError(
        'INVALID_KEY',
        `The key is longer than the 1024 bytes of UTF-8 a key may have.`,
      );
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      // The parser refuses some valid JSON too (secure-json-parse: prototype poisoning).
      return new TesseraError(
        'INVALID_JSON',
        'The body is not valid JSON, or it holds a key __proto__ (or a key constructor with a key ' +
          'prototype inside), which this server refuses (prototype poisoning). Send valid JSON without such keys.',
      );
  }
  if (err instanceof SyntaxError || err.statusCode === 400) {
    return new TesseraError('INVALID_JSON', `The body is not valid JSON: ${err.message}`);
  }
  if (err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500) {
    return new TesseraError('BAD_REQUEST', err.message);
  }
  log.error({ err }, 'unexpected error');
  return new TesseraError(
    'INTERNAL',
    'An unexpected error happened in the node; it is logged. Please report it.',
  );
}
