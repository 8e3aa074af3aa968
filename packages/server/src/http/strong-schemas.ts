/** Request shapes of strong keys and transactions (docs/api.md, docs/transactions.md). */
import { TRANSACTION_ACTIONS_MAX } from '@tessera/core';
import { z } from 'zod';
import { depthWithin, keySchema, VALUE_DEPTH_MAX } from './schemas.js';

const version = z.string().regex(/^\d{1,15}$/, 'a version is the decimal string a read returned');

export const conditionSchema = z.union(
  [
    z.object({ ifVersion: version }).strict(),
    z.object({ ifAbsent: z.literal(true) }).strict(),
    z.object({ ifExists: z.literal(true) }).strict(),
  ],
  { error: 'a condition is one of {"ifVersion": "<version>"}, {"ifAbsent": true} or {"ifExists": true}' },
);

const value = z
  .unknown()
  .refine((v) => v !== undefined, 'value is required (use null for an explicit null)')
  .refine((v) => depthWithin(v, VALUE_DEPTH_MAX), `value nests more than ${VALUE_DEPTH_MAX} levels deep`);

const actionSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('put'), key: keySchema, value, condition: conditionSchema.optional() }).strict(),
  z.object({ type: z.literal('delete'), key: keySchema, condition: conditionSchema.optional() }).strict(),
  z.object({ type: z.literal('conditionCheck'), key: keySchema, condition: conditionSchema }).strict(),
]);

export const transactBodySchema = z
  .object({
    clientRequestToken: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/, 'a clientRequestToken is 1 to 64 of A-Z a-z 0-9 _ -')
      .optional(),
    actions: z.array(actionSchema).min(1).max(TRANSACTION_ACTIONS_MAX),
    timeoutMs: z.int().min(1).max(120_000).optional(),
  })
  .strict();

export const transactGetBodySchema = z
  .object({
    keys: z.array(keySchema).min(1).max(TRANSACTION_ACTIONS_MAX),
    timeoutMs: z.int().min(1).max(120_000).optional(),
  })
  .strict();
