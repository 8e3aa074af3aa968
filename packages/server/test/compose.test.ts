/**
 * docker-compose.yml and the Dockerfile cannot run here (no Docker engine), so check that they
 * agree with the CLI: every command parses with `tessera start`'s own flags and config schema,
 * published ports match the HTTP ports, seeds name another service's advertised peer address,
 * nothing advertises a wildcard address; the image's entry point script is run with a stand-in CLI.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { START_OPTIONS } from '../src/cli/start.js';
import { type Config, isWildcard, parseConfig } from '../src/config.js';
import { exposure } from '../src/security/exposure.js';

const root = new URL('../../../', import.meta.url);

interface Service {
  command?: string[];
  entrypoint?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  build?: string | { context: string; target?: string };
  restart?: string;
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
}

const compose = parse(readFileSync(new URL('docker-compose.yml', root), 'utf8')) as {
  services: Record<string, Service>;
};
const dockerfile = readFileSync(new URL('Dockerfile', root), 'utf8');
const pkg = JSON.parse(readFileSync(new URL('packages/server/package.json', root), 'utf8')) as {
  bin: Record<string, string>;
};

const port = (hostPort: string): number => Number(hostPort.slice(hostPort.lastIndexOf(':') + 1));
const host = (hostPort: string): string => hostPort.slice(0, hostPort.lastIndexOf(':'));

/** `tessera start`'s flags as the CLI reads them, into the config it would run with. */
function startConfig(args: string[]): Config {
  const { values } = parseArgs({ args, options: START_OPTIONS, strict: true });
  return parseConfig({
    nodeId: values['node-id'],
    http: values.http,
    peer: values.peer,
    advertiseHttp: values['advertise-http'],
    advertisePeer: values['advertise-peer'],
    dataDir: values['data-dir'],
    seeds: values.seed ?? [],
    faultInjection: values['fault-injection'],
    insecure: values.insecure,
  });
}

describe('docker-compose.yml', () => {
  const all = Object.entries(compose.services);
  const services = all.filter(([, s]) => s.command?.[0] === 'start') as [
    string,
    Service & { command: string[] },
  ][];
  const configs = new Map(services.map(([name, s]) => [name, startConfig(s.command.slice(1))]));

  it('has three nodes built from the Dockerfile', () => {
    expect(services.map(([name]) => name)).toEqual(['n0', 'n1', 'n2']);
    for (const [, s] of services) expect(s.build).toBe('.');
  });

  it.each(services)('%s runs `tessera start` with flags and settings the CLI accepts', (name, service) => {
    expect(service.command[0]).toBe('start');
    const config = configs.get(name)!;
    expect(config.nodeId).toBe(name);
    // Bound beyond loopback without tokens, a node starts only with --insecure (docs/security.md).
    expect(exposure(config).refusals.length === 0 || config.insecure).toBe(true);
    const published = (service.ports ?? []).map((p) => Number(p.split(':')[1]));
    expect(published).toEqual([port(config.http)]);
    expect(dockerfile).toMatch(new RegExp(`EXPOSE[^\\n]*\\b${port(config.http)}\\b`));
    expect(dockerfile).toMatch(new RegExp(`EXPOSE[^\\n]*\\b${port(config.peer)}\\b`));
    for (const seed of config.seeds) {
      expect([...configs.entries()].some(([other, c]) => other !== name && c.advertisePeer === seed)).toBe(
        true,
      );
    }
  });

  it.each(services)('%s binds its container’s interfaces and advertises its service name', (name) => {
    const config = configs.get(name)!;
    expect(config.advertiseHttp).toBe(`${name}:${port(config.http)}`);
    expect(config.advertisePeer).toBe(`${name}:${port(config.peer)}`);
    expect(isWildcard(config.http) && isWildcard(config.peer)).toBe(true);
  });

  it.each(services)('%s has a healthcheck on /health, a restart policy and no fault injection', (name, s) => {
    expect(configs.get(name)!.faultInjection).toBe(false);
    expect(s.command).not.toContain('--fault-injection');
    expect(s.restart).toBe('unless-stopped');
    const test = s.healthcheck!.test;
    expect(test.slice(0, 3)).toEqual(['CMD', 'node', '-e']);
    expect(test[3]).toContain(`http://127.0.0.1:${port(configs.get(name)!.http)}/health`);
    expect(() => new Function(test[3]!)).not.toThrow();
  });

  it('starts the joining nodes once their seed is healthy', () => {
    for (const [name, s] of services.filter(([, s]) => s.command.includes('--seed'))) {
      const seedService = host(configs.get(name)!.seeds[0]!);
      expect(s.depends_on).toEqual({ [seedService]: { condition: 'service_healthy' } });
    }
  });

  it('runs the demo store, the Dockerfile’s store stage, against the three nodes once healthy', () => {
    const store = compose.services.store!;
    expect(store.build).toEqual({ context: '.', target: 'store' });
    expect(dockerfile).toMatch(/^FROM node:20\S* AS store$/m);
    const nodes = store.environment!.TESSERA_NODES!.split(',');
    expect(nodes).toEqual(services.map(([name]) => `http://${configs.get(name)!.advertiseHttp}`));
    expect(store.ports).toEqual([`${store.environment!.PORT}:${store.environment!.PORT}`]);
    expect(store.restart).toBe('unless-stopped');
    expect(Object.keys(store.depends_on ?? {})).toEqual(['n0', 'n1', 'n2']);
  });

  it('declares the same strong namespaces on every node, the store’s stock and orders among them', () => {
    const lists = services.map(([, s]) =>
      (parseArgs({ args: s.command.slice(1), options: START_OPTIONS }).values.strong ?? []).flatMap((v) =>
        v.split(','),
      ),
    );
    expect(new Set(lists.map((l) => l.join(','))).size).toBe(1);
    expect(lists[0]).toEqual(expect.arrayContaining(['stock', 'orders']));
  });

  it('seeds every node but one, so they form one cluster', () => {
    const seedless = services.filter(([, s]) => !s.command.includes('--seed'));
    expect(seedless.map(([name]) => name)).toEqual(['n0']);
  });
});

describe('Dockerfile', () => {
  const stages = dockerfile.split(/^(?=FROM )/m).filter((s) => s.startsWith('FROM '));
  const runtime = stages.at(-1)!;

  it('builds in one stage with pnpm and runs from another with production dependencies only', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(stages[0]).toMatch(/^FROM node:20\S* AS build$/m);
    expect(stages[0]).toContain('npx -y pnpm@12.21.0 install --frozen-lockfile');
    expect(stages[0]).toContain('--filter @tessera/server deploy --prod');
    expect(runtime).toMatch(/^FROM node:20\S* AS node$/m);
    expect(runtime).toContain('COPY --from=build /out/server /app');
    // No sources and no workspace in the runtime stage: only what `pnpm deploy` left.
    expect(runtime).not.toMatch(/^COPY \. /m);
    expect(runtime).not.toMatch(/pnpm (install|build)/);
  });

  it('runs as a non-root user, with /data as the volume', () => {
    const user = runtime.match(/^USER (\S+)$/m)?.[1];
    expect(user).toBeDefined();
    expect(user!.split(':')[0]).not.toMatch(/^(0|root)$/);
    expect(runtime).toMatch(/^VOLUME \["\/data"\]$/m);
  });

  it('has a HEALTHCHECK on /health with node, valid JavaScript, no curl', () => {
    const check = runtime.match(/^HEALTHCHECK .*\\\n\s+CMD (\[.*\])$/m);
    expect(check).not.toBeNull();
    const cmd = JSON.parse(check![1]!) as string[];
    expect(cmd.slice(0, 2)).toEqual(['node', '-e']);
    expect(cmd[2]).toContain('http://127.0.0.1:7000/health');
    expect(() => new Function(cmd[2]!)).not.toThrow();
    expect(dockerfile).not.toContain('curl');
  });

  it('runs the package bin, the same entry point as `tessera`, through the entry point script', () => {
    expect(pkg.bin.tessera).toBe('./dist/bin/main.js');
    expect(runtime).toContain('ENTRYPOINT ["/usr/local/bin/tessera-entrypoint"]');
    expect(runtime).toContain('COPY deploy/docker/entrypoint.sh /usr/local/bin/tessera-entrypoint');
    expect(existsSync(new URL('packages/server/dist/bin/main.js', root))).toBe(true);
  });
});

describe('deploy/docker/entrypoint.sh', () => {
  const script = fileURLToPath(new URL('deploy/docker/entrypoint.sh', root));
  // A stand-in CLI that prints the arguments it was given.
  const echo = fileURLToPath(new URL('test/fixtures/print-argv.mjs', new URL('../', import.meta.url)));
  const run = async (args: string[], env: Record<string, string>): Promise<string[]> => {
    const { stdout } = await promisify(execFile)('sh', [script, ...args], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', TESSERA_CLI: echo, ...env },
    });
    return JSON.parse(stdout) as string[];
  };

  it('starts a node bound on every interface that advertises the host name, never 0.0.0.0', async () => {
    const args = await run(['start'], {});
    expect(args[0]).toBe('start');
    const config = startConfig(args.slice(1).concat('--insecure'));
    expect(isWildcard(config.http)).toBe(true);
    expect(isWildcard(config.advertiseHttp!)).toBe(false);
    expect(host(config.advertiseHttp!)).toBe(host(config.advertisePeer!));
    expect(config.dataDir).toBe('/data');
  });

  it('takes the advertised host, node id and ports from the environment; later flags win', async () => {
    const args = await run(['start', '--node-id', 'n7'], {
      TESSERA_NODE_ID: 'pod-1',
      TESSERA_ADVERTISE_HOST: 'pod-1.tessera.db.svc.cluster.local',
      TESSERA_HTTP_PORT: '7100',
      TESSERA_PEER_PORT: '8100',
    });
    const config = startConfig(args.slice(1).concat('--insecure'));
    expect(config).toMatchObject({
      nodeId: 'n7',
      http: '0.0.0.0:7100',
      advertiseHttp: 'pod-1.tessera.db.svc.cluster.local:7100',
      advertisePeer: 'pod-1.tessera.db.svc.cluster.local:8100',
    });
  });

  it('runs any other command as is', async () => {
    expect(await run(['admin', 'status', '--node', 'http://n0:7000'], {})).toEqual([
      'admin',
      'status',
      '--node',
      'http://n0:7000',
    ]);
  });
});

describe('deploy/systemd/tessera.service', () => {
  const unit = readFileSync(new URL('deploy/systemd/tessera.service', root), 'utf8');
  const setting = (key: string): string | undefined =>
    unit.match(new RegExp(`^${key}=(.*)$`, 'm'))?.[1]?.trim();

  it('runs as the tessera user, restarts on failure, with a file limit and an environment file', () => {
    expect(setting('User')).toBe('tessera');
    expect(setting('Restart')).toBe('on-failure');
    expect(Number(setting('LimitNOFILE'))).toBeGreaterThanOrEqual(65536);
    expect(setting('EnvironmentFile')).toBe('/etc/tessera/tessera.env');
    expect(setting('StateDirectory')).toBe('tessera');
  });

  it('starts `tessera start` with flags the CLI accepts, advertising what the environment file says', () => {
    const exec = unit
      .match(/^ExecStart=((?:.*\\\n)*.*)$/m)![1]!
      .replace(/\\\n/g, ' ')
      .split(/\s+/)
      .filter((w) => w !== '');
    expect(exec.slice(0, 3)).toEqual(['/usr/bin/node', '/opt/tessera/dist/bin/main.js', 'start']);
    // The example environment file of the unit's header, as systemd substitutes it.
    const env: Record<string, string> = {
      TESSERA_NODE_ID: 'db2',
      TESSERA_HTTP: '0.0.0.0:7000',
      TESSERA_PEER: '0.0.0.0:8000',
      TESSERA_ADVERTISE_HTTP: 'db2.example.net:7000',
      TESSERA_ADVERTISE_PEER: 'db2.example.net:8000',
      TESSERA_SEED: 'db1.example.net:8000',
    };
    const args = exec.slice(3).flatMap((w) => {
      const name = w.match(/^\$\{?(\w+)\}?$/)?.[1];
      if (name === undefined) return [w];
      if (name === 'TESSERA_OPTS') return [];
      expect(env[name], name).toBeDefined();
      return [env[name]!];
    });
    const config = startConfig([...args, '--insecure']);
    expect(config).toMatchObject({
      nodeId: 'db2',
      advertiseHttp: 'db2.example.net:7000',
      advertisePeer: 'db2.example.net:8000',
      seeds: ['db1.example.net:8000'],
      dataDir: '/var/lib/tessera',
    });
    for (const name of Object.keys(env)) expect(unit).toContain(`#   ${name}=`);
  });
});
