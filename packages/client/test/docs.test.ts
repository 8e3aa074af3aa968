/**
 * The docs stay true: every ```ts run block of docs/resolvers.md and the client README is bundled
 * against the client's source and executed (its asserts must hold), with http://127.0.0.1:7000
 * pointing at a real one-node cluster; and every client error code is documented in both.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type TestCluster } from '../../server/test/helpers.js';
import { CLIENT_ERROR_CODES } from '../src/index.js';

const DOC_NODE = 'http://127.0.0.1:7000';
let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startCluster(1, ['--n', '1', '--r', '1', '--w', '1']);
}, 90_000);

afterAll(async () => {
  await cluster?.destroy();
});

const path = (p: string): string => fileURLToPath(new URL(p, import.meta.url));
const DOCS = {
  'docs/resolvers.md': path('../../../docs/resolvers.md'),
  'packages/client/README.md': path('../README.md'),
};

function runnableBlocks(text: string): string[] {
  return [...text.matchAll(/```ts run\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

/** Bundles an example with the client's source and runs it as an ES module in a Node process. */
async function runExample(code: string): Promise<void> {
  const built = await build({
    stdin: {
      contents: code.replaceAll(DOC_NODE, cluster.nodes[0]!.url),
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

describe.each(Object.entries(DOCS))('%s', (_name, file) => {
  const text = readFileSync(file, 'utf8');
  const blocks = runnableBlocks(text);

  it('has runnable examples', () => {
    expect(blocks.length).toBeGreaterThan(0);
  });

  it.each(blocks.map((code, i) => [i + 1, code] as const))(
    'example %i runs and its asserts hold',
    async (_i, code) => {
      await runExample(code);
    },
  );

  it('documents every client error code', () => {
    for (const code of Object.keys(CLIENT_ERROR_CODES)) expect(text, code).toContain(`\`${code}\``);
  });
});
