#!/usr/bin/env node
/**
 * `pnpm start`: starts a local three-node Tessera cluster (data and logs in .tessera/cluster; every
 * node with `--strong stock,orders`, see launcher/nodes.ts) and the store on http://127.0.0.1:3000
 * (PORT and HOST override), and prints the address. With TESSERA_NODES=http://n0:7000,… it uses
 * that cluster instead (its nodes must declare stock and orders strong). Ctrl-C stops everything.
 */
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';
import { createStore } from './app.js';
import { type LauncherConfig, loadConfig } from './launcher/config.js';
import { externalNodes, type LocalCluster, startLocalCluster } from './launcher/nodes.js';

const print = (line = ''): void => {
  process.stdout.write(`${line}\n`);
};

function logger(config: LauncherConfig): FastifyBaseLogger {
  if (config.log === 'stdout') return pino({ level: config.logLevel });
  const path = resolve(config.log);
  mkdirSync(dirname(path), { recursive: true });
  return pino({ level: config.logLevel }, pino.destination({ dest: path, sync: false }));
}

function banner(url: string, config: LauncherConfig, cluster: LocalCluster | undefined): string {
  const nodes = cluster?.nodes ?? [];
  return `
  Tessera store: ${url}

  Open it and add a few things to the cart. The guide on the page walks you through the
  paper's shopping cart (Dynamo, section 4.4): split the cluster, edit the cart on both sides,
  heal it, and watch the two versions merge without losing an add or a removal. Stock and orders
  are strong keys instead: checkout is one all-or-nothing transaction that never oversells.
${cluster === undefined ? '' : `\n  Nodes: ${nodes.map((n) => n.url).join('  ')}   (HTTP API: docs/api.md)`}
  Store log: ${config.log === 'stdout' ? 'stdout' : resolve(config.log)}
  Ctrl-C stops the store${cluster === undefined ? '' : ' and the cluster (the data stays; run the same command to resume)'}.
`;
}

async function main(): Promise<number> {
  const config = loadConfig(process.env);
  let cluster: LocalCluster | undefined;
  let closing = false;
  const stopAll = async (app?: { close(): Promise<void> }): Promise<void> => {
    await app?.close().catch(() => {});
    await cluster?.stop();
  };

  let nodes: Awaited<ReturnType<typeof externalNodes>>;
  if (config.externalNodes === undefined) {
    print(
      `Starting a local Tessera cluster of ${config.nodeCount} nodes (data and logs in ${resolve(config.dir)})`,
    );
    cluster = await startLocalCluster(
      { count: config.nodeCount, dir: config.dir, httpPort: config.httpPort },
      print,
    );
    nodes = [...cluster.nodes];
  } else {
    print(`Using the Tessera nodes in TESSERA_NODES`);
    nodes = await externalNodes(config.externalNodes, print);
  }

  const app = await createStore({ nodes, logger: logger(config) });
  const shutdown = (signal: string): void => {
    if (closing) {
      print('Stopping now.');
      process.exit(130);
    }
    closing = true;
    const what = cluster === undefined ? 'the store' : `the store and the ${cluster.nodes.length} nodes`;
    print(`\n${signal}: stopping ${what}…`);
    void stopAll(app).then(
      () => {
        const resume =
          cluster === undefined
            ? ''
            : ` Their data stays in ${resolve(config.dir)}: the same command resumes.`;
        print(`Stopped ${what}.${resume}`);
        process.exit(0);
      },
      (err: unknown) => {
        process.stderr.write(`Stopping failed: ${err instanceof Error ? err.message : String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('Ctrl-C'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    await stopAll(app);
    throw new Error(
      `The store cannot listen on ${config.host}:${config.port} (${(err as Error).message}). Set PORT to use another port.`,
    );
  }
  const shownHost = config.host === '0.0.0.0' ? '127.0.0.1' : config.host;
  print(banner(`http://${shownHost}:${config.port}`, config, cluster));
  return 0;
}

main().catch((err: unknown) => {
  process.stderr.write(`\n${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
