/**
 * The shapes of the HTTP API's answers, for the OpenAPI document (openapi.ts): they only document,
 * the routes render the answers. Also the `json` and `errors` helpers both route lists use.
 */
import { z } from 'zod';

export const keyParams = z.object({
  key: z.string().meta({ description: 'The key, percent-encoded: 1 to 1024 bytes of UTF-8.' }),
});

export const errorBody = z
  .object({
    error: z.object({
      code: z.string().meta({ description: 'A stable code from docs/errors.md.' }),
      message: z.string(),
      details: z.record(z.string(), z.unknown()).optional(),
    }),
  })
  .meta({ id: 'Error' });

export const sibling = z.object({
  value: z.unknown().meta({ description: 'The JSON value as it was written.' }),
  lastModified: z.iso.datetime().meta({ description: "The coordinator's clock at the write." }),
});

export const siblingsBody = z
  .object({
    key: z.string(),
    context: z.string().optional().meta({
      description:
        'Opaque: send it back with the write that resolves these siblings. Absent only in a `?missing=ok` answer for a key never written.',
    }),
    siblings: z.array(sibling),
  })
  .meta({ id: 'Siblings' });

export const notFoundBody = errorBody.extend({
  context: z.string().optional().meta({ description: 'Present when the key was deleted (its tombstone).' }),
});

export const writeAck = z
  .union([
    z.object({
      node: z.string(),
      as: z.literal('replica').meta({ description: "One of the key's N replicas stored it in its data." }),
    }),
    z.object({
      node: z.string(),
      as: z.literal('hint').meta({
        description: 'A fallback holds it as a hint for a replica that was unreachable (sloppy quorum).',
      }),
      for: z.string().meta({ description: 'The replica the hint is for; the fallback hands it over later.' }),
    }),
  ])
  .meta({ id: 'WriteAck' });

export const writeReceipt = z
  .object({
    acks: z.array(writeAck).meta({
      description:
        'The nodes that had acknowledged when the coordinator answered (itself included once its own copy was on disk), replicas first, in preference-list order. Acks arriving after the answer are not listed.',
    }),
    replicas: z
      .int()
      .meta({ description: "How many of the key's N replicas hold the write (acks as `replica`)." }),
    n: z.int().meta({ description: 'Replicas per key.' }),
    w: z.int().meta({ description: 'The write quorum the write waited for.' }),
  })
  .meta({
    id: 'WriteReceipt',
    description:
      'How the write was stored, as its coordinator knew when it answered: `replicas` below `n` means some replicas do not hold it yet (hinted handoff and anti-entropy bring it to them).',
  });

export const contextBody = z.object({ context: z.string(), stored: writeReceipt.optional() }).meta({
  id: 'WriteAnswer',
  description:
    'The context of the version written and how it was stored (`stored`: absent only when the write was forwarded to a node of an older version, which does not report it).',
});

export const deleteAnswer = z.union([
  contextBody,
  z.object({ found: z.literal(false) }).meta({ description: '`?missing=ok`: the key had no live value.' }),
]);

export const listPageBody = z
  .object({
    keys: z
      .array(z.string())
      .meta({ description: 'Live keys with the prefix, in partition order (not key order).' }),
    cursor: z.string().nullable().meta({
      description: 'Opaque: pass it as `cursor` for the next page; null when the listing is complete.',
    }),
  })
  .meta({ id: 'KeyPage' });

export const batchResult = z
  .union([
    z.object({
      key: z.string(),
      context: z.string().optional().meta({ description: 'Absent only for a key never written.' }),
      siblings: z.array(sibling).meta({ description: 'Empty when the key has no live value.' }),
    }),
    z.object({ key: z.string(), error: errorBody.shape.error }),
  ])
  .meta({ id: 'BatchResult' });

export const batchBody = z
  .object({ results: z.array(batchResult).meta({ description: 'One per key given, in request order.' }) })
  .meta({ id: 'BatchGetResults' });

export const memberStatus = z.object({
  nodeId: z.string(),
  http: z.string(),
  peer: z.string(),
  status: z.enum(['up', 'down', 'joining', 'leaving', 'retiring']),
  partitions: z.int(),
});

export const statusBody = z
  .looseObject({
    nodeId: z.string(),
    pid: z.int(),
    clusterId: z.string(),
    n: z.int(),
    r: z.int(),
    w: z.int(),
    partitionCount: z.int(),
    ringVersion: z.int(),
    storage: z.string(),
    durability: z.string(),
    members: z.array(memberStatus),
    departure: z
      .object({
        phase: z.enum(['leaving', 'retiring', 'left']),
        partitionsHeld: z.int().nullable(),
        keysHeld: z.int().nullable(),
        keysHandedOver: z.int(),
        hintsHeld: z.int(),
        progress: z.number(),
      })
      .nullable()
      .meta({ description: 'This node on its way out of the cluster after a leave; null when not leaving.' }),
    stored: z
      .object({
        keys: z.int(),
        tombstones: z.int(),
        bytes: z.int(),
        partitionsCounted: z.int(),
        partitionCount: z.int(),
      })
      .meta({
        description: 'What this node stores, over the partitions counted so far (all, soon after a start).',
      }),
    hintsHeld: z
      .object({ count: z.int(), bytes: z.int() })
      .meta({ description: 'Hints held for other nodes.' }),
    stateCache: z
      .object({
        hitRatio: z.number().nullable(),
        hits: z.int(),
        misses: z.int(),
        evictions: z.int(),
        entries: z.int(),
        bytes: z.int(),
        bytesMax: z.int(),
      })
      .meta({
        description:
          "The cache of recently read and written keys' states (stateCacheBytesMax); hitRatio is null before the first read; evictions counts states dropped to stay within the bound.",
      }),
    keyFilter: z
      .object({
        answering: z.boolean(),
        saturated: z.boolean(),
        keys: z.int(),
        bytes: z.int(),
        bytesMax: z.int(),
        readsSkipped: z.int(),
      })
      .meta({
        description:
          'The filter of the keys this node stores (keyFilterBytesMax): reads of keys it never stored skip the engine while answering is true.',
      }),
    drain: z
      .looseObject({ phase: z.enum(['serving', 'draining', 'drained', 'timed-out']) })
      .meta({ description: 'Whether this node drains (POST /v1/admin/drain).' }),
    fenced: z
      .object({
        reason: z.enum(['removed', 'left', 'superseded']),
        message: z.string(),
        learnedFrom: z.string(),
      })
      .nullable()
      .meta({
        description:
          "Why this node's data dir serves nothing (identity fencing: removed, left, or replaced under its id); null when it serves.",
      }),
  })
  .meta({ id: 'Status', description: "This node's view of its cluster; every field is in docs/api.md." });

export const repairBody = z
  .looseObject({
    nodeId: z.string(),
    hints: z.record(z.string(), z.unknown()),
    handoff: z.record(z.string(), z.unknown()),
    admission: z.record(z.string(), z.unknown()),
    antiEntropy: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'RepairStatus' });

export const faultsBody = z.object({
  nodeId: z.string(),
  blockPeers: z.array(z.string()),
  crashMidWrite: z.boolean(),
  crashMidTransaction: z.enum(['after-intents', 'after-commit']).nullable(),
});

export const json = (schema: z.ZodType, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});

export const errors = { default: json(errorBody, 'An error; its code and status are in docs/errors.md.') };
