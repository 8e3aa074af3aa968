/**
 * `tessera certs`: a development CA, a certificate per node and (with --tokens) random tokens and
 * a cluster secret, all made offline into one directory. An existing CA in the directory is
 * reused and existing files are kept, so running it again adds nodes. See docs/security.md.
 */
import { randomBytes } from 'node:crypto';
import { access, chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { TesseraError } from '@tessera/core';
import { nodeIdSchema } from '../config.js';
import { createCa, type Issued, issueNodeCertificate } from '../security/dev-ca.js';

const NODES_MAX = 256;
const HOSTS_MAX = 64;
const DAYS_MAX = 3650;

export async function runCerts(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      dir: { type: 'string', default: '.tessera/certs' },
      nodes: { type: 'string' },
      hosts: { type: 'string', default: '127.0.0.1,localhost,::1' },
      days: { type: 'string', default: '365' },
      tokens: { type: 'boolean', default: false },
    },
    strict: true,
  });
  const nodes = list(values.nodes ?? '', '--nodes', NODES_MAX);
  if (nodes.length === 0)
    throw new TesseraError('BAD_REQUEST', 'tessera certs needs --nodes ID[,ID...], e.g. --nodes n0,n1,n2.');
  for (const id of nodes)
    if (!nodeIdSchema.safeParse(id).success)
      throw new TesseraError('BAD_REQUEST', `"${id}" is not a node id (1 to 64 of A-Z a-z 0-9 . _ -).`);
  const hosts = list(values.hosts, '--hosts', HOSTS_MAX);
  const days = Number(values.days);
  if (!Number.isInteger(days) || days < 1 || days > DAYS_MAX)
    throw new TesseraError('BAD_REQUEST', `--days must be a whole number from 1 to ${DAYS_MAX}.`);
  await ensureCerts({ dir: resolve(values.dir), nodes, hosts, days, tokens: values.tokens });
  out('Start nodes with these files as shown in docs/security.md.\n');
  return 0;
}

export interface CertsPlan {
  readonly dir: string;
  readonly nodes: readonly string[];
  readonly hosts: readonly string[];
  readonly days: number;
  /** Also write client.token, admin.token and cluster.secret. */
  readonly tokens: boolean;
}

/** Creates what is missing in `dir`: the CA, node certificates, tokens; keeps what exists. */
export async function ensureCerts(plan: CertsPlan): Promise<void> {
  const { dir, hosts, days } = plan;
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const ca = await loadOrCreateCa(dir, days * 10);
  for (const id of plan.nodes) {
    const certPath = join(dir, `${id}.pem`);
    if (await exists(certPath)) {
      out(`kept     ${certPath}\n`);
      continue;
    }
    const issued = issueNodeCertificate(ca, id, hosts, days);
    await writeSecret(join(dir, `${id}-key.pem`), issued.keyPem);
    await writeFile(certPath, issued.certPem);
    out(`created  ${certPath} (CN=${id}; ${hosts.join(', ')}) and ${id}-key.pem\n`);
  }
  if (plan.tokens) {
    for (const name of ['client.token', 'admin.token', 'cluster.secret']) {
      const path = join(dir, name);
      if (await exists(path)) out(`kept     ${path}\n`);
      else {
        await writeSecret(path, `${randomBytes(32).toString('hex')}\n`);
        out(`created  ${path}\n`);
      }
    }
  }
  out(`\nDevelopment CA: ${join(dir, 'ca.pem')}. Keys are readable by you only; keep ca-key.pem private.\n`);
}

async function loadOrCreateCa(dir: string, days: number): Promise<Issued> {
  const certPath = join(dir, 'ca.pem');
  const keyPath = join(dir, 'ca-key.pem');
  if (await exists(certPath)) {
    const [certPem, keyPem] = await Promise.all([
      readFile(certPath, 'utf8'),
      readFile(keyPath, 'utf8'),
    ]).catch(() => {
      throw new TesseraError(
        'BAD_REQUEST',
        `${certPath} exists but ${keyPath} cannot be read; the CA is needed to sign.`,
      );
    });
    out(`kept     ${certPath}\n`);
    return { certPem, keyPem };
  }
  const ca = createCa('Tessera development CA', Math.min(days, DAYS_MAX));
  await writeSecret(keyPath, ca.keyPem);
  await writeFile(certPath, ca.certPem);
  out(`created  ${certPath} and ca-key.pem\n`);
  return ca;
}

function list(value: string, flag: string, max: number): string[] {
  const items = value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (items.length > max) throw new TesseraError('BAD_REQUEST', `${flag} takes at most ${max} entries.`);
  return items;
}

async function writeSecret(path: string, text: string): Promise<void> {
  await writeFile(path, text, { mode: 0o600 });
  await chmod(path, 0o600);
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

function out(text: string): void {
  process.stdout.write(text);
}
