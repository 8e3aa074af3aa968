/**
 * The Grafana dashboard and the Prometheus alert rules in deploy/ name only metrics a running node
 * exports, and the node's metrics follow Prometheus's naming conventions (issue 16, item 6).
 * `promtool check rules` and `promtool test rules`: deploy/prometheus/check-rules.sh.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { http, startCluster, type TestCluster } from './helpers.js';

const root = new URL('../../../', import.meta.url);
const DASHBOARD = 'deploy/grafana/tessera-dashboard.json';
const ALERTS = 'deploy/prometheus/alerts.yml';

/** Every string value under a key named `expr` or `query` (panels, rows, template variables). */
function queriesOf(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const item of node) queriesOf(item, out);
  else if (typeof node === 'object' && node !== null) {
    for (const [key, value] of Object.entries(node)) {
      if ((key === 'expr' || key === 'query' || key === 'definition') && typeof value === 'string')
        out.push(value);
      else queriesOf(value, out);
    }
  }
  return out;
}

function dashboardQueries(): string[] {
  return queriesOf(JSON.parse(readFileSync(new URL(DASHBOARD, root), 'utf8')));
}

interface RuleFile {
  groups: { name: string; rules: { alert?: string; record?: string; expr: string }[] }[];
}

function alertRules(): RuleFile['groups'][number]['rules'] {
  const file = parse(readFileSync(new URL(ALERTS, root), 'utf8')) as RuleFile;
  return file.groups.flatMap((g) => g.rules);
}

function tesseraNames(exprs: readonly string[]): Set<string> {
  return new Set(exprs.flatMap((e) => e.match(/\btessera_[a-zA-Z0-9_]+/g) ?? []));
}

/** `# TYPE name type` of the exposition text. */
function typesOf(text: string): Map<string, string> {
  const types = new Map<string, string>();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) types.set(name!, type!);
  return types;
}

/** The family a sample name belongs to: a histogram's `_bucket`, `_sum` and `_count` are its own. */
function familyOf(name: string, types: ReadonlyMap<string, string>): string {
  const m = /^(.*)_(bucket|sum|count)$/.exec(name);
  return m !== null && (types.get(m[1]!) === 'histogram' || types.get(m[1]!) === 'summary') ? m[1]! : name;
}

describe('metrics named by deploy/ exist on a running node', () => {
  let cluster: TestCluster;
  let text: string;
  let types: Map<string, string>;

  beforeAll(async () => {
    cluster = await startCluster(1);
    const reply = await http(cluster.nodes[0]!.url, 'GET', '/metrics');
    expect(reply.status).toBe(200);
    text = String(reply.body.text);
    types = typesOf(text);
  }, 20_000);

  afterAll(async () => {
    await cluster?.destroy();
  });

  it('the dashboard names only exported metrics', () => {
    const names = tesseraNames(dashboardQueries());
    expect(names.size, 'metrics named by the dashboard').toBeGreaterThan(20);
    const missing = [...names].filter((n) => !types.has(familyOf(n, types)));
    expect(missing, `not on /metrics: ${missing.join(', ')}`).toEqual([]);
  });

  it('the alert rules name only exported metrics, and each alert has a severity and a summary', () => {
    const rules = alertRules();
    const names = tesseraNames(rules.map((r) => r.expr));
    expect(names.size, 'metrics named by the alert rules').toBeGreaterThan(8);
    const missing = [...names].filter((n) => !types.has(familyOf(n, types)));
    expect(missing, `not on /metrics: ${missing.join(', ')}`).toEqual([]);
    const alerts = rules.map((r) => r.alert);
    for (const wanted of [
      'TesseraNodeDown',
      'TesseraPeersDown',
      'TesseraHintsGrowing',
      'TesseraRequestLatencyHigh',
      'TesseraEventLoopDelayHigh',
      'TesseraStrongSweepFailures',
      'TesseraJoinAbandoned',
    ])
      expect(alerts).toContain(wanted);
    const parsed = parse(readFileSync(new URL(ALERTS, root), 'utf8')) as {
      groups: { rules: { labels?: { severity?: string }; annotations?: { summary?: string } }[] }[];
    };
    for (const rule of parsed.groups.flatMap((g) => g.rules)) {
      expect(rule.labels?.severity).toMatch(/^(critical|warning)$/);
      expect(rule.annotations?.summary).toBeTruthy();
    }
  });

  it('follows the naming conventions: counters end in _total, no doubled prefix', () => {
    expect(types.size).toBeGreaterThan(40);
    const counters = [...types].filter(([, t]) => t === 'counter').map(([n]) => n);
    expect(counters.filter((n) => !n.endsWith('_total'))).toEqual([]);
    expect([...types.keys()].filter((n) => !n.startsWith('tessera_'))).toEqual([]);
    expect(text).not.toContain('process_process');
    // Ours (not prom-client's defaults): a gauge never looks like a counter.
    const ownGauges = [...types].filter(([n, t]) => t === 'gauge' && !n.startsWith('tessera_nodejs_'));
    expect(ownGauges.filter(([n]) => n.endsWith('_total')).map(([n]) => n)).toEqual([]);
  });

  it('exports the families of issue 16 with values', () => {
    for (const family of [
      'tessera_build_info',
      'tessera_event_loop_delay_seconds',
      'tessera_event_loop_delay_max_seconds',
      'tessera_peer_request_duration_seconds',
      'tessera_peer_errors_total',
      'tessera_anti_entropy_exchanges_total',
      'tessera_anti_entropy_keys_total',
      'tessera_anti_entropy_oldest_sync_age_seconds',
      'tessera_tombstones_collected_total',
      'tessera_transfers_pending',
      'tessera_transfer_keys_received_total',
      'tessera_hints_oldest_age_seconds',
      'tessera_handoff_hints_total',
      'tessera_background_work_total',
      'tessera_storage_disk_bytes',
      'tessera_process_cpu_seconds_total',
    ])
      expect(types.has(family), family).toBe(true);
    expect(text).toMatch(/^tessera_build_info\{version="\d+\.\d+\.\d+[^"]*",node="v\d+[^"]*"\} 1$/m);
    expect(types.get('tessera_event_loop_delay_seconds')).toBe('histogram');
    expect(text).toMatch(/^tessera_event_loop_delay_seconds_bucket\{le="0\.01"\} \d/m);
    // A node with storage on disk reports its size.
    expect(Number(/^tessera_storage_disk_bytes (\S+)$/m.exec(text)?.[1])).toBeGreaterThan(0);
  });
});
