/**
 * The HTTP API as an OpenAPI 3.1 document, served at GET /v1/openapi.json. Request parameters and
 * bodies are the very zod schemas the routes validate with (schemas.ts), converted by
 * @asteasolutions/zod-to-openapi; answers are described by the schemas below, which only document
 * (answers are rendered by the routes). openapi.ts serves it.
 */
import { OpenAPIRegistry, OpenApiGeneratorV31, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { faultsBodySchema } from './fault-routes.js';
import { adminOpsRoutes } from './openapi-admin-ops.js';
import {
  batchBody,
  contextBody,
  deleteAnswer,
  errors,
  faultsBody,
  json,
  keyParams,
  listPageBody,
  notFoundBody,
  repairBody,
  siblingsBody,
  statusBody,
} from './openapi-answers.js';
import { snapshotRoutes } from './openapi-snapshot.js';
import { strongBody, strongRoutes } from './openapi-strong.js';
import {
  BATCH_KEYS_MAX,
  batchGetBodySchema,
  deleteBodySchema,
  deleteQuerySchema,
  joinBodySchema,
  LIST_LIMIT_DEFAULT,
  LIST_LIMIT_MAX,
  listQuerySchema,
  putBodySchema,
  readQuerySchema,
  removeBodySchema,
  writeQuerySchema,
} from './schemas.js';

/** Every route of the API, with the schemas its handler validates its input with. */
const ROUTES: readonly RouteConfig[] = [
  {
    method: 'get',
    path: '/v1/kv/{key}',
    summary: 'Read a key: every sibling and one context',
    request: { params: keyParams, query: readQuerySchema },
    responses: {
      200: json(
        z.union([siblingsBody, strongBody]),
        'The live siblings of the key (none, with `?missing=ok`, for a key with no live value); a strong key: its value and version.',
      ),
      404: json(notFoundBody, 'NOT_FOUND: the key has no live value.'),
      ...errors,
    },
  },
  {
    method: 'put',
    path: '/v1/kv/{key}',
    summary: 'Write a value, replacing what the context covers',
    request: {
      params: keyParams,
      query: writeQuerySchema,
      body: { content: { 'application/json': { schema: putBodySchema } }, required: true },
    },
    responses: {
      200: json(
        z.union([contextBody, strongBody]),
        'The context of the new version, and how it was stored; a strong key: its version now.',
      ),
      ...errors,
    },
  },
  {
    method: 'delete',
    path: '/v1/kv/{key}',
    summary: 'Delete what the context covers (without one, what a quorum read sees)',
    request: {
      params: keyParams,
      query: deleteQuerySchema,
      body: { content: { 'application/json': { schema: deleteBodySchema } }, required: false },
    },
    responses: {
      200: json(
        z.union([deleteAnswer, strongBody]),
        'The context of the tombstone, and how it was stored; a strong key: its version now.',
      ),
      ...errors,
    },
  },
  {
    method: 'get',
    path: '/v1/kv',
    summary: 'List keys with a prefix, one page at a time',
    description: `A coverage query: each partition is asked of one live replica, so a listing is eventually consistent (it can miss a recent write or show a key deleted since); deleted keys are not listed. Keys come in partition order. \`limit\` defaults to ${LIST_LIMIT_DEFAULT}, at most ${LIST_LIMIT_MAX}; a page can hold fewer keys, even none, and still have a cursor. Cost: every stored entry is scanned, whatever the prefix (docs/api.md).`,
    request: { query: listQuerySchema },
    responses: { 200: json(listPageBody, 'One page of keys and the cursor of the next.'), ...errors },
  },
  {
    method: 'post',
    path: '/v1/kv/batch-get',
    summary: `Read up to ${BATCH_KEYS_MAX} keys, each with its own result`,
    request: { body: { content: { 'application/json': { schema: batchGetBodySchema } }, required: true } },
    responses: { 200: json(batchBody, 'One result per key, in request order.'), ...errors },
  },
  {
    method: 'get',
    path: '/v1/preference-list/{key}',
    summary: "A key's partition and preference list",
    request: { params: keyParams },
    responses: {
      200: json(
        z.object({ key: z.string(), partition: z.int(), n: z.int(), nodes: z.array(z.string()) }),
        'The nodes in ring order from the key’s partition; the first n are its replicas.',
      ),
      ...errors,
    },
  },
  {
    method: 'get',
    path: '/v1/status',
    summary: 'The cluster as this node sees it',
    responses: { 200: json(statusBody, 'Members, ring, pending change, history.'), ...errors },
  },
  {
    method: 'get',
    path: '/v1/status/repair',
    summary: 'Hints, handoff, background admission and anti-entropy',
    responses: { 200: json(repairBody, 'Repair status.'), ...errors },
  },
  {
    method: 'get',
    path: '/health',
    summary: 'Liveness',
    security: [],
    responses: {
      200: json(z.object({ status: z.literal('ok'), nodeId: z.string() }), 'The node serves requests.'),
      503: json(
        z.object({ status: z.literal('draining'), nodeId: z.string() }),
        'The node is draining (POST /v1/admin/drain): send requests elsewhere.',
      ),
    },
  },
  {
    method: 'get',
    path: '/metrics',
    summary: 'Prometheus metrics',
    responses: {
      200: { description: 'Prometheus text format.', content: { 'text/plain': { schema: z.string() } } },
      ...errors,
    },
  },
  {
    method: 'get',
    path: '/ui',
    summary: 'A live picture of the ring (HTML)',
    security: [],
    responses: { 200: { description: 'An HTML page.', content: { 'text/html': { schema: z.string() } } } },
  },
  {
    method: 'get',
    path: '/v1/openapi.json',
    summary: 'This document',
    responses: { 200: json(z.record(z.string(), z.unknown()), 'The OpenAPI 3.1 document.'), ...errors },
  },
  {
    method: 'post',
    path: '/v1/admin/join',
    summary: 'Ask a seed to admit this node',
    request: { body: { content: { 'application/json': { schema: joinBodySchema } }, required: true } },
    responses: {
      200: json(
        z.object({ nodeId: z.string(), clusterId: z.string(), status: z.literal('joining') }),
        'Admitted; its partitions follow.',
      ),
      ...errors,
    },
  },
  {
    method: 'post',
    path: '/v1/admin/leave',
    summary: 'Hand this node’s partitions over and leave',
    responses: { 200: json(z.object({ nodeId: z.string(), status: z.string() }), 'Leaving.'), ...errors },
  },
  {
    method: 'post',
    path: '/v1/admin/remove',
    summary: 'Remove a dead member for good',
    request: { body: { content: { 'application/json': { schema: removeBodySchema } }, required: true } },
    responses: { 200: json(z.object({ nodeId: z.string(), status: z.string() }), 'Removed.'), ...errors },
  },
  {
    method: 'get',
    path: '/v1/admin/faults',
    summary: 'Fault injection: the peers this node drops traffic to',
    responses: { 200: json(faultsBody, 'The current faults.'), ...errors },
  },
  {
    method: 'post',
    path: '/v1/admin/faults',
    summary: 'Fault injection: drop traffic to peers (tests and demos only)',
    request: { body: { content: { 'application/json': { schema: faultsBodySchema } }, required: true } },
    responses: { 200: json(faultsBody, 'The faults now.'), ...errors },
  },
  {
    method: 'delete',
    path: '/v1/admin/faults',
    summary: 'Fault injection: heal',
    responses: { 200: json(faultsBody, 'The faults now (none).'), ...errors },
  },
];

export type OpenApiDocument = ReturnType<OpenApiGeneratorV31['generateDocument']>;

export function openApiDocument(): OpenApiDocument {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    description:
      'Needed only on nodes started with tokens: the client token, or the admin token for /v1/admin/* (docs/security.md).',
  });
  for (const route of [
    ...ROUTES,
    ...strongRoutes(errors),
    ...snapshotRoutes(errors),
    ...adminOpsRoutes(errors),
  ])
    registry.registerPath(route);
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Tessera HTTP API',
      version: '1',
      description:
        'A Dynamo-style key-value store. Every node serves the same API; every node accepts every key. docs/api.md has examples and limits.',
    },
    // A token when the node requires one, none otherwise.
    security: [{ bearer: [] }, {}],
  });
}
