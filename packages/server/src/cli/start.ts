/** `tessera start`: one node in the foreground, pino JSON logs on stdout. */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { TesseraError } from '@tessera/core';
import { type ConfigInput, parseConfig } from '../config.js';
import { createLogger } from '../logger.js';
import { readSecrets } from '../security/secrets.js';
import { startServer } from '../server.js';
import { securityFlags } from './security-flags.js';

/** The flags of `tessera start` (exported so docker-compose.yml can be checked against them). */
export const START_OPTIONS = {
  'node-id': { type: 'string' },
  http: { type: 'string' },
  peer: { type: 'string' },
  // The addresses put in this node's member record, if not the bind addresses (never 0.0.0.0).
  'advertise-http': { type: 'string' },
  'advertise-peer': { type: 'string' },
  'data-dir': { type: 'string' },
  seed: { type: 'string', multiple: true },
  n: { type: 'string' },
  r: { type: 'string' },
  w: { type: 'string' },
  partitions: { type: 'string' },
  storage: { type: 'string' },
  durability: { type: 'string' },
  // The weakest --durability members may run with, recorded when the cluster is created.
  'durability-floor': { type: 'string' },
  'value-bytes-max': { type: 'string' },
  'siblings-max': { type: 'string' },
  config: { type: 'string' },
  'log-level': { type: 'string' },
  'fault-injection': { type: 'boolean' },
  // Browser pages allowed to call the API (CORS): an origin, a comma-separated list, or * (development).
  'cors-origin': { type: 'string', multiple: true },
  // Strong namespaces (docs/transactions.md): a name, or a comma-separated list; every node the same.
  strong: { type: 'string', multiple: true },
  // Security (docs/security.md). Secrets come from files or TESSERA_* variables, never from flags.
  'http-tls-cert': { type: 'string' },
  'http-tls-key': { type: 'string' },
  'http-tls-ca': { type: 'string' },
  'peer-tls-cert': { type: 'string' },
  'peer-tls-key': { type: 'string' },
  'peer-tls-ca': { type: 'string' },
  'token-file': { type: 'string' },
  'admin-token-file': { type: 'string' },
  'cluster-secret-file': { type: 'string' },
  insecure: { type: 'boolean' },
} as const;

export async function runStart(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: START_OPTIONS, strict: true, allowPositionals: false });
  const fromFile = values.config === undefined ? {} : await readConfigFile(values.config);
  const flags: Partial<Record<keyof ConfigInput, unknown>> = {
    nodeId: values['node-id'],
    http: values.http,
    peer: values.peer,
    advertiseHttp: values['advertise-http'],
    advertisePeer: values['advertise-peer'],
    dataDir: values['data-dir'],
    seeds: values.seed,
    n: num(values.n),
    r: num(values.r),
    w: num(values.w),
    partitions: num(values.partitions),
    storage: values.storage,
    durability: values.durability,
    durabilityFloor: values['durability-floor'],
    valueBytesMax: num(values['value-bytes-max']),
    siblingsMax: num(values['siblings-max']),
    logLevel: values['log-level'],
    faultInjection: values['fault-injection'],
    corsOrigins: corsOrigins(values['cors-origin']),
    strongNamespaces: corsOrigins(values.strong),
    ...securityFlags(values),
    ...(await readSecrets(
      {
        token: values['token-file'],
        adminToken: values['admin-token-file'],
        clusterSecret: values['cluster-secret-file'],
      },
      process.env,
    )),
  };
  const config = parseConfig({ ...fromFile, ...definedOnly(flags) });
  const log = createLogger({ level: config.logLevel, nodeId: config.nodeId });
  let stopOn: (signal: string) => void = () => {};
  // A drained node (tessera admin drain) stops as on SIGTERM, and exits 0.
  const node = await startServer(config, log, { onDrained: () => stopOn('drained') });
  await new Promise<void>((resolve) => {
    let stopping = false;
    const stop = (signal: string): void => {
      if (stopping) return;
      stopping = true;
      log.info({ signal }, 'stopping on signal');
      node.stop().finally(resolve);
    };
    stopOn = stop;
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
  return 0;
}

async function readConfigFile(path: string): Promise<Record<string, unknown>> {
  try {
    const parsed: unknown = JSON.parse(await readFile(path, 'utf8'));
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new Error('not a JSON object');
    return parsed as Record<string, unknown>;
  } catch (err) {
    throw new TesseraError(
      'BAD_REQUEST',
      `Cannot read --config ${path}: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

function num(value: string | undefined): number | string | undefined {
  if (value === undefined) return undefined;
  return /^\d+$/.test(value) ? Number(value) : value;
}

/** `--flag a --flag b,c` as one list (--cors-origin, --strong); undefined without the flag. */
export function corsOrigins(values: readonly string[] | undefined): string[] | undefined {
  if (values === undefined) return undefined;
  return values
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

function definedOnly<T extends object>(obj: T): Partial<T> {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined)) as Partial<T>;
}
