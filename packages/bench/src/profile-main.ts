#!/usr/bin/env node
/**
 * `node packages/bench/dist/profile-main.js FILE.cpuprofile… [--top 25] [--from-s S] [--to-s S]`:
 * prints where a node's CPU time went, as Markdown tables: self time by module, self time by
 * function, and total (inclusive) time of Tessera's own functions. Shares are of busy time (idle excluded).
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { formatPercent, renderTable } from './format.js';
import { type CpuProfile, type FunctionTime, summarizeProfile } from './profile.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    top: { type: 'string', default: '25' },
    'from-s': { type: 'string' },
    'to-s': { type: 'string' },
  },
});
if (positionals.length === 0) {
  process.stderr.write(
    'Usage: node packages/bench/dist/profile-main.js FILE.cpuprofile… [--top 25] [--from-s S] [--to-s S]\n',
  );
  process.exit(2);
}
const seconds = (v: string | undefined) => (v === undefined ? {} : { value: Number(v) });
for (const file of positionals) {
  const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
  const from = seconds(values['from-s']).value;
  const to = seconds(values['to-s']).value;
  const summary = summarizeProfile(
    profile,
    {
      ...(from === undefined ? {} : { fromS: from }),
      ...(to === undefined ? {} : { toS: to }),
      totalFilter: /packages\//,
    },
    Number(values.top),
  );
  const busy = summary.busyUs;
  const ms = (us: number) => (us / 1000).toFixed(0);
  const share = (us: number) => formatPercent(busy > 0 ? us / busy : 0);
  const fnRows = (list: readonly FunctionTime[]) =>
    list.map((f) => [f.name, ms(f.selfUs), share(f.selfUs), ms(f.totalUs), share(f.totalUs)]);
  const fnHeader = ['function', 'self ms', 'self %', 'total ms', 'total %'];
  process.stdout.write(
    [
      `## ${file}`,
      '',
      `Profile ${((profile.endTime - profile.startTime) / 1e6).toFixed(1)} s; analysed ${(summary.sampledUs / 1e6).toFixed(1)} s, ` +
        `of which busy (not idle) ${(busy / 1e6).toFixed(1)} s. Shares below are of busy time.`,
      '',
      '### Self time by module',
      '',
      renderTable(
        ['module', 'self ms', 'self %'],
        summary.groups.slice(0, Number(values.top)).map((g) => [g.name, ms(g.selfUs), share(g.selfUs)]),
        new Set([1, 2]),
      ),
      '',
      '### Self time by function',
      '',
      renderTable(fnHeader, fnRows(summary.bySelf), new Set([1, 2, 3, 4])),
      '',
      "### Total time of Tessera's functions",
      '',
      renderTable(fnHeader, fnRows(summary.byTotal), new Set([1, 2, 3, 4])),
      '',
    ].join('\n'),
  );
}
