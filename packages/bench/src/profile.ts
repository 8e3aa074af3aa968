/**
 * Aggregates a V8 .cpuprofile (from `node --cpu-prof` or profiled-node.ts) into self and total
 * time per function and self time per module group.
 */

/** Tells profiled-node.js where to write its profile. */
export const CPU_PROF_DIR_ENV = 'TESSERA_CPU_PROF_DIR';

export interface CpuProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly children?: readonly number[];
}

export interface CpuProfile {
  readonly nodes: readonly CpuProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples?: readonly number[];
  readonly timeDeltas?: readonly number[];
}

export interface FunctionTime {
  readonly name: string;
  readonly selfUs: number;
  /** Time with this function anywhere on the stack (counted once per sample). */
  readonly totalUs: number;
}

export interface ProfileSummary {
  readonly sampledUs: number;
  /** Sampled time less V8's (idle) entry; the lists below leave idle time out. */
  readonly busyUs: number;
  /** By self time, then by total time. */
  readonly bySelf: readonly FunctionTime[];
  readonly byTotal: readonly FunctionTime[];
  /** Self time by module; native frames count for the nearest JavaScript caller's module. */
  readonly groups: readonly { readonly name: string; readonly selfUs: number }[];
}

export interface SummaryOptions {
  /** Only samples from this many seconds after the profile started… */
  readonly fromS?: number;
  /** …up to this many. */
  readonly toS?: number;
  /** Keep only functions whose label matches, for the total-time list (e.g. /packages\//). */
  readonly totalFilter?: RegExp;
}

export function functionLabel(node: CpuProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const name = functionName === '' ? '(anonymous)' : functionName;
  return url === '' ? name : `${name} ${shortUrl(url)}:${lineNumber + 1}`;
}

/** An unnamed native frame (a binding's C++ code) is named after its JavaScript caller. */
function selfLabel(node: CpuProfileNode, caller: CpuProfileNode | undefined): string {
  const { functionName, url } = node.callFrame;
  if (functionName !== '' || url !== '' || caller === undefined) return functionLabel(node);
  return `(native) from ${functionLabel(caller)}`;
}

/** Where code lives: a package in node_modules, a Tessera package, a part of Node, or a V8 entry. */
export function moduleGroup(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) {
    const path = url.slice('node:'.length).replace(/^internal\//, '');
    const part = path.split('/')[0]!.replace(/^_/, '').replace(/_.*$/, '');
    return `node:${part === 'streams' ? 'stream' : part}`;
  }
  const modules = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules !== null) return modules[1]!;
  const tessera = /packages\/([^/]+)\/(?:dist|src)\//.exec(url);
  return tessera === null ? shortUrl(url) : `@tessera/${tessera[1]}`;
}

function shortUrl(url: string): string {
  const path = url.replace(/^file:\/\//, '');
  const modules = path.lastIndexOf('node_modules/');
  if (modules >= 0) return path.slice(modules + 'node_modules/'.length);
  const packages = path.indexOf('packages/');
  return packages >= 0 ? path.slice(packages) : path;
}

export function summarizeProfile(
  profile: CpuProfile,
  options: SummaryOptions = {},
  top = 25,
): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  const groups = new Map<string, number>();
  const add = (m: Map<string, number>, k: string, us: number): void => void m.set(k, (m.get(k) ?? 0) + us);
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  const fromUs = (options.fromS ?? 0) * 1e6;
  const toUs = (options.toS ?? Number.POSITIVE_INFINITY) * 1e6;
  let atUs = 0;
  let sampledUs = 0;
  let idleUs = 0;
  for (let i = 0; i < samples.length; i++) {
    atUs += deltas[i] ?? 0;
    // A sample stands for the time until the next one.
    const us = Math.max(0, deltas[i + 1] ?? 0);
    const node = byId.get(samples[i]!);
    if (node === undefined || atUs < fromUs || atUs > toUs || us === 0) continue;
    sampledUs += us;
    if (node.callFrame.functionName === '(idle)') {
      idleUs += us;
      continue;
    }
    add(self, selfLabel(node, byId.get(parent.get(node.id) ?? -1)), us);
    const onStack = new Set<string>();
    let owner: CpuProfileNode | undefined;
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const frame = byId.get(id)!;
      onStack.add(functionLabel(frame));
      if (owner === undefined && frame.callFrame.url !== '') owner = frame;
    }
    // Native frames (a syscall, a binding) count for the JavaScript module that called them.
    const { url, functionName } = (owner ?? node).callFrame;
    add(groups, moduleGroup(url, owner === undefined ? node.callFrame.functionName : functionName), us);
    for (const label of onStack) add(total, label, us);
  }
  // Renamed native frames are leaves: their total is their self time.
  const entry = (name: string): FunctionTime => ({
    name,
    selfUs: self.get(name) ?? 0,
    totalUs: total.get(name) ?? self.get(name) ?? 0,
  });
  const ranked = (m: Map<string, number>, keep: (name: string) => boolean) =>
    [...m]
      .filter(([name]) => keep(name))
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name]) => entry(name));
  const filter = options.totalFilter;
  return {
    sampledUs,
    busyUs: sampledUs - idleUs,
    bySelf: ranked(self, () => true),
    byTotal: ranked(total, (name) => name !== '(root)' && (filter === undefined || filter.test(name))),
    groups: [...groups].sort((a, b) => b[1] - a[1]).map(([name, selfUs]) => ({ name, selfUs })),
  };
}
