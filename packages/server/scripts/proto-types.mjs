#!/usr/bin/env node
/**
 * Types what ts-proto writes as `any` in the generated TypeScript, so no `any` ships:
 * - its decode-depth guard, `(reader as any).__tsProtoDecodeDepth`, gets a reader type with that field;
 * - `createBaseX() as any` (the message built while decoding, whose fields are readonly with
 *   `useReadonlyTypes`) becomes `Mutable<X>`;
 * - `message.f = reader.int32() as any` (an enum) becomes the field's own type.
 * `pnpm proto:gen` runs it after buf, and `pnpm proto:check` runs it on what it regenerates, so
 * both compare the same text. Anything still `as any` afterwards (a shape a newer ts-proto
 * writes) fails here, naming the line, rather than shipping.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const DECLARATIONS = `
/** Added by scripts/proto-types.mjs: the types of what ts-proto writes as \`any\`. */
type DepthCountedReader = BinaryReader & { __tsProtoDecodeDepth?: number };
type Mutable<T> = { -readonly [K in keyof T]: T[K] extends ReadonlyArray<infer U> ? U[] : T[K] };
`;

/** `text` (one generated file) with its `any` typed; throws when one is left. */
export function typeGenerated(text, file = 'generated file') {
  if (!/\bas any\b/.test(text)) return text;
  const typed = text
    .replaceAll('(reader as any).__tsProtoDecodeDepth', '(reader as DepthCountedReader).__tsProtoDecodeDepth')
    .replace(/const message = createBase(\w+)\(\) as any;/g, 'const message = createBase$1() as Mutable<$1>;')
    .replace(
      /message\.(\w+) = reader\.(\w+)\(\) as any;/g,
      'message.$1 = reader.$2() as (typeof message)["$1"];',
    )
    .replace('/* eslint-disable */\n', `/* eslint-disable */\n${DECLARATIONS}`);
  const left = typed.split('\n').findIndex((line) => /\bas any\b/.test(line));
  if (left >= 0) {
    throw new Error(`${file}:${left + 1} is still \`as any\`: teach scripts/proto-types.mjs its type.`);
  }
  return typed;
}

/** Rewrites every .ts file under `dir` in place. */
export function typeGeneratedDir(dir) {
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const path = join(entry.parentPath ?? entry.path, entry.name);
    writeFileSync(path, typeGenerated(readFileSync(path, 'utf8'), path));
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2];
  if (dir === undefined) {
    console.error('usage: node scripts/proto-types.mjs DIR');
    process.exit(2);
  }
  try {
    typeGeneratedDir(dir);
  } catch (err) {
    console.error(`proto-types: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  }
}
