/**
 * No import cycle in `packages/*\/src` (type-only imports count: they couple modules as much).
 * Relative specifiers (`./x.js`) resolve to the `.ts` file beside them; packages are leaves.
 */
import { existsSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageSources, REPO_ROOT, specifiersOf } from './source-imports.js';

type Graph = Map<string, string[]>;

function resolveLocal(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const target = normalize(join(dirname(from), specifier));
  const candidates = [target.replace(/\.js$/, '.ts'), `${target}.ts`, join(target, 'index.ts')];
  return candidates.find((c) => existsSync(join(REPO_ROOT, c)));
}

function importGraph(files: readonly string[]): Graph {
  return new Map(files.map((file) => [file, specifiersOf(file).flatMap((s) => resolveLocal(file, s) ?? [])]));
}

/** The cycles a depth-first search closes: at least one through every circle of imports. */
function cycles(graph: Graph): string[][] {
  const found: string[][] = [];
  const done = new Set<string>();
  const path: string[] = [];
  const onPath = new Set<string>();
  const visit = (file: string): void => {
    if (done.has(file)) return;
    if (onPath.has(file)) {
      found.push([...path.slice(path.indexOf(file)), file]);
      return;
    }
    onPath.add(file);
    path.push(file);
    for (const next of graph.get(file) ?? []) visit(next);
    path.pop();
    onPath.delete(file);
    done.add(file);
  };
  for (const file of graph.keys()) visit(file);
  return found;
}

describe('import graph', () => {
  const graph = importGraph(packageSources());

  it('sees the sources', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get('packages/server/src/cli/main.ts')?.length).toBeGreaterThan(0);
  });

  it('finds a cycle when there is one', () => {
    const circle: Graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a', 'd']],
      ['d', []],
    ]);
    expect(cycles(circle)).toEqual([['a', 'b', 'c', 'a']]);
    const line: Graph = new Map([['a', ['b']]]);
    expect(cycles(line)).toEqual([]);
  });

  it('has no cycle in packages/*/src', () => {
    const found = cycles(graph).map((c) => c.join('\n  -> '));
    expect(found, `import cycles:\n${found.join('\n\n')}`).toEqual([]);
  });
});
