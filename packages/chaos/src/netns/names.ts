/**
 * Names of what a netns network creates, unique per process and per network, so parallel runs do
 * not collide, and carrying the creating process's pid, so a later run can sweep what a crashed
 * one left behind (`sweepLeftovers`). Interface names stay within Linux's 15 characters.
 */
import { run } from './command.js';

const NS_PREFIX = 'tessera-';
const BRIDGE_PREFIX = 'tsb';
const VETH_PREFIX = 'tsv';
/** The pid part of a tag: base 36, then '_'. */
const TAG = /^([0-9a-z]+)_[0-9a-z]+/;

let created = 0;

export interface NetnsNames {
  readonly tag: string;
  readonly bridge: string;
  namespace(index: number): string;
  /** The host end of a node's veth pair (the other end is `eth0` in its namespace). */
  veth(index: number): string;
}

/** Fresh names: `tessera-<pid36>_<k36>-<index>`, bridge `tsb<pid36>_<k36>`, veth `tsv<pid36>_<k36>_<index>`. */
export function netnsNames(): NetnsNames {
  const tag = `${process.pid.toString(36)}_${(created++).toString(36)}`;
  return {
    tag,
    bridge: `${BRIDGE_PREFIX}${tag}`,
    namespace: (index) => `${NS_PREFIX}${tag}-${index}`,
    veth: (index) => `${VETH_PREFIX}${tag}_${index.toString(36)}`,
  };
}

/** Deletes namespaces and bridges (and their veths) made by processes that no longer run. */
export async function sweepLeftovers(): Promise<string[]> {
  const swept: string[] = [];
  const namespaces = (await run('ip', ['netns', 'list'])).split('\n').map((line) => line.split(' ')[0] ?? '');
  for (const ns of namespaces)
    if (ns.startsWith(NS_PREFIX) && deadOwner(ns.slice(NS_PREFIX.length))) {
      await run('ip', ['netns', 'delete', ns]).catch(() => {});
      swept.push(ns);
    }
  const links = (await run('ip', ['-o', 'link', 'show'])).split('\n').map((line) => linkName(line));
  for (const link of links)
    for (const prefix of [BRIDGE_PREFIX, VETH_PREFIX])
      if (link.startsWith(prefix) && deadOwner(link.slice(prefix.length))) {
        await run('ip', ['link', 'delete', link]).catch(() => {});
        swept.push(link);
      }
  return swept;
}

/** `3: tsb1a_0: <BROADCAST,...>` or `4: tsv1a_0_0@if3: ...` -> the name. */
function linkName(line: string): string {
  return (line.split(': ')[1] ?? '').split('@')[0] ?? '';
}

function deadOwner(tag: string): boolean {
  const match = TAG.exec(tag);
  if (match?.[1] === undefined) return false;
  const pid = Number.parseInt(match[1], 36);
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
