/**
 * The OpenAPI description of strong keys and transactions (docs/transactions.md), merged into the
 * document by openapi.ts. Request bodies are the schemas the routes validate with.
 */
import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import { TRANSACTION_ACTIONS_MAX } from '@tessera/core';
import { z } from 'zod';
import { json } from './openapi-answers.js';
import { transactBodySchema, transactGetBodySchema } from './strong-schemas.js';

export const strongBody = z
  .object({
    key: z.string(),
    value: z
      .unknown()
      .optional()
      .meta({ description: 'Absent when the key has no value (`?missing=ok`, or after a write).' }),
    version: z.string().meta({
      description:
        'Decimal: 0 before the first write, one more after each committed put, and delete of a value. Send it as If-Match.',
    }),
    consistency: z.literal('strong'),
  })
  .meta({
    id: 'StrongValue',
    description: 'A key in a strong namespace (--strong): linearizable, no siblings.',
  });

const reason = z
  .union([
    z.object({ code: z.literal('None') }),
    z.object({ code: z.literal('ConditionalCheckFailed'), currentVersion: z.string() }),
    z.object({ code: z.literal('TransactionConflict'), message: z.string().optional() }),
  ])
  .meta({ id: 'CancellationReason' });

export function strongRoutes(errors: RouteConfig['responses']): RouteConfig[] {
  return [
    {
      method: 'post',
      path: '/v1/transactions',
      summary: `Apply up to ${TRANSACTION_ACTIONS_MAX} actions on strong keys, all or none`,
      description:
        'Serializable with other transactions and single operations on strong keys. A clientRequestToken makes a retry answer the first outcome without applying twice. A cancelled transaction is 409 TRANSACTION_CANCELED with `details.cancellationReasons`, one per action in order (docs/transactions.md).',
      request: { body: { content: { 'application/json': { schema: transactBodySchema } }, required: true } },
      responses: {
        200: json(
          z.object({ committed: z.literal(true), versions: z.record(z.string(), z.string()) }),
          "Committed: each action's key with its version after the transaction.",
        ),
        409: json(
          z.object({
            error: z.object({
              code: z.literal('TRANSACTION_CANCELED'),
              message: z.string(),
              details: z.object({ cancellationReasons: z.array(reason) }),
            }),
          }),
          'Cancelled: nothing was applied.',
        ),
        ...errors,
      },
    },
    {
      method: 'post',
      path: '/v1/transactions/get',
      summary: `Read up to ${TRANSACTION_ACTIONS_MAX} strong keys as one snapshot`,
      request: {
        body: { content: { 'application/json': { schema: transactGetBodySchema } }, required: true },
      },
      responses: {
        200: json(
          z.object({
            items: z.array(
              z.object({
                key: z.string(),
                found: z.boolean(),
                value: z.unknown().optional(),
                version: z.string(),
              }),
            ),
          }),
          'The values all held at one instant, in request order.',
        ),
        ...errors,
      },
    },
  ];
}
