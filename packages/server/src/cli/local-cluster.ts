/**
 * Node processes on this machine: used by `tessera cluster up` and by the black-box tests.
 * Each node is a separate `tessera start` process with its own data dir and log file.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { httpCall } from './http-call.js';

export interface LocalNodeSpec {
  readonly nodeId: string;
  readonly host: string;
  readonly httpPort: number;
  readonly peerPort: number;
  readonly dataDir: string;
  readonly seeds: readonly string[];
  readonly extraArgs?: readonly string[];
  /** The node serves HTTPS with a certificate this CA signed (the readiness probe trusts it). */
  readonly caFile?: string;
  /**
   * A command the node runs under, which must exec it in place (so a kill reaches the node), e.g.
   * `['ip', 'netns', 'exec', 'ns1']` to run it in a network namespace.
   */
  readonly wrapper?: readonly string[];
}

export interface LocalClusterOptions {
  readonly nodes: number;
  readonly dir: string;
  readonly host?: string;
  readonly httpPort?: number;
  readonly peerPort?: number;
  readonly extraArgs?: readonly string[];
  /** Per node: extra arguments (e.g. its own certificate) and the CA for an HTTPS readiness probe. */
  readonly perNode?: (nodeId: string) => { readonly args: readonly string[]; readonly caFile?: string };
}

const READY_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 10_000;

/**
 * The `tessera` command (the package's `bin`, the CLI bundled by `pnpm build`): `dist/bin/main.js`,
 * reached the same way from `dist/cli/` (this file compiled) and from `dist/bin/` (this file bundled).
 */
export const CLI_PATH = fileURLToPath(new URL('../bin/main.js', import.meta.url));

export class LocalNode {
  private child: ChildProcess | undefined;
  private log: WriteStream | undefined;
  private exited: Promise<number | null> = Promise.resolve(null);

  constructor(
    readonly spec: LocalNodeSpec,
    private readonly cliPath: string = CLI_PATH,
  ) {}

  get url(): string {
    return `${this.spec.caFile === undefined ? 'http' : 'https'}://${this.spec.host}:${this.spec.httpPort}`;
  }

  get peerAddress(): string {
    return `${this.spec.host}:${this.spec.peerPort}`;
  }

  get logPath(): string {
    return `${this.spec.dataDir}.log`;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** The exit code once the process ended on its own (null if killed by a signal), else undefined. */
  get exitCode(): number | null | undefined {
    return this.running ? undefined : this.child?.exitCode;
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Starts the process and waits until its HTTP API answers /health. */
  async start(): Promise<void> {
    await mkdir(this.spec.dataDir, { recursive: true });
    const { spec } = this;
    const args = [
      this.cliPath,
      'start',
      '--node-id',
      spec.nodeId,
      '--http',
      `${spec.host}:${spec.httpPort}`,
      '--peer',
      `${spec.host}:${spec.peerPort}`,
      '--data-dir',
      spec.dataDir,
      ...spec.seeds.flatMap((s) => ['--seed', s]),
      ...(spec.extraArgs ?? []),
    ];
    this.log = createWriteStream(this.logPath, { flags: 'a' });
    const [command = process.execPath, ...prefix] = [...(spec.wrapper ?? []), process.execPath];
    const child = spawn(command, [...prefix, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.pipe(this.log, { end: false });
    child.stderr?.pipe(this.log, { end: false });
    this.child = child;
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    await this.waitReady();
  }

  private async waitReady(): Promise<void> {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    let exitedEarly = false;
    void this.exited.then(() => {
      exitedEarly = true;
    });
    while (Date.now() < deadline) {
      if (exitedEarly)
        throw new Error(`node ${this.spec.nodeId} exited while starting:\n${await this.tail()}`);
      try {
        const ca = this.spec.caFile === undefined ? undefined : await readFile(this.spec.caFile);
        const res = await httpCall(`${this.url}/health`, { ca, timeoutMs: 1_000 });
        if (res.status === 200) return;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`node ${this.spec.nodeId} not ready after ${READY_TIMEOUT_MS} ms:\n${await this.tail()}`);
  }

  /** The last lines of the node's log, for error messages. */
  async tail(lines = 20): Promise<string> {
    const text = await readFile(this.logPath, 'utf8').catch(() => '');
    return text.trimEnd().split('\n').slice(-lines).join('\n');
  }

  /** kill -9: no chance to flush or close anything. */
  async kill(): Promise<void> {
    if (!this.running) return;
    this.child?.kill('SIGKILL');
    await this.exited;
    this.closeLog();
  }

  /** SIGTERM, then SIGKILL if it does not exit in time. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.child?.kill('SIGTERM');
    const timer = setTimeout(() => this.child?.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await this.exited;
    clearTimeout(timer);
    this.closeLog();
  }

  private closeLog(): void {
    this.log?.end();
    this.log = undefined;
  }
}

export function localNodeSpecs(options: LocalClusterOptions): LocalNodeSpec[] {
  const host = options.host ?? '127.0.0.1';
  const httpPort = options.httpPort ?? 7000;
  const peerPort = options.peerPort ?? httpPort + 1000;
  const seed = `${host}:${peerPort}`;
  return Array.from({ length: options.nodes }, (_, i) => ({
    nodeId: `n${i}`,
    host,
    httpPort: httpPort + i,
    peerPort: peerPort + i,
    dataDir: join(options.dir, `n${i}`),
    seeds: i === 0 ? [] : [seed],
    ...nodeExtras(`n${i}`, options),
  }));
}

function nodeExtras(
  nodeId: string,
  options: LocalClusterOptions,
): Pick<LocalNodeSpec, 'extraArgs' | 'caFile'> {
  const own = options.perNode?.(nodeId);
  const extraArgs = [...(options.extraArgs ?? []), ...(own?.args ?? [])];
  return {
    ...(extraArgs.length === 0 ? {} : { extraArgs }),
    ...(own?.caFile === undefined ? {} : { caFile: own.caFile }),
  };
}
