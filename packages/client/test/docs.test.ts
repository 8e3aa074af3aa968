/**
 * The docs stay true. The client README begins with one command line, FIRST_COMMAND: this file
 * runs its `tessera cluster up` as a user would (the built CLI, in an empty directory, with no
 * flags: three nodes on ports 7000-7002, data in .tessera/cluster), checks that it prints what the
 * README shows, and runs every ```ts run block of the README and of docs/resolvers.md against that
 * cluster: bundled with the client's source and executed in a Node process of its own (its asserts
 * must hold). Any other TypeScript or JavaScript block fails, unless it is a ```ts signature (a
 * declaration, not an example). Also: every client error code is documented in both, and their
 * tables of contents link every section.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIST_CLI, freePortBlock, waitFor, waitForSettledRing } from '../../server/test/helpers.js';
import { CLIENT_ERROR_CODES } from '../src/index.js';

/** The README's first command line, exactly. */
const FIRST_COMMAND = 'npm i @tessera/client @tessera/server && npx tessera cluster up';
/** What `tessera cluster up` does without flags (packages/server/src/cli/cluster-up.ts). */
const DEFAULTS = { nodes: 3, httpPort: 7000, peerPort: 8000 } as const;
/** The node the examples name; replaced by the cluster's first node if it runs on other ports. */
const DOC_NODE = `http://127.0.0.1:${DEFAULTS.httpPort}`;
/** The directory the README's sample output was printed in. */
const DOC_CWD = '/home/you/my-app';

const path = (p: string): string => fileURLToPath(new URL(p, import.meta.url));
const README = 'packages/client/README.md';
const DOCS = {
  'docs/resolvers.md': path('../../../docs/resolvers.md'),
  [README]: path('../README.md'),
};

let cwd = '';
let cluster: ChildProcess | undefined;
let stdout = '';
let ports: { http: number; peer: number } = { http: DEFAULTS.httpPort, peer: DEFAULTS.peerPort };

beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'tessera-docs-'));
  await startDocumentedCluster();
}, 150_000);

afterAll(async () => {
  await stopCluster();
  if (cwd !== '') await rm(cwd, { recursive: true, force: true });
}, 40_000);

/** The environment of a user's shell: nothing inherited from a package manager running this test. */
function userEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
}

async function portsFree(base: number, count: number): Promise<boolean> {
  for (let port = base; port < base + count; port++) {
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (!free) return false;
  }
  return true;
}

/**
 * The `npx tessera …` half of FIRST_COMMAND, run with the built CLI in an empty directory. Port
 * flags are added only when the default ports are taken (a cluster of the developer's, another
 * run of this file), or after a start lost a port to another process.
 */
async function startDocumentedCluster(): Promise<void> {
  const start = FIRST_COMMAND.split(' && ')[1]!.split(' ');
  expect(start.slice(0, 2)).toEqual(['npx', 'tessera']);
  const n = DEFAULTS.nodes;
  for (let attempt = 1; ; attempt++) {
    const defaults =
      attempt === 1 && (await portsFree(DEFAULTS.httpPort, n)) && (await portsFree(DEFAULTS.peerPort, n));
    if (defaults) ports = { http: DEFAULTS.httpPort, peer: DEFAULTS.peerPort };
    else {
      const base = await freePortBlock(2 * n);
      ports = { http: base, peer: base + n };
    }
    const flags = defaults ? [] : ['--http-port', String(ports.http), '--peer-port', String(ports.peer)];
    stdout = '';
    let stderr = '';
    // Its own process group, so that the cleanup reaches the CLI and its nodes.
    const child = spawn(process.execPath, [DIST_CLI, ...start.slice(2), ...flags], {
      cwd,
      env: userEnv(),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    cluster = child;
    child.stdout.on('data', (d) => {
      stdout += String(d);
    });
    child.stderr.on('data', (d) => {
      stderr += String(d);
    });
    const up = (): boolean => stdout.includes('Cluster is up');
    await waitFor(() => up() || child.exitCode !== null || child.signalCode !== null, 60_000, 'cluster up');
    if (up()) break;
    await stopCluster();
    const said = `${stdout}${stderr}`;
    if (attempt >= 3 || !said.includes('EADDRINUSE')) throw new Error(`tessera cluster up failed:\n${said}`);
    await rm(join(cwd, '.tessera'), { recursive: true, force: true });
  }
  const urls = Array.from({ length: n }, (_, i) => ({ url: `http://127.0.0.1:${ports.http + i}` }));
  await waitForSettledRing(urls, n, 30_000);
}

/** SIGTERM to the group of `cluster up` (which stops its nodes), SIGKILL if it outlives 15 s. */
async function stopCluster(): Promise<void> {
  const child = cluster;
  cluster = undefined;
  if (child?.pid === undefined) return;
  const group = -child.pid;
  const signal = (name: NodeJS.Signals): void => {
    try {
      process.kill(group, name);
    } catch {
      // the group is gone
    }
  };
  const alive = (): boolean => {
    try {
      process.kill(group, 0);
      return true;
    } catch {
      return false;
    }
  };
  signal('SIGTERM');
  const timer = setTimeout(() => signal('SIGKILL'), 15_000);
  await waitFor(() => !alive(), 20_000, 'every process of `cluster up` has exited').finally(() =>
    clearTimeout(timer),
  );
}

interface Block {
  readonly info: string;
  readonly code: string;
  readonly line: number;
}

function fencedBlocks(text: string): Block[] {
  return [...text.matchAll(/^```(.*)\n([\s\S]*?)^```$/gm)].map((m) => ({
    info: m[1]!.trim(),
    code: m[2]!,
    line: text.slice(0, m.index).split('\n').length,
  }));
}

const CODE_FENCE = /^(ts|tsx|typescript|js|jsx|javascript|mjs|cjs)\b/;

/** GitHub's anchor of a heading. */
function slug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Bundles an example with the client's source and runs it as an ES module in a Node process. */
async function runExample(code: string): Promise<void> {
  const built = await build({
    stdin: {
      contents: code.replaceAll(DOC_NODE, `http://127.0.0.1:${ports.http}`),
      loader: 'ts',
      resolveDir: path('..'),
    },
    bundle: true,
    format: 'esm',
    platform: 'node',
    write: false,
    logLevel: 'silent',
    alias: {
      '@tessera/client/testing': path('../src/testing/index.ts'),
      '@tessera/client/automerge': path('../src/adapters/automerge.ts'),
      '@tessera/client/routing': path('../src/routing/index.ts'),
      '@tessera/client': path('../src/index.ts'),
      '@tessera/core': path('../../core/src/index.ts'),
    },
    // Loaded by Node from the client's node_modules, as installed: it finds its WebAssembly file
    // next to its own code, which a bundle would move.
    external: ['@automerge/automerge'],
  });
  // A Node process of its own, as an application would run it (in the client's folder, so that
  // its external imports resolve from there).
  const child = spawn(process.execPath, ['--input-type=module'], {
    stdio: ['pipe', 'pipe', 'pipe'],
    cwd: path('..'),
  });
  let output = '';
  child.stdout.on('data', (d) => {
    output += String(d);
  });
  child.stderr.on('data', (d) => {
    output += String(d);
  });
  child.stdin.end(built.outputFiles[0]!.text);
  const exitCode = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  expect(exitCode, output).toBe(0);
}

describe(README, () => {
  const blocks = fencedBlocks(readFileSync(DOCS[README], 'utf8'));

  it('starts with the one command line that installs and starts a cluster', () => {
    expect(blocks[0]).toMatchObject({ info: 'sh', code: `${FIRST_COMMAND}\n` });
  });

  it('shows what that command prints', () => {
    const shown = blocks[1]!;
    expect(shown.info).toBe('text');
    const portOf = new Map<number, number>();
    for (let i = 0; i < DEFAULTS.nodes; i++) {
      portOf.set(ports.http + i, DEFAULTS.httpPort + i);
      portOf.set(ports.peer + i, DEFAULTS.peerPort + i);
    }
    // As printed in DOC_CWD on the default ports; process ids vary.
    const pids = (s: string): string => s.replace(/pid \d+/g, 'pid N');
    const printed = pids(
      stdout
        .replaceAll(realpathSync(cwd), DOC_CWD)
        .replaceAll(cwd, DOC_CWD)
        .replace(/:(\d+)\b/g, (_all, port: string) => `:${portOf.get(Number(port)) ?? port}`),
    );
    // A line "…" in the README stands for any lines.
    const pattern = shown.code
      .trimEnd()
      .split('\n')
      .map((line) => (line === '…' ? '[\\s\\S]*?' : pids(line).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('\n');
    expect(printed).toMatch(new RegExp(`^${pattern}\\n?$`));
  });
});

describe.each(Object.entries(DOCS))('%s', (_name, file) => {
  const text = readFileSync(file, 'utf8');
  const blocks = fencedBlocks(text);
  const runnable = blocks.filter((b) => b.info === 'ts run');

  it('has runnable examples', () => {
    expect(runnable.length).toBeGreaterThan(0);
  });

  it('runs every TypeScript block but type signatures', () => {
    const other = blocks.filter(
      (b) => CODE_FENCE.test(b.info) && b.info !== 'ts run' && b.info !== 'ts signature',
    );
    expect(
      other.map((b) => `line ${b.line}: \`\`\`${b.info}`),
      'an example is ```ts run; a declaration that cannot run is ```ts signature',
    ).toEqual([]);
    for (const b of blocks.filter((b) => b.info === 'ts signature'))
      expect(b.code, `line ${b.line}: an example, not a signature`).not.toMatch(/^import |\bawait\b/m);
  });

  it.each(runnable.map((b) => [b.line, b.code] as const))(
    'the example at line %i runs and its asserts hold',
    async (_line, code) => {
      await runExample(code);
    },
  );

  it('documents every client error code', () => {
    for (const code of Object.keys(CLIENT_ERROR_CODES)) expect(text, code).toContain(`\`${code}\``);
  });

  it('links every section from its table of contents, and every link lands on a section', () => {
    const prose = text.replace(/^```[\s\S]*?^```$/gm, '');
    const headings = [...prose.matchAll(/^#{2,3} (.+)$/gm)].map((m) => slug(m[1]!));
    const toc = prose.slice(0, prose.search(/^## /m));
    const linked = [...toc.matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1]!);
    expect(headings.filter((h) => !linked.includes(h))).toEqual([]);
    const anchors = [...prose.matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1]!);
    expect(anchors.filter((a) => !headings.includes(a))).toEqual([]);
  });
});
