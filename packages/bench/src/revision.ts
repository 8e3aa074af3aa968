/** Which code was measured: the git commit of the repository and whether core or server had local changes. */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));

export interface Revision {
  /** The commit, or `unknown` outside a git checkout. */
  readonly commit: string;
  /** True when packages/core or packages/server differ from that commit. */
  readonly dirty: boolean;
}

export async function currentRevision(): Promise<Revision> {
  try {
    const git = (args: string[]) => run('git', args, { cwd: REPO_ROOT, timeout: 5_000 });
    const head = await git(['rev-parse', '--short=12', 'HEAD']);
    const status = await git(['status', '--porcelain', '--', 'packages/core', 'packages/server']);
    return { commit: head.stdout.trim(), dirty: status.stdout.trim().length > 0 };
  } catch {
    return { commit: 'unknown', dirty: false };
  }
}
