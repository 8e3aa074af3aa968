#!/usr/bin/env node
/**
 * Prints what the client costs in a browser bundle: esbuild (minified, ESM, browser platform) of
 * the built main entry (run `pnpm build` first), raw and gzipped, for a few typical imports.
 * Usage: node packages/client/scripts/bundle-size.mjs
 */
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

const cases = [
  ['everything (`import * as tessera`)', "export * from '@tessera/client';"],
  [
    '`TesseraClient`, `resolvers`, `cart`',
    "export { TesseraClient, resolvers, cart } from '@tessera/client';",
  ],
  ['`TesseraClient` only', "export { TesseraClient } from '@tessera/client';"],
];

const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
console.log('| import | minified | gzip |');
console.log('| --- | --- | --- |');
for (const [name, code] of cases) {
  const result = await build({
    stdin: { contents: code, resolveDir: packageDir, loader: 'js' },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    write: false,
  });
  const bytes = result.outputFiles[0].contents;
  console.log(`| ${name} | ${kib(bytes.length)} | ${kib(gzipSync(bytes, { level: 9 }).length)} |`);
}
