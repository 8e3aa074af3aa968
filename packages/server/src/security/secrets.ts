/**
 * Tokens and the cluster secret come from files or environment variables, never from flags, so
 * they do not show in process lists. Errors name the file or variable, never the value.
 */
import { readFile } from 'node:fs/promises';
import { TesseraError } from '@tessera/core';

/** Where each secret may come from: a file flag, else an environment variable. */
export const SECRET_SOURCES = {
  token: { flag: 'token-file', env: 'TESSERA_TOKEN' },
  adminToken: { flag: 'admin-token-file', env: 'TESSERA_ADMIN_TOKEN' },
  clusterSecret: { flag: 'cluster-secret-file', env: 'TESSERA_CLUSTER_SECRET' },
} as const;

export type SecretName = keyof typeof SECRET_SOURCES;

/** A secret file larger than this is a mistake (a certificate, a log), not a token. */
const SECRET_FILE_BYTES_MAX = 8 * 1024;

/** The secrets named by file flags or environment variables; absent ones are left out. */
export async function readSecrets(
  files: Partial<Record<SecretName, string | undefined>>,
  env: NodeJS.ProcessEnv,
): Promise<Partial<Record<SecretName, string>>> {
  const out: Partial<Record<SecretName, string>> = {};
  for (const name of Object.keys(SECRET_SOURCES) as SecretName[]) {
    const file = files[name];
    const fromEnv = env[SECRET_SOURCES[name].env];
    if (file !== undefined) out[name] = await readSecretFile(file, `--${SECRET_SOURCES[name].flag}`);
    else if (fromEnv !== undefined && fromEnv !== '') out[name] = fromEnv.trim();
  }
  return out;
}

/** Reads a secret file: its content without the trailing newline. */
export async function readSecretFile(path: string, what: string): Promise<string> {
  let text: string;
  try {
    const bytes = await readFile(path);
    if (bytes.length > SECRET_FILE_BYTES_MAX) throw new Error(`larger than ${SECRET_FILE_BYTES_MAX} bytes`);
    text = bytes.toString('utf8');
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    const reason = typeof code === 'string' ? code : err instanceof Error ? err.message : 'unreadable';
    throw new TesseraError('BAD_REQUEST', `Cannot read ${what} ${path} (${reason}).`);
  }
  const secret = text.trim();
  if (secret === '' || /\s/.test(secret)) {
    throw new TesseraError(
      'BAD_REQUEST',
      `${what} ${path} must hold one token on one line (e.g. the output of \`openssl rand -hex 32\`).`,
    );
  }
  return secret;
}
