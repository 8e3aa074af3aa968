/** The options of a chaos run: `pnpm chaos --duration-s 600 --seed 7 --faults kill,partition`. */
import { parseArgs } from 'node:util';
import { CLI_PATH } from '@tessera/server/local-cluster';
import { z } from 'zod';
import type { Workload } from './history.js';
import { FAULT_KINDS, type FaultKind } from './nemesis.js';

export const WORKLOADS: readonly Workload[] = ['set', 'cart', 'lww', 'register', 'bank'];

/** The `tessera` CLI the nodes run (the package's bundled bin). */
export const SERVER_CLI = CLI_PATH;

/** Options the run cannot take: `pnpm chaos` prints the message (it says where the options are), not a stack trace. */
export class ChaosUsageError extends Error {
  override readonly name = 'ChaosUsageError';
}

const list = <T extends string>(all: readonly T[], what: string) =>
  z
    .string()
    .transform((s) =>
      s
        .split(',')
        .map((x) => x.trim())
        .filter((x) => x !== ''),
    )
    .pipe(
      z.array(
        z.string().refine((x): x is T => (all as readonly string[]).includes(x), {
          message: `unknown ${what}; use some of ${all.join(',')}`,
        }),
      ),
    )
    .transform((xs) => [...new Set(xs)] as T[]);

const wholeText = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/** A range of milliseconds, `MIN-MAX` on the command line or [min, max] in code. */
const msRange = (max: number) =>
  z.preprocess(
    (v) => (typeof v === 'string' && /^[0-9]+-[0-9]+$/.test(v) ? v.split('-').map(Number) : v),
    z
      .tuple([z.number().int(), z.number().int()], { error: 'use MIN-MAX in ms, e.g. 3000-6000' })
      .refine(
        ([min, hi]) => min >= 0 && min <= hi && hi <= max,
        `use MIN-MAX with 0 <= MIN <= MAX <= ${max}`,
      ),
  );

/** Faults the netns network cannot make. */
const NOT_WITH_NETNS: readonly FaultKind[] = ['slow'];

const optionsSchema = z
  .object({
    durationS: wholeText(5, 24 * 3600).default(60),
    seed: wholeText(0, 2 ** 32 - 1).default(() => Math.floor(Math.random() * 2 ** 32)),
    nodes: wholeText(4, 9).default(4),
    workloads: list(WORKLOADS, 'workload').default([...WORKLOADS]),
    faults: list(FAULT_KINDS, 'fault').optional(),
    outDir: z.string().min(1).default('chaos-results'),
    workersPerWorkload: wholeText(1, 32).default(3),
    thinkMs: wholeText(0, 10_000).default(30),
    keysPerEpoch: wholeText(1, 100).default(3),
    convergeTimeoutS: wholeText(5, 3600).default(60),
    clockSkewMaxMs: wholeText(0, 3_600_000).default(60_000),
    faultHoldMs: msRange(600_000).default([3_000, 6_000]),
    faultGapMs: msRange(600_000).default([500, 2_000]),
    keepData: z.boolean().default(false),
    nodeLogLevel: z.enum(['debug', 'info', 'warn', 'error']).default('warn'),
    netns: z.boolean().default(false),
  })
  .strict()
  .refine((o) => !(o.netns && o.faults?.some((f) => NOT_WITH_NETNS.includes(f))), {
    path: ['faults'],
    message: `${NOT_WITH_NETNS.join(',')} cannot run with --netns (nftables drops packets, it does not delay them)`,
  })
  .transform(({ faults, ...rest }) => ({
    ...rest,
    faults: faults ?? FAULT_KINDS.filter((f) => !rest.netns || !NOT_WITH_NETNS.includes(f)),
  }));

export type ChaosOptions = z.output<typeof optionsSchema> & {
  readonly cliPath: string;
  readonly onProgress?: (line: string) => void;
};

export type ChaosOptionsInput = z.input<typeof optionsSchema>;

/** Validates options given in code (the test) or parsed from flags. */
export function chaosOptions(
  input: ChaosOptionsInput,
  extra: { cliPath?: string; onProgress?: (line: string) => void } = {},
): ChaosOptions {
  const parsed = optionsSchema.safeParse(input);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || 'options'}: ${i.message}`);
    throw new ChaosUsageError(`Invalid chaos options: ${issues.join('; ')}. See docs/testing.md.`);
  }
  return {
    ...parsed.data,
    cliPath: extra.cliPath ?? SERVER_CLI,
    ...(extra.onProgress === undefined ? {} : { onProgress: extra.onProgress }),
  };
}

export const USAGE = `pnpm chaos [options]
  --duration-s S         seconds of faults and load (default 60)
  --seed N               seed of the fault schedule and the ops (default random; printed)
  --nodes N              members of the initial ring, 4..9 (default 4; one spare more joins and leaves)
  --workloads LIST       some of ${WORKLOADS.join(',')} (default all; register and bank
                         are on strong keys: linearizable registers, transactions)
  --faults LIST          some of ${FAULT_KINDS.join(',')} (default all)
  --out DIR              where runs are written (default chaos-results)
  --workers N            workers per workload (default 3)
  --think-ms MS          mean pause between a worker's ops (default 30)
  --keys N               keys per workload per 30 s epoch (default 3)
  --converge-timeout-s S bound on settling and converging after the heal (default 60)
  --clock-skew-max-ms MS largest clock offset of the clock fault, and the step back of
                         clock-back and of half the wipes (default 60000)
  --fault-hold-ms A-B    how long each fault is held, drawn from A..B ms (default 3000-6000;
                         isolate holds for the tombstone grace plus 2-4 s)
  --fault-gap-ms A-B     pause between faults, drawn from A..B ms (default 500-2000)
  --keep-data            keep the nodes' data dirs even when the run passes
  --node-log-level L     debug, info, warn or error: what nodes/*.log keep (default warn)
  --netns                each node in its own network namespace with its own address, TLS
                         and tokens; partitions are nftables rules (root, iproute2 and
                         nftables needed; no slow fault). See docs/testing.md
`;

/** The flags of `pnpm chaos`; an unknown flag or a missing value is a ChaosUsageError. */
function parseFlags(argv: readonly string[]) {
  try {
    return parseArgs({
      args: [...argv],
      strict: true,
      options: {
        'duration-s': { type: 'string' },
        seed: { type: 'string' },
        nodes: { type: 'string' },
        workloads: { type: 'string' },
        faults: { type: 'string' },
        out: { type: 'string' },
        workers: { type: 'string' },
        'think-ms': { type: 'string' },
        keys: { type: 'string' },
        'converge-timeout-s': { type: 'string' },
        'clock-skew-max-ms': { type: 'string' },
        'fault-hold-ms': { type: 'string' },
        'fault-gap-ms': { type: 'string' },
        'keep-data': { type: 'boolean' },
        'node-log-level': { type: 'string' },
        netns: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    const message = (err instanceof Error ? err.message : String(err)).replace(/\.$/, '');
    throw new ChaosUsageError(`${message}. See pnpm chaos --help.`);
  }
}

export function parseChaosArgs(argv: readonly string[]): ChaosOptionsInput | 'help' {
  const { values } = parseFlags(argv);
  if (values.help) return 'help';
  const input: Record<string, unknown> = {
    durationS: values['duration-s'],
    seed: values.seed,
    nodes: values.nodes,
    workloads: values.workloads,
    faults: values.faults,
    outDir: values.out,
    workersPerWorkload: values.workers,
    thinkMs: values['think-ms'],
    keysPerEpoch: values.keys,
    convergeTimeoutS: values['converge-timeout-s'],
    clockSkewMaxMs: values['clock-skew-max-ms'],
    faultHoldMs: values['fault-hold-ms'],
    faultGapMs: values['fault-gap-ms'],
    keepData: values['keep-data'],
    nodeLogLevel: values['node-log-level'],
    netns: values.netns,
  };
  return Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) as ChaosOptionsInput;
}

export type { FaultKind };
