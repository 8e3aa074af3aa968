/**
 * docker-compose.yml and the Dockerfile cannot run here (no Docker engine), so check that they
 * agree with the CLI: every command parses with `tessera start`'s own flags and config schema,
 * published ports match the HTTP ports, seeds name another service's peer address.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { START_OPTIONS } from '../src/cli/start.js';
import { parseConfig } from '../src/config.js';
import { exposure } from '../src/security/exposure.js';

const root = new URL('../../../', import.meta.url);
const compose = parse(readFileSync(new URL('docker-compose.yml', root), 'utf8')) as {
  services: Record<
    string,
    {
      command?: string[];
      entrypoint?: string[];
      environment?: Record<string, string>;
      ports?: string[];
      build?: string;
    }
  >;
};
const dockerfile = readFileSync(new URL('Dockerfile', root), 'utf8');
const pkg = JSON.parse(readFileSync(new URL('packages/server/package.json', root), 'utf8')) as {
  bin: Record<string, string>;
};

const port = (hostPort: string): number => Number(hostPort.slice(hostPort.lastIndexOf(':') + 1));

describe('docker-compose.yml', () => {
  const all = Object.entries(compose.services);
  const services = all.filter(([, s]) => s.command?.[0] === 'start') as [
    string,
    { command: string[]; ports?: string[]; build?: string },
  ][];
  const peers = new Map(
    services.map(([name, s]) => [
      name,
      parseArgs({ args: s.command.slice(1), options: START_OPTIONS }).values.peer,
    ]),
  );

  it('has three nodes built from the Dockerfile', () => {
    expect(services.map(([name]) => name)).toEqual(['n0', 'n1', 'n2']);
    for (const [, s] of services) expect(s.build).toBe('.');
  });

  it.each(services)('%s runs `tessera start` with flags and settings the CLI accepts', (name, service) => {
    expect(service.command[0]).toBe('start');
    const { values } = parseArgs({ args: service.command.slice(1), options: START_OPTIONS, strict: true });
    const config = parseConfig({
      nodeId: values['node-id'],
      http: values.http,
      peer: values.peer,
      dataDir: values['data-dir'],
      seeds: values.seed ?? [],
      insecure: values.insecure,
    });
    expect(config.nodeId).toBe(name);
    // Bound beyond loopback without tokens, a node starts only with --insecure (docs/security.md).
    expect(exposure(config).refusals.length === 0 || config.insecure).toBe(true);
    const published = (service.ports ?? []).map((p) => Number(p.split(':')[1]));
    expect(published).toEqual([port(config.http)]);
    expect(dockerfile).toMatch(new RegExp(`EXPOSE[^\\n]*\\b${port(config.http)}\\b`));
    expect(dockerfile).toMatch(new RegExp(`EXPOSE[^\\n]*\\b${port(config.peer)}\\b`));
    for (const seed of config.seeds) {
      expect([...peers.entries()].some(([other, peer]) => other !== name && peer === seed)).toBe(true);
    }
  });

  it('runs the demo store against the three nodes', () => {
    const store = compose.services.store!;
    expect(store.entrypoint).toEqual(['node', '/src/examples/web-store/dist/server/main.js']);
    const nodes = store.environment!.TESSERA_NODES!.split(',');
    expect(nodes).toEqual(
      services.map(
        ([, s]) => `http://${parseArgs({ args: s.command.slice(1), options: START_OPTIONS }).values.http}`,
      ),
    );
    expect(store.ports).toEqual([`${store.environment!.PORT}:${store.environment!.PORT}`]);
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
  it('runs the package bin, the same entry point as `tessera`', () => {
    expect(pkg.bin.tessera).toBe('./dist/cli/main.js');
    expect(dockerfile).toContain('ENTRYPOINT ["node", "/src/packages/server/dist/cli/main.js"]');
    expect(dockerfile).toMatch(/FROM node:20/);
  });
});
