/**
 * What the CLI's help and hints print: the command as the user runs it, and where the docs are.
 * The package ships no docs, so the links are absolute (the repository's URL: docs/releasing.md).
 */
export const DOCS_URL = 'https://github.com/tessera-db/tessera/blob/main/docs';

/**
 * `pnpm tessera` under pnpm (this repository's scripts), `yarn tessera` under yarn, else
 * `npx tessera`: npm and npx set npm_config_user_agent too, and npx also finds a global install.
 */
export function cliCommand(env: NodeJS.ProcessEnv = process.env): string {
  const agent = env.npm_config_user_agent ?? '';
  if (agent.startsWith('pnpm/')) return 'pnpm tessera';
  if (agent.startsWith('yarn/')) return 'yarn tessera';
  return 'npx tessera';
}
