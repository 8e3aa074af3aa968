/**
 * A process killed with SIGKILL loses no acknowledged write, even without fsync: LevelDB has
 * written each batch to its log (in the OS page cache) before the batch resolves. A child process
 * writes with `sync: false` and prints each key once its batch resolves; the parent kills it
 * mid-stream, reopens the dir and finds every printed key.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TesseraError } from '@tessera/core';
import { afterEach, expect, it } from 'vitest';
import { LEVEL_KEY_PREFIXES, LevelEngine } from './level-engine.js';

const ACKED_BEFORE_KILL = 300;
const CHILD_TIMEOUT_MS = 15_000;

function childScript(classicLevelPath: string, prefix: string): string {
  return `
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const { ClassicLevel } = require(${JSON.stringify(classicLevelPath)});
const db = new ClassicLevel(process.argv[2], { keyEncoding: 'utf8', valueEncoding: 'view' });
await db.open();
process.stdout.write('open\\n');
for (let i = 0; ; i++) {
  const key = 'crash-' + String(i).padStart(7, '0');
  const value = new TextEncoder().encode(key.repeat(20));
  await db.batch([{ type: 'put', key: ${JSON.stringify(prefix)} + key, value }], { sync: false });
  process.stdout.write(key + '\\n');
}
`;
}

/** Collects complete stdout lines and resolves `until` once `predicate` holds for them. */
function watchLines(child: ChildProcess): {
  lines: string[];
  until(predicate: (lines: string[]) => boolean): Promise<void>;
} {
  const lines: string[] = [];
  let partial = '';
  let stderr = '';
  const waiters: { predicate: (lines: string[]) => boolean; resolve: () => void }[] = [];
  const check = () => {
    for (const w of waiters.splice(0)) {
      if (w.predicate(lines)) w.resolve();
      else waiters.push(w);
    }
  };
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop()!;
    lines.push(...parts);
    check();
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<never>((_, reject) => {
    child.on('exit', (code, signal) =>
      reject(new Error(`child exited early (${code ?? signal}): ${stderr}`)),
    );
  });
  exited.catch(() => undefined);
  return {
    lines,
    until(predicate) {
      const met = new Promise<void>((resolve) => {
        waiters.push({ predicate, resolve });
        check();
      });
      return Promise.race([met, exited]);
    },
  };
}

let dir: string | undefined;
let child: ChildProcess | undefined;
afterEach(async () => {
  if (child !== undefined && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

it('loses no acknowledged write when the process is killed with SIGKILL (sync: false)', async () => {
  dir = await mkdtemp(join(tmpdir(), 'tessera-crash-'));
  const dataDir = join(dir, 'data');
  const script = join(dir, 'writer.mjs');
  const classicLevel = createRequire(import.meta.url).resolve('classic-level');
  await writeFile(script, childScript(classicLevel, LEVEL_KEY_PREFIXES.data));

  child = spawn(process.execPath, [script, dataDir], { stdio: ['ignore', 'pipe', 'pipe'] });
  const out = watchLines(child);
  const closed = new Promise<void>((resolve) => child!.on('close', () => resolve()));
  const timer = setTimeout(() => child?.kill('SIGKILL'), CHILD_TIMEOUT_MS);
  try {
    await out.until((lines) => lines.length > ACKED_BEFORE_KILL);

    // While the child holds the dir, another open fails clearly.
    const rival = new LevelEngine(dataDir);
    const err: unknown = await rival.open().catch((e: unknown) => e);
    expect(TesseraError.is(err) && err.code).toBe('STORAGE_FAILURE');
    expect((err as Error).message).toMatch(/another node using this data dir/);

    child.kill('SIGKILL');
    await closed;
  } finally {
    clearTimeout(timer);
  }
  expect(child.signalCode).toBe('SIGKILL');
  const acked = out.lines.filter((line) => line.startsWith('crash-'));
  expect(acked.length).toBeGreaterThanOrEqual(ACKED_BEFORE_KILL);

  const engine = new LevelEngine(dataDir);
  await engine.open();
  try {
    const missing: string[] = [];
    for (const key of acked) {
      const value = await engine.get('data', key);
      if (value === undefined || new TextDecoder().decode(value) !== key.repeat(20)) missing.push(key);
    }
    expect(missing).toEqual([]);
  } finally {
    await engine.close();
  }
});
