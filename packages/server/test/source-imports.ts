/** The TypeScript sources of the workspace's packages and what each imports (for the structure tests). */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
// TypeScript 7 (the workspace's compiler) has no JavaScript API yet: the import scanner is 5.9's.
import ts from 'typescript5';

export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Every `.ts` file under `packages/<name>/src`, as a path relative to the repository root. */
export function packageSources(): string[] {
  const packages = join(REPO_ROOT, 'packages');
  return readdirSync(packages).flatMap((name) => tsFilesUnder(join(packages, name, 'src')));
}

function tsFilesUnder(dir: string): string[] {
  const entries = readdirSync(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
    .map((e) => relative(REPO_ROOT, join(e.parentPath, e.name)))
    .sort();
}

/** The module specifiers a file imports or re-exports (type-only ones and `import()` included). */
export function specifiersOf(file: string): string[] {
  const text = readFileSync(join(REPO_ROOT, file), 'utf8');
  return ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
}
