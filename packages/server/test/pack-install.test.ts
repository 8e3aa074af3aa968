/**
 * The published packages work outside this repository: core, client and server are packed with
 * `pnpm pack` (what `pnpm publish` uploads), installed with plain npm into an empty directory, and
 * used there: an ES module app against `npx tessera cluster up` and against a node it starts
 * itself, and a TypeScript file checked with moduleResolution node16 (TypeScript 5.9) and bundler
 * (TypeScript 7).
 * Needs the built packages (`pnpm build`) and the npm registry for the third-party dependencies
 * (npm's cache, --prefer-offline). docs/releasing.md.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
// TypeScript 7 (the workspace's compiler) has no JavaScript API yet: the import scanner is 5.9's.
import ts from 'typescript5';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePortBlock, waitFor, waitForSettledRing } from './helpers.js';
import { APP_MJS, CHECK_TS, TSCONFIG_BUNDLER, TSCONFIG_NODE16 } from './pack-install-app.js';

const run = promisify(execFile);
const PNPM = 'pnpm@12.21.0';
const PACKAGES_DIR = fileURLToPath(new URL('../../', import.meta.url));
const PUBLISHED = ['core', 'client', 'server'] as const;
const tscOf = (pkg: string): string =>
  join(dirname(createRequire(import.meta.url).resolve(`${pkg}/package.json`)), 'bin', 'tsc');
/**
 * Apps are checked by the compiler this workspace builds with (TypeScript 7) and by the one most
 * apps still use (5.9): with each, one of the two module resolutions.
 */
const APP_CHECKS: [mode: string, typescript: string, tsc: string][] = [
  ['node16', '5.9', tscOf('typescript5')],
  ['bundler', '7', tscOf('typescript')],
];

interface Manifest {
  readonly name: string;
  readonly version: string;
  readonly license?: string;
  readonly repository?: { readonly url?: string };
  readonly engines?: { readonly node?: string };
  readonly dependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
}

interface Packed {
  readonly tarball: string;
  readonly manifest: Manifest;
  readonly files: readonly string[];
  readonly readme: string;
}

let tmp = '';
let app = '';
const packed = new Map<string, Packed>();
let cluster: ChildProcess | undefined;

/** The environment of a user's shell: nothing inherited from a package manager running this test. */
function userEnv(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
  return { ...env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };
}

async function sh(file: string, args: string[], cwd: string, timeoutMs: number): Promise<string> {
  try {
    const { stdout } = await run(file, args, {
      cwd,
      env: userEnv(),
      timeout: timeoutMs,
      maxBuffer: 16 << 20,
    });
    return stdout;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${file} ${args.join(' ')} failed: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
  }
}

async function pack(name: string, into: string): Promise<Packed> {
  const dir = join(PACKAGES_DIR, name);
  const before = new Set(await readdir(into));
  await sh('npx', ['-y', PNPM, 'pack', '--pack-destination', into], dir, 60_000);
  const tarball = (await readdir(into)).find((f) => f.endsWith('.tgz') && !before.has(f));
  if (tarball === undefined) throw new Error(`pnpm pack of ${name} made no tarball`);
  const path = join(into, tarball);
  const files = (await sh('tar', ['-tzf', path], into, 10_000)).split('\n').filter(Boolean);
  const show = (file: string): Promise<string> => sh('tar', ['-xzOf', path, `package/${file}`], into, 10_000);
  const manifest = JSON.parse(await show('package.json')) as Manifest;
  return { tarball: path, manifest, files, readme: await show('README.md') };
}

/** The module specifiers a JS file imports (comments ignored). */
function importsOf(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
}

async function jsFilesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile() && e.name.endsWith('.js')).map((e) => join(e.parentPath, e.name));
}

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'tessera-pack-'));
  const tarballs = join(tmp, 'tarballs');
  app = join(tmp, 'app');
  await mkdir(tarballs);
  await mkdir(app);
  // One at a time: each pnpm pack lists the destination before and after.
  for (const name of PUBLISHED) packed.set(name, await pack(name, tarballs));
  const dependencies = Object.fromEntries(
    [...packed.values()].map((p) => [p.manifest.name, `file:${p.tarball}`]),
  );
  const pkg = { name: 'tessera-pack-app', private: true, type: 'module', dependencies };
  await writeFile(join(app, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  await writeFile(join(app, 'app.mjs'), APP_MJS);
  await writeFile(join(app, 'check.ts'), CHECK_TS);
  await writeFile(join(app, 'tsconfig.node16.json'), TSCONFIG_NODE16);
  await writeFile(join(app, 'tsconfig.bundler.json'), TSCONFIG_BUNDLER);
  const install = ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'];
  await sh('npm', [...install, '--save-dev', '@types/node@^20.19.0'], app, 120_000);
}, 150_000);

afterAll(async () => {
  await stopCluster();
  if (tmp !== '') await rm(tmp, { recursive: true, force: true });
}, 30_000);

describe('the packed packages', () => {
  it.each(PUBLISHED)(
    '%s: versions for workspace:*, license, repository, engines, README, LICENSE',
    (name) => {
      const { manifest, files, readme } = packed.get(name)!;
      const deps = { ...manifest.dependencies, ...manifest.peerDependencies };
      expect(JSON.stringify(deps)).not.toContain('workspace:');
      for (const [dep, range] of Object.entries(deps))
        if (dep.startsWith('@tessera/')) expect(range, dep).toBe(packed.get(dep.slice(9))?.manifest.version);
      expect(Object.keys(deps)).not.toContain('vitest');
      expect(manifest.license).toBe('Apache-2.0');
      expect(manifest.repository?.url).toBe('git+https://github.com/tessera-db/tessera.git');
      expect(manifest.engines?.node).toMatch(/^>=20/);
      expect(files).toEqual(
        expect.arrayContaining(['package/LICENSE', 'package/README.md', 'package/package.json']),
      );
      expect(files.filter((f) => /\.test\.|test-cluster|in-process|conformance-/.test(f))).toEqual([]);
      expect(readme).toMatch(/ESM-only/);
      expect(readme, 'relative links leave the package').not.toMatch(/\]\(\.\.\//);
    },
  );

  it('core and server need neither vitest nor fast-check, at install or at run time', async () => {
    for (const name of ['core', 'server']) {
      const manifest = packed.get(name)!.manifest;
      expect(Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies })).not.toContain(
        'fast-check',
      );
      const dir = join(app, 'node_modules', '@tessera', name, 'dist');
      for (const file of await jsFilesUnder(dir)) {
        const testLibs = importsOf(await readFile(file, 'utf8')).filter((s) =>
          /^(vitest|fast-check)(\/|$)/.test(s),
        );
        expect(testLibs, file).toEqual([]);
      }
    }
  });
});

describe('installed with npm in an empty directory', () => {
  it('`npx tessera --help` prints npx commands and absolute doc links', async () => {
    const help = await sh('npx', ['tessera', '--help'], app, 30_000);
    expect(help).toContain('npx tessera cluster up --nodes K');
    expect(help).not.toContain('pnpm tessera');
    expect(help).toContain('https://github.com/tessera-db/tessera/blob/main/docs/api.md');
    expect(help).not.toMatch(/ docs\/\w+\.md/);
  });

  it('an ES module app talks to `npx tessera cluster up` and runs a node of its own', async () => {
    const base = await freePortBlock(6);
    const urls = [0, 1, 2].map((i) => `http://127.0.0.1:${base + i}`);
    const args = ['tessera', 'cluster', 'up', '--nodes', '3', '--dir', join(tmp, 'cluster')];
    const ports = ['--http-port', String(base), '--peer-port', String(base + 3)];
    // Its own process group, so that the cleanup reaches npx, the CLI and the three nodes.
    cluster = spawn('npx', [...args, ...ports], { cwd: app, env: userEnv(), detached: true });
    let output = '';
    cluster.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    cluster.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const isUp = (): boolean => output.includes('Cluster is up');
    const exited = (): boolean => cluster?.exitCode !== null || cluster.signalCode !== null;
    await waitFor(() => isUp() || exited(), 60_000, 'cluster up is up or has exited').catch(
      (err: unknown) => {
        throw new Error(`${String(err)}; its output:\n${output}`);
      },
    );
    if (!isUp()) throw new Error(`npx tessera cluster up exited:\n${output}`);
    await waitForSettledRing(
      urls.map((url) => ({ url })),
      3,
      30_000,
    );
    const out = await sh(process.execPath, ['app.mjs', urls[0]!, join(tmp, 'solo')], app, 60_000);
    expect(out).toContain('app ok');
    await stopCluster();
    for (const url of urls) await expect(fetch(`${url}/health`)).rejects.toThrow();
  }, 120_000);

  it.each(APP_CHECKS)(
    'tsc --noEmit accepts a TypeScript app (moduleResolution %s, TypeScript %s)',
    async (mode, _typescript, tsc) => {
      await sh(process.execPath, [tsc, '-p', `tsconfig.${mode}.json`], app, 60_000);
    },
    60_000,
  );
});

/** Stops `cluster up` and its nodes (SIGTERM to the group; SIGKILL if they outlive the deadline). */
async function stopCluster(): Promise<void> {
  const child = cluster;
  cluster = undefined;
  if (child?.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const group = -child.pid;
  const signal = (name: NodeJS.Signals): void => {
    try {
      process.kill(group, name);
    } catch {
      // the group is gone
    }
  };
  signal('SIGTERM');
  const timer = setTimeout(() => signal('SIGKILL'), 15_000);
  await exited;
  // npx may exit before the nodes: wait for the whole group.
  await waitFor(
    () => {
      try {
        process.kill(group, 0);
        return false;
      } catch {
        return true;
      }
    },
    20_000,
    'every process of `cluster up` has exited',
  ).finally(() => clearTimeout(timer));
}
