/**
 * The files of the app pack-install.test.ts installs the packed packages into: an ES module run
 * with node against a cluster, and a TypeScript file that only has to type-check, under two module
 * resolutions. They use every public entry, as the READMEs show them.
 */

/** `node app.mjs <cluster url> <data dir>`: prints "app ok" when every assert held. */
export const APP_MJS = `import assert from 'node:assert/strict';
import { createRing, partitionOf, preferenceList, TesseraError } from '@tessera/core';
import { resolvers, TesseraClient } from '@tessera/client';
import { loadRing, preferenceFor } from '@tessera/client/routing';
import { MemoryEngine, startNode } from '@tessera/server';
import { storageConformance } from '@tessera/server/conformance';
import { CLI_PATH, freePortBlock, localNodeSpecs } from '@tessera/server/local-cluster';

const [clusterUrl, dataDir] = process.argv.slice(2);

// The cluster that \`npx tessera cluster up\` started: siblings, then a merge with the union resolver.
const client = new TesseraClient({ nodes: [clusterUrl] });
const key = \`pack/cart-\${Date.now()}\`;
await client.put(key, ['apple']);
await client.put(key, ['pear']);
assert.equal((await client.get(key)).siblings.length, 2);
const { value } = await client.update(key, (items) => [...(items ?? []), 'fig'], { resolver: resolvers.union() });
assert.deepEqual([...value].sort(), ['apple', 'fig', 'pear']);
assert.equal((await client.get(key)).siblings.length, 1);
await client.close();

// The routing helpers, against the same cluster.
const view = await loadRing(async (base, path) => (await fetch(base + path)).json(), clusterUrl, undefined);
assert.equal(view.members.size, 3);
assert.equal(preferenceFor(view, key).length, 3);

// A node in this process, on the main entry.
const base = await freePortBlock(2);
const node = await startNode({
  nodeId: 'solo',
  http: \`127.0.0.1:\${base}\`,
  peer: \`127.0.0.1:\${base + 1}\`,
  dataDir,
  n: 1,
  r: 1,
  w: 1,
  logLevel: 'silent',
});
const solo = new TesseraClient({ nodes: [\`http://127.0.0.1:\${base}\`], routing: false });
await solo.put('solo-key', 'value');
assert.deepEqual((await solo.get('solo-key')).siblings, ['value']);
await solo.close();
await node.stop();
await assert.rejects(startNode({ nodeId: 'bad id!' }), (err) => TesseraError.is(err, 'BAD_REQUEST'));

// The other entries load, with no test framework installed.
assert.equal(typeof storageConformance, 'function');
assert.equal(new MemoryEngine().kind, 'memory');
assert.ok(CLI_PATH.endsWith('main.js'));
assert.equal(localNodeSpecs({ nodes: 2, dir: dataDir }).length, 2);
assert.deepEqual(preferenceList(createRing(8, 'x'), partitionOf(8, key)), ['x']);
process.stdout.write('app ok\\n');
`;

/** Type-checked only (tsc --noEmit): every entry's types resolve and fit together. */
export const CHECK_TS = `import { createRing, type Ring, TesseraError } from '@tessera/core';
import { type GetResult, resolvers, TesseraClient } from '@tessera/client';
import { loadRing, preferenceFor, type RingView } from '@tessera/client/routing';
import {
  type ConfigInput,
  LevelEngine,
  MemoryEngine,
  parseConfig,
  startNode,
  type StorageEngine,
  type TesseraNode,
} from '@tessera/server';
import { type EngineHarness, storageConformance, type TestFunctions } from '@tessera/server/conformance';
import { freePortBlock, LocalNode, type LocalNodeSpec, localNodeSpecs } from '@tessera/server/local-cluster';

const ring: Ring = createRing(8, 'a');
const settings: ConfigInput = { nodeId: 'a', http: '127.0.0.1:7000', peer: '127.0.0.1:8000', dataDir: 'data/a' };
export const config = parseConfig(settings);
export const started: Promise<TesseraNode> = startNode(settings).then(async (node) => {
  await node.stop();
  return node;
});
export const engines: StorageEngine[] = [new MemoryEngine(), new LevelEngine('data/engine')];
const specs: LocalNodeSpec[] = localNodeSpecs({ nodes: 3, dir: 'cluster' });
export const nodes = specs.map((spec) => new LocalNode(spec));
export const ports: Promise<number> = freePortBlock(6);

declare const framework: TestFunctions;
const harness = async (): Promise<EngineHarness> => ({ engine: new MemoryEngine(), cleanup: async () => {} });
storageConformance('memory', harness, framework, { randomRuns: 5 });

const client = new TesseraClient({ nodes: ['http://127.0.0.1:7000'] });
export const read: Promise<GetResult<string[]>> = client.get<string[]>('cart');
export const merged: string[] = resolvers.union<string[]>()([['a'], ['b']], []);
export const view: Promise<RingView> = loadRing(async () => ({}), 'http://127.0.0.1:7000', undefined);
export const first = (v: RingView): string | undefined => preferenceFor(v, 'cart')[0];
export const isBadRequest = (err: unknown): boolean => TesseraError.is(err, 'BAD_REQUEST');
export { ring };
`;

const compilerOptions = {
  target: 'ES2022',
  lib: ['ES2023'],
  strict: true,
  noEmit: true,
  skipLibCheck: false,
  types: ['node'],
};

export const TSCONFIG_NODE16 = JSON.stringify({
  compilerOptions: { ...compilerOptions, module: 'node16', moduleResolution: 'node16' },
  files: ['check.ts'],
});

export const TSCONFIG_BUNDLER = JSON.stringify({
  compilerOptions: { ...compilerOptions, module: 'esnext', moduleResolution: 'bundler' },
  files: ['check.ts'],
});
