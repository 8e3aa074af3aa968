#!/usr/bin/env node
/**
 * Fails when the committed TypeScript in src/transport/generated is not what proto/ generates
 * today: lints the protos, regenerates into a temp dir with the same buf.gen.yaml and compares
 * file by file, after scripts/proto-types.mjs as proto:gen runs it. Offline; needs only
 * `pnpm install` (buf and ts-proto come from node_modules).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { typeGeneratedDir } from './proto-types.mjs';

const GENERATED = 'src/transport/generated';
const DRIFT = 'generated code drifted from proto: run pnpm proto:gen and commit';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const binDir = join(packageDir, 'node_modules', '.bin');
// buf runs the ts-proto plugin by name (protoc-gen-ts_proto), so node_modules/.bin goes on PATH.
const env = { ...process.env, PATH: `${binDir}${delimiter}${process.env.PATH ?? ''}` };

function buf(args) {
  const bin = join(binDir, process.platform === 'win32' ? 'buf.cmd' : 'buf');
  if (!existsSync(bin)) fail(`${bin} is missing: run pnpm install first.`);
  const result = spawnSync(bin, args, {
    cwd: packageDir,
    env,
    encoding: 'utf8',
    shell: process.platform === 'win32',
  });
  if (result.error) fail(`could not run buf ${args.join(' ')}: ${result.error.message}`);
  if (result.status !== 0) fail(`buf ${args.join(' ')} failed:\n${result.stderr}${result.stdout}`);
}

function fail(message) {
  console.error(`proto:check: ${message}`);
  process.exit(1);
}

/** Relative path -> contents (line endings normalized, so a CRLF checkout compares equal). */
function readTree(root) {
  const files = new Map();
  if (!existsSync(root)) return files;
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath ?? entry.path, entry.name);
    files.set(
      path.slice(root.length + 1).replaceAll('\\', '/'),
      readFileSync(path, 'utf8').replaceAll('\r\n', '\n'),
    );
  }
  return files;
}

buf(['lint', 'proto']);

const outDir = mkdtempSync(join(tmpdir(), 'tessera-proto-check-'));
let problems;
try {
  buf(['generate', 'proto', '--output', outDir]);
  // As pnpm proto:gen does: the generated code's `any` typed (scripts/proto-types.mjs).
  try {
    typeGeneratedDir(join(outDir, GENERATED));
  } catch (err) {
    fail(err instanceof Error ? err.message : String(err));
  }
  const committed = readTree(join(packageDir, GENERATED));
  const fresh = readTree(join(outDir, GENERATED));
  if (fresh.size === 0) fail(`buf generated nothing into ${GENERATED}; check buf.gen.yaml.`);
  problems = [];
  for (const [path, text] of fresh) {
    if (!committed.has(path)) problems.push(`missing: ${GENERATED}/${path}`);
    else if (committed.get(path) !== text) problems.push(`differs: ${GENERATED}/${path}`);
  }
  for (const path of committed.keys()) {
    if (!fresh.has(path)) problems.push(`stale (no longer generated): ${GENERATED}/${path}`);
  }
} finally {
  rmSync(outDir, { recursive: true, force: true });
}

if (problems.length > 0) {
  console.error(`proto:check: ${DRIFT}\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(`proto:check: ${GENERATED} matches proto/.`);
