/**
 * deploy/k8s/*.yaml: every object validates against the Kubernetes API schemas (kubernetes-models,
 * generated from the official OpenAPI specs), and the pieces fit: the StatefulSet's selector matches
 * its pods, its serviceName is the headless Service, every pod advertises its own DNS name through
 * it, the probes hit /health, the container runs as non-root, and its `tessera start` flags are
 * accepted by the CLI. A broken manifest (a missing selector) fails the schema check.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import type { IService } from 'kubernetes-models/v1/Service';
import { Service } from 'kubernetes-models/v1/Service';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { START_OPTIONS } from '../src/cli/start.js';
import { isWildcard, parseConfig } from '../src/config.js';
import { exposure } from '../src/security/exposure.js';

const dir = new URL('../../../deploy/k8s/', import.meta.url);
const objects = readdirSync(dir)
  .filter((f) => f.endsWith('.yaml'))
  .flatMap((f) => parseAllDocuments(readFileSync(new URL(f, dir), 'utf8')).map((d) => d.toJS() as unknown))
  .filter((o): o is { kind: string; apiVersion: string } => typeof o === 'object' && o !== null);

/** The model class of each kind the manifests use; an unknown kind fails the test. */
function validate(object: { kind: string; apiVersion: string }): void {
  const key = `${object.apiVersion}/${object.kind}`;
  switch (key) {
    case 'v1/Service':
      new Service(object as IService).validate();
      return;
    case 'apps/v1/StatefulSet':
      new StatefulSet(object as IStatefulSet).validate();
      return;
    case 'policy/v1/PodDisruptionBudget':
      new PodDisruptionBudget(object as IPodDisruptionBudget).validate();
      return;
    default:
      throw new Error(`no schema for ${key} in this test: add it`);
  }
}

const ofKind = <T>(kind: string): T[] => objects.filter((o) => o.kind === kind) as T[];
const [sts] = ofKind<IStatefulSet>('StatefulSet');
const services = ofKind<IService>('Service');
const [pdb] = ofKind<IPodDisruptionBudget>('PodDisruptionBudget');

/** `$(VAR)` as Kubernetes expands it in args, for one pod. */
const expand = (arg: string, env: Record<string, string>): string =>
  arg.replace(/\$\((\w+)\)/g, (_, name: string) => env[name] ?? `$(${name})`);

describe('deploy/k8s', () => {
  it.each(objects.map((o) => [`${o.kind} ${(o as { metadata?: { name?: string } }).metadata?.name}`, o]))(
    '%s validates against the Kubernetes schema',
    (_, object) => {
      expect(() => validate(object)).not.toThrow();
    },
  );

  it('a broken manifest fails the check: a StatefulSet without a selector, a Service port without a port', () => {
    const { selector: _, ...noSelector } = sts!.spec!;
    expect(() => validate({ ...sts!, spec: noSelector } as IStatefulSet)).toThrow(/selector/);
    const svc = services[0]!;
    const broken = { ...svc, spec: { ...svc.spec, ports: [{ name: 'http' }] } };
    expect(() => validate(broken as IService)).toThrow(/port/);
  });

  it('has a StatefulSet, a headless Service for it, a client Service and a PodDisruptionBudget', () => {
    expect(sts).toBeDefined();
    const headless = services.find((s) => s.metadata?.name === sts!.spec!.serviceName);
    expect(headless?.spec?.clusterIP).toBe('None');
    expect(headless?.spec?.publishNotReadyAddresses).toBe(true);
    expect(services.some((s) => s.spec?.clusterIP !== 'None')).toBe(true);
    expect(pdb?.spec?.maxUnavailable).toBe(1);
  });

  it('selects the StatefulSet’s pods everywhere with the same labels', () => {
    const labels = sts!.spec!.template.metadata!.labels!;
    const matches = (selector: Record<string, string> | undefined): boolean =>
      selector !== undefined &&
      Object.keys(selector).length > 0 &&
      Object.entries(selector).every(([k, v]) => labels[k] === v);
    expect(matches(sts!.spec!.selector.matchLabels)).toBe(true);
    expect(matches(pdb!.spec!.selector?.matchLabels)).toBe(true);
    for (const s of services) expect(matches(s.spec?.selector)).toBe(true);
  });

  const container = sts!.spec!.template.spec!.containers[0]!;
  const portsByName = new Map((container.ports ?? []).map((p) => [p.name, p.containerPort]));

  it('probes /health on the HTTP port, runs as non-root with requests, and keeps /data on a claim', () => {
    for (const probe of [container.livenessProbe, container.readinessProbe, container.startupProbe]) {
      expect(probe?.httpGet?.path).toBe('/health');
      expect(probe?.httpGet?.port).toBe('http');
    }
    const pod = sts!.spec!.template.spec!.securityContext!;
    expect(pod.runAsNonRoot).toBe(true);
    expect(pod.runAsUser).toBeGreaterThan(0);
    expect(container.securityContext?.allowPrivilegeEscalation).toBe(false);
    expect(container.resources?.requests?.cpu).toBeDefined();
    expect(container.resources?.requests?.memory).toBeDefined();
    const claim = sts!.spec!.volumeClaimTemplates![0]!;
    expect(container.volumeMounts?.find((m) => m.name === claim.metadata!.name)?.mountPath).toBe('/data');
    for (const s of services)
      for (const p of s.spec!.ports!) expect(portsByName.get(p.targetPort as string)).toBe(p.port);
  });

  it.each(['tessera-0', 'tessera-1', 'tessera-2'])(
    'pod %s runs `tessera start` with its name as node id, advertising its own DNS name',
    (pod) => {
      const env = { POD_NAME: pod, POD_NAMESPACE: 'db' };
      expect(container.command).toEqual(['node', '/app/dist/bin/main.js']);
      const args = (container.args ?? []).map((a) => expand(a, env));
      expect(args[0]).toBe('start');
      const { values } = parseArgs({ args: args.slice(1), options: START_OPTIONS, strict: true });
      const config = parseConfig({
        nodeId: values['node-id'],
        http: values.http,
        peer: values.peer,
        advertiseHttp: values['advertise-http'],
        advertisePeer: values['advertise-peer'],
        dataDir: values['data-dir'],
        seeds: values.seed ?? [],
        // Stand-ins for the secrets' files, to check the exposure rules.
        ...(values['token-file'] === undefined ? {} : { token: 'c'.repeat(32) }),
        ...(values['admin-token-file'] === undefined ? {} : { adminToken: 'a'.repeat(32) }),
        ...(values['cluster-secret-file'] === undefined ? {} : { clusterSecret: 's'.repeat(32) }),
      });
      const dns = `${pod}.${sts!.spec!.serviceName}.db.svc.cluster.local`;
      expect(config.nodeId).toBe(pod);
      expect(config.advertiseHttp).toBe(`${dns}:${portsByName.get('http')}`);
      expect(config.advertisePeer).toBe(`${dns}:${portsByName.get('peer')}`);
      expect(isWildcard(config.http) && isWildcard(config.peer)).toBe(true);
      // Every pod seeds with tessera-0: tessera-0 itself creates the cluster, the others join it.
      expect(config.seeds).toEqual([`tessera-0.${sts!.spec!.serviceName}.db.svc.cluster.local:8000`]);
      // Reachable from other pods, so it must authenticate clients and peers (no --insecure).
      expect(config.insecure).toBe(false);
      expect(exposure(config).refusals).toEqual([]);
      for (const file of [values['token-file'], values['admin-token-file'], values['cluster-secret-file']]) {
        expect(container.volumeMounts?.some((m) => file?.startsWith(`${m.mountPath}/`))).toBe(true);
      }
    },
  );
});
