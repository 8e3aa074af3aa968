#!/usr/bin/env node
/**
 * Bundles the compiled CLI (`dist/cli/main.js`, from tsc) into `dist/bin/`: the `tessera` command
 * users run. One file per command (code splitting keeps `tessera --version` from loading the
 * server) instead of about 700 modules: a node starts on about half the CPU (docs/testing.md,
 * "Test time"). classic-level stays outside: its native addon is found next to its own files.
 */
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = `${root}dist/bin`;

rmSync(outdir, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: { main: 'dist/cli/main.js' },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['classic-level'],
  // Bundled CommonJS dependencies call require() for Node's own modules.
  banner: {
    js: "import { createRequire as tesseraCreateRequire } from 'node:module'; const require = tesseraCreateRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
