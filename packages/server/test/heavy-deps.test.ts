/**
 * Each heavy dependency of the server stays in its folder (docs/architecture.md): gRPC in
 * transport/, LevelDB in storage/, fastify and its plugins in http/.
 */
import { describe, expect, it } from 'vitest';
import { packageSources, specifiersOf } from './source-imports.js';

const SERVER_SRC = 'packages/server/src/';

const HOMES: ReadonlyArray<{ readonly dependency: RegExp; readonly folder: string }> = [
  { dependency: /^@grpc\/grpc-js(\/|$)/, folder: 'transport/' },
  { dependency: /^classic-level(\/|$)/, folder: 'storage/' },
  { dependency: /^(fastify|@fastify\/.+)(\/|$)/, folder: 'http/' },
];

function strayImports(): string[] {
  const files = packageSources().filter((f) => f.startsWith(SERVER_SRC));
  return files.flatMap((file) =>
    specifiersOf(file).flatMap((specifier) => {
      const home = HOMES.find((h) => h.dependency.test(specifier));
      const allowed = home === undefined || file.startsWith(SERVER_SRC + home.folder);
      return allowed ? [] : [`${file} imports ${specifier} (allowed only in ${SERVER_SRC}${home.folder})`];
    }),
  );
}

describe('heavy dependencies', () => {
  it('are imported only in their own folder of the server', () => {
    const stray = strayImports();
    expect(stray, stray.join('\n')).toEqual([]);
  });

  it('are found where they belong (the check sees real imports)', () => {
    const files = packageSources().filter((f) => f.startsWith(SERVER_SRC));
    for (const { dependency, folder } of HOMES) {
      const users = files.filter((f) => specifiersOf(f).some((s) => dependency.test(s)));
      expect(
        users.some((f) => f.startsWith(SERVER_SRC + folder)),
        String(dependency),
      ).toBe(true);
    }
  });
});
