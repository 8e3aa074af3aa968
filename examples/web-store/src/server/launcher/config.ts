/** The launcher's settings, from environment variables, checked once. */
import { z } from 'zod';

const port = z.coerce.number().int().min(1).max(65_535);

const envSchema = z.object({
  PORT: port.default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  /** Comma-separated node URLs: use that cluster instead of starting one (docker-compose). */
  TESSERA_NODES: z.string().optional(),
  /** Where the local cluster keeps its data and logs. */
  TESSERA_DIR: z.string().min(1).default('.tessera/cluster'),
  TESSERA_NODE_COUNT: z.coerce.number().int().min(1).max(9).default(3),
  TESSERA_HTTP_PORT: port.default(7000),
  /** "stdout", or a file for the store's pino log; default .tessera/store.log (stdout with TESSERA_NODES). */
  STORE_LOG: z.string().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export interface LauncherConfig {
  readonly port: number;
  readonly host: string;
  readonly externalNodes: readonly string[] | undefined;
  readonly dir: string;
  readonly nodeCount: number;
  readonly httpPort: number;
  readonly log: string;
  readonly logLevel: string;
}

export function loadConfig(env: NodeJS.ProcessEnv): LauncherConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`Bad environment: ${problems}`);
  }
  const e = parsed.data;
  const externalNodes = e.TESSERA_NODES?.split(',')
    .map((u) => u.trim().replace(/\/+$/, ''))
    .filter((u) => u !== '');
  for (const url of externalNodes ?? []) {
    if (!/^https?:\/\/[^/\s]+$/.test(url))
      throw new Error(`TESSERA_NODES: "${url}" is not http://host:port.`);
  }
  const external = externalNodes !== undefined && externalNodes.length > 0 ? externalNodes : undefined;
  return {
    port: e.PORT,
    host: e.HOST,
    externalNodes: external,
    dir: e.TESSERA_DIR,
    nodeCount: e.TESSERA_NODE_COUNT,
    httpPort: e.TESSERA_HTTP_PORT,
    log: e.STORE_LOG ?? (external === undefined ? '.tessera/store.log' : 'stdout'),
    logLevel: e.LOG_LEVEL,
  };
}
