// The server's Prometheus metrics, named as kube-apiserver names them.
import { Counter, Gauge, Histogram, Registry, register as defaultRegistry } from 'prom-client';
import type { RequestInfo } from './request-info.js';

export class ApiServerMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<string>;
  private readonly duration: Histogram<string>;
  private readonly inflight: Gauge<string>;
  private readonly deprecated: Gauge<string>;
  /** Other modules' registries /metrics includes (the audit metrics). */
  private readonly others: Registry[] = [];

  constructor() {
    this.requests = new Counter({
      name: 'apiserver_request_total',
      help: 'Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
      labelNames: ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component', 'code'],
      registers: [this.registry],
    });
    this.duration = new Histogram({
      name: 'apiserver_request_duration_seconds',
      help: 'Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
      labelNames: ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component'],
      buckets: [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60],
      registers: [this.registry],
    });
    this.inflight = new Gauge({
      name: 'apiserver_current_inflight_requests',
      help: 'Maximal number of currently used inflight request limit of this apiserver per request kind in last second.',
      labelNames: ['request_kind'],
      registers: [this.registry],
    });
    this.deprecated = new Gauge({
      name: 'apiserver_requested_deprecated_apis',
      help: 'Gauge of deprecated APIs that have been requested, broken out by API group, version, resource, subresource, and removed_release.',
      labelNames: ['group', 'version', 'resource', 'subresource', 'removed_release'],
      registers: [this.registry],
    });
  }

  /** Labels come only from bounded sets: the caller passes a RequestInfo naming served resources only. */
  observe(info: RequestInfo | undefined, method: string, code: number, seconds: number, dryRun: boolean): void {
    const verb = verbForMetrics((info?.isResourceRequest ? info.verb : method).toUpperCase());
    const labels = {
      verb: KNOWN_VERBS.has(verb) ? verb : OTHER_VERB,
      dry_run: dryRun ? 'All' : '',
      group: info?.apiGroup ?? '',
      version: info?.apiVersion ?? '',
      resource: info?.resource ?? '',
      subresource: info?.subresource ?? '',
      scope: !info?.isResourceRequest ? '' : info.namespace && info.resource !== 'namespaces' ? 'namespace' : info.collection ? 'cluster' : 'resource',
      component: 'apiserver',
    };
    this.requests.inc({ ...labels, code: String(code) });
    this.duration.observe(labels, seconds);
  }

  setInflight(kind: 'readOnly' | 'mutating', n: number): void {
    this.inflight.set({ request_kind: kind }, n);
  }

  deprecatedRequest(group: string, version: string, resource: string, subresource: string, removedRelease: string): void {
    this.deprecated.set({ group, version, resource, subresource, removed_release: removedRelease }, 1);
  }

  addRegistry(registry: Registry): void {
    this.others.push(registry);
  }

  /**
   * `kubernetes_feature_enabled`: one series per known feature gate, 1 when on. The stage is
   * the gate's pre-release label, empty for GA gates, as the Kubernetes components report it.
   */
  recordFeatures(gates: { name: string; stage: string; enabled: boolean }[]): void {
    const gauge = new Gauge({
      name: 'kubernetes_feature_enabled',
      help: 'This metric records the data about the stage and enablement of a k8s feature.',
      labelNames: ['name', 'stage'],
      registers: [this.registry],
    });
    for (const g of gates) gauge.set({ name: g.name, stage: g.stage === 'GA' ? '' : g.stage }, g.enabled ? 1 : 0);
  }

  /** The server's own metrics plus those other modules record in prom-client's default registry (admission webhooks). */
  async text(): Promise<{ contentType: string; body: string }> {
    const merged = Registry.merge([this.registry, ...this.others, defaultRegistry]);
    return { contentType: merged.contentType, body: await merged.metrics() };
  }
}

/** The verbs kube-apiserver reports; any other method is counted as "other". */
const KNOWN_VERBS = new Set(['APPLY', 'CONNECT', 'CREATE', 'DELETE', 'DELETECOLLECTION', 'GET', 'HEAD', 'LIST', 'OPTIONS', 'PATCH', 'POST', 'PROXY', 'PUT', 'UPDATE', 'WATCH', 'WATCHLIST']);
const OTHER_VERB = 'other';

function verbForMetrics(verb: string): string {
  switch (verb) {
    case 'CREATE':
      return 'POST';
    case 'UPDATE':
      return 'PUT';
    case 'DELETE':
      return 'DELETE';
    case 'PATCH':
      return 'PATCH';
    case 'GET':
      return 'GET';
    default:
      return verb;
  }
}
