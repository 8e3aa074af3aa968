import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TesseraClient } from '@tessera/client';
import { encodeContext } from '@tessera/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secureNodeArgs } from '../src/cli/cluster-up.js';
import { httpCall } from '../src/cli/http-call.js';
import { LocalNode, localNodeSpecs } from '../src/cli/local-cluster.js';
import { peerClientSecurity } from '../src/transport/credentials.js';
import { createPeerClient } from '../src/transport/grpc-client.js';
import { expectTesseraError } from './grpc-kit.js';
import { cli, DIST_CLI, freePortBlock, waitFor } from './helpers.js';

let dir: string;
let certs: string;
let nodes: LocalNode[] = [];
let ca: Buffer;
const secrets = { client: '', admin: '', cluster: '' };
const WRONG_TOKEN = 'wrong-token-0123456789abcdef-0123456789';

/** Runs the compiled CLI; resolves with its exit code and output. */

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tessera-security-'));
  certs = join(dir, 'certs');
  // n9 gets a certificate from the cluster CA but is never started: a credentialed non-member.
  const [made, other] = await Promise.all([
    cli(['certs', '--dir', certs, '--nodes', 'n0,n1,n2,n9', '--tokens']),
    cli(['certs', '--dir', join(dir, 'other'), '--nodes', 'n1']),
  ]);
  expect(made.code, made.out).toBe(0);
  expect(other.code, other.out).toBe(0);
  ca = await readFile(join(certs, 'ca.pem'));
  secrets.client = (await readFile(join(certs, 'client.token'), 'utf8')).trim();
  secrets.admin = (await readFile(join(certs, 'admin.token'), 'utf8')).trim();
  secrets.cluster = (await readFile(join(certs, 'cluster.secret'), 'utf8')).trim();

  const base = await freePortBlock(6);
  const specs = localNodeSpecs({
    nodes: 3,
    dir,
    httpPort: base,
    peerPort: base + 3,
    extraArgs: ['--log-level', 'debug'],
    perNode: (id) => secureNodeArgs(certs, id),
  });
  nodes = specs.map((s) => new LocalNode(s, DIST_CLI));
  await nodes[0]!.start();
  await Promise.all(nodes.slice(1).map((n) => n.start()));
  await waitFor(
    async () => {
      const all = await Promise.all(nodes.map((n) => call(`${n.url}/v1/status`, secrets.client)));
      return all.every((s) => {
        const body = s.body as { members?: { status: string }[]; pending?: unknown };
        return (
          body.members?.length === 3 && body.members.every((m) => m.status === 'up') && body.pending === null
        );
      });
    },
    30_000,
    'the three nodes form one settled ring',
  );
}, 90_000);

afterAll(async () => {
  await Promise.all(nodes.map((n) => n.kill()));
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

const call = (url: string, token: string | undefined, method = 'GET', body?: unknown) =>
  httpCall(url, { method, body, token, ca, timeoutMs: 5_000 });

describe('a cluster with TLS, tokens and mutual TLS between peers', () => {
  it('serves puts and gets through the client with the CA and the client token', async () => {
    const client = new TesseraClient({ nodes: [nodes[0]!.url], token: secrets.client, tls: { ca } });
    try {
      await client.put('secure/k', { n: 1 });
      for (const node of nodes) {
        const other = new TesseraClient({
          nodes: [node.url],
          token: secrets.client,
          tls: { ca },
          routing: false,
        });
        expect((await other.get('secure/k')).siblings).toEqual([{ n: 1 }]);
        await other.close();
      }
    } finally {
      await client.close();
    }
  });

  it('answers 401 without a token or with a wrong one, 403 for the client token on an admin route', async () => {
    const url = nodes[1]!.url;
    const missing = await call(`${url}/v1/kv/secure%2Fk`, undefined);
    expect(missing.status).toBe(401);
    expect(missing.body).toMatchObject({ error: { code: 'UNAUTHENTICATED' } });
    expect((await call(`${url}/v1/kv/secure%2Fk`, WRONG_TOKEN)).status).toBe(401);
    expect((await call(`${url}/v1/status`, WRONG_TOKEN)).status).toBe(401);
    const forbidden = await call(`${url}/v1/admin/faults`, secrets.client);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toMatchObject({ error: { code: 'FORBIDDEN' } });
    expect((await call(`${url}/v1/admin/faults`, WRONG_TOKEN, 'POST', { blockPeers: ['n0'] })).status).toBe(
      401,
    );
    // The admin token passes admin routes (fault injection is off: 403 of another kind) and client ones.
    const admin = await call(`${url}/v1/admin/faults`, secrets.admin);
    expect(admin.body).toMatchObject({ error: { code: 'FAULT_INJECTION_DISABLED' } });
    expect((await call(`${url}/v1/kv/secure%2Fk`, secrets.admin)).status).toBe(200);
    expect((await call(`${url}/health`, undefined)).status).toBe(200);
    // Plain HTTP on the TLS port gets nowhere.
    await expect(
      httpCall(`${url.replace('https:', 'http:')}/health`, { timeoutMs: 2_000 }),
    ).rejects.toThrow();
  });

  it('takes tessera admin status with the admin token and the CA', async () => {
    const status = await cli([
      'admin',
      'status',
      '--node',
      nodes[0]!.url,
      '--ca',
      join(certs, 'ca.pem'),
      '--token-file',
      join(certs, 'admin.token'),
    ]);
    expect(status.code, status.out).toBe(0);
    expect(status.out).toContain('n2');
    const refused = await cli(['admin', 'status', '--node', nodes[0]!.url, '--ca', join(certs, 'ca.pem')]);
    expect(refused.code).toBe(1);
    expect(refused.out).toContain('tessera: UNAUTHENTICATED: ');
    expect(refused.out).not.toContain('BAD_REQUEST');
    const plain = await cli(['admin', 'status', '--node', nodes[0]!.url.replace('https:', 'http:')]);
    expect(plain.code).toBe(1);
    expect(plain.out).toContain('use --node https://');
  });
});

describe('signed contexts', () => {
  it('accepts a context a node issued and refuses a forged or unsigned one', async () => {
    const url = nodes[2]!.url;
    const path = `${url}/v1/kv/signed`;
    expect((await call(path, secrets.client, 'PUT', { value: 'a' })).status).toBe(200);
    const read = (await call(path, secrets.client)).body as { context: string };
    const tag = read.context.slice(read.context.lastIndexOf('.') + 1);
    const unsigned = read.context.slice(0, read.context.lastIndexOf('.'));
    // A context claiming versions nobody wrote, with a tag copied from a real one.
    const claim = encodeContext('signed', { vv: [{ node: 'n0', counter: 1e9, timestampMs: 0 }], dots: [] });
    for (const context of [unsigned, `${claim}.${tag}`]) {
      const refused = await call(path, secrets.client, 'PUT', { value: 'b', context });
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ error: { code: 'INVALID_CONTEXT' } });
    }
    expect((await call(path, secrets.client, 'PUT', { value: 'b', context: read.context })).status).toBe(200);
    expect((await call(path, secrets.client)).body).toMatchObject({ siblings: [{ value: 'b' }] });
  });
});

describe('peers', () => {
  /** A gRPC client to n0 with this certificate, claiming `nodeId`, proving `secret`. */
  async function peerAs(certDir: string, certNode: string, nodeId: string, secret: string) {
    const [cert, key] = await Promise.all([
      readFile(join(certDir, `${certNode}.pem`)),
      readFile(join(certDir, `${certNode}-key.pem`)),
    ]);
    return createPeerClient(nodes[0]!.peerAddress, {
      security: peerClientSecurity(nodeId, secret, { ca, cert, key }),
    });
  }

  it('serves a member with its own certificate and the secret (the control case)', async () => {
    const n1 = await peerAs(certs, 'n1', 'n1', secrets.cluster);
    try {
      expect(await n1.read('secure/k', 5_000)).toBeInstanceOf(Uint8Array);
    } finally {
      n1.close();
    }
  });

  it('refuses a certificate from another CA, even for a member id with the right secret', async () => {
    const impostor = await peerAs(join(dir, 'other'), 'n1', 'n1', secrets.cluster);
    try {
      await expectTesseraError(impostor.read('secure/k', 5_000), 'PEER_UNAVAILABLE');
    } finally {
      impostor.close();
    }
  });

  it('refuses a cluster certificate that is not a member, one claiming another id, and a wrong secret', async () => {
    const outsider = await peerAs(certs, 'n9', 'n9', secrets.cluster);
    const liar = await peerAs(certs, 'n9', 'n1', secrets.cluster);
    const wrongSecret = await peerAs(certs, 'n1', 'n1', 'not-the-cluster-secret-0123456789');
    try {
      await expectTesseraError(outsider.read('secure/k', 5_000), 'FORBIDDEN');
      await expectTesseraError(liar.read('secure/k', 5_000), 'UNAUTHENTICATED');
      await expectTesseraError(wrongSecret.read('secure/k', 5_000), 'UNAUTHENTICATED');
    } finally {
      for (const c of [outsider, liar, wrongSecret]) c.close();
    }
  });
});

describe('secrets', () => {
  it('never appear in the nodes’ logs, even after refused requests', async () => {
    const logs = (await Promise.all(nodes.map((n) => readFile(n.logPath, 'utf8')))).join('\n');
    expect(logs).toContain('request refused');
    expect(logs).toContain('peer call refused');
    for (const value of [secrets.client, secrets.admin, secrets.cluster, WRONG_TOKEN]) {
      expect(logs).not.toContain(value);
    }
  });

  it('a node bound beyond loopback without a token refuses to start, unless --insecure', async () => {
    const started = await cli([
      'start',
      '--node-id',
      'x',
      '--http',
      '0.0.0.0:1',
      '--advertise-http',
      '127.0.0.1:1',
      '--peer',
      '127.0.0.1:2',
      '--data-dir',
      join(dir, 'x'),
      '--storage',
      'memory',
    ]);
    expect(started.code).toBe(1);
    expect(started.out).toContain('Refusing to start');
    expect(started.out).toContain('--insecure');
  });
});
