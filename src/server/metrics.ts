// The server's Prometheus metrics, named as kube-apiserver names them.
// The two per-request series are kept by the server itself (`RequestSeries`): one Map
// lookup per request finds the label set's figures, where prom-client checks and hashes the
// labels on every call; prom-client still formats them, from the same figures it would hold.
import { Counter, Gauge, Histogram, Registry, register as defaultRegistry } from 'prom-client';
import type { RequestInfo } from './request-info.js';

export class ApiServerMetrics {
  readonly registry = new Registry();
  private readonly requests: RequestCounter;
  private readonly duration: RequestDuration;
  /** Each label set seen, by its values joined. */
  private readonly series = new Map<string, RequestSeries>();
  /** The current figure per request kind, in the order first set. */
  private readonly inflightNow = new Map<string, number>();
  private readonly deprecated: Gauge<string>;
  /** Other modules' registries /metrics includes (the audit metrics). */
  private readonly others: Registry[] = [];

  constructor() {
    this.requests = new RequestCounter({
      name: 'apiserver_request_total',
      help: 'Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
      labelNames: ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component', 'code'],
      registers: [this.registry],
    });
    this.duration = new RequestDuration({
      name: 'apiserver_request_duration_seconds',
      help: 'Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
      labelNames: ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component'],
      buckets: [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60],
      registers: [this.registry],
    });
    const inflight = this.inflightNow;
    new Gauge({
      name: 'apiserver_current_inflight_requests',
      help: 'Maximal number of currently used inflight request limit of this apiserver per request kind in last second.',
      labelNames: ['request_kind'],
      registers: [this.registry],
      // Set twice per request, read once per scrape: the figures are handed over when read.
      collect() {
        for (const [kind, n] of inflight) this.set({ request_kind: kind }, n);
      },
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
    const verbLabel = KNOWN_VERBS.has(verb) ? verb : OTHER_VERB;
    const group = info?.apiGroup ?? '';
    const version = info?.apiVersion ?? '';
    const resource = info?.resource ?? '';
    const subresource = info?.subresource ?? '';
    const scope = !info?.isResourceRequest ? '' : info.namespace && !info.namespaceObject ? 'namespace' : info.collection ? 'cluster' : 'resource';
    // Label values never hold a NUL: it separates them in the key.
    const key = `${verbLabel}\0${dryRun ? 'All' : ''}\0${group}\0${version}\0${resource}\0${subresource}\0${scope}`;
    let series = this.series.get(key);
    if (!series) {
      const labels = { verb: verbLabel, dry_run: dryRun ? 'All' : '', group, version, resource, subresource, scope, component: 'apiserver' };
      series = this.duration.add(labels);
      this.series.set(key, series);
    }
    this.requests.count(series, code);
    this.duration.record(series, seconds);
  }

  setInflight(kind: 'readOnly' | 'mutating', n: number): void {
    this.inflightNow.set(kind, n);
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

type Labels = Record<string, string>;
type CounterAnswer = Awaited<ReturnType<Counter<string>['get']>>;
type HistogramAnswer = Awaited<ReturnType<Histogram<string>['get']>>;

/** One label set of the request metrics: its histogram figures and its counts by code. */
interface RequestSeries {
  readonly labels: Labels;
  count: number;
  sum: number;
  /** Observations per bucket (not cumulative); those above every bound are only in `count`. */
  readonly buckets: number[];
  readonly codes: Map<number, { labels: Labels; value: number }>;
}

/** `apiserver_request_total`, counted on the label sets the histogram keeps. */
class RequestCounter extends Counter<string> {
  /** Every label set and code, in the order first seen (prom-client's order). */
  private entries: { labels: Labels; value: number }[] = [];

  count(series: RequestSeries, code: number): void {
    let entry = series.codes.get(code);
    if (!entry) {
      entry = { labels: { ...series.labels, code: String(code) }, value: 0 };
      series.codes.set(code, entry);
      this.entries.push(entry);
    }
    entry.value++;
  }

  override async get(): Promise<CounterAnswer> {
    const answer = await super.get();
    // A zero count has not been counted since a reset: prom-client drops it too.
    return { ...answer, values: this.entries.filter((e) => e.value > 0).map((e) => ({ value: e.value, labels: { ...e.labels } })) };
  }

  override reset(): void {
    super.reset();
    // The base constructor resets before this class's fields exist.
    for (const e of (this.entries as typeof this.entries | undefined) ?? []) e.value = 0;
  }
}

/** `apiserver_request_duration_seconds`, from the figures of each label set. */
class RequestDuration extends Histogram<string> {
  private readonly bounds: number[];
  private readonly all: RequestSeries[] = [];

  private readonly config: { name: string; help: string };

  constructor(config: ConstructorParameters<typeof Histogram<string>>[0] & { buckets: number[] }) {
    super(config);
    this.config = config;
    this.bounds = [...config.buckets].sort((a, b) => a - b);
  }

  add(labels: Labels): RequestSeries {
    const series: RequestSeries = { labels, count: 0, sum: 0, buckets: this.bounds.map(() => 0), codes: new Map() };
    this.all.push(series);
    return series;
  }

  record(series: RequestSeries, seconds: number): void {
    if (!Number.isFinite(seconds)) return;
    series.count++;
    series.sum += seconds;
    const b = this.bounds;
    for (let i = 0; i < b.length; i++) {
      if (seconds <= b[i]!) {
        series.buckets[i]!++;
        return;
      }
    }
  }

  /** The shape prom-client's own histogram gives its registry: `le` first, the series' labels shared. */
  async getForPromString(): Promise<HistogramAnswer> {
    const { name, help } = this.config;
    const values: { labels: Record<string, string | number>; sharedLabels: Labels; value: number; metricName: string; exemplar?: null }[] = [];
    for (const s of this.all) {
      // Unobserved since a reset: prom-client drops such a series too.
      if (s.count === 0) continue;
      let acc = 0;
      for (let i = 0; i < this.bounds.length; i++) {
        acc += s.buckets[i]!;
        values.push({ labels: { le: this.bounds[i]! }, sharedLabels: s.labels, value: acc, metricName: `${name}_bucket`, exemplar: null });
      }
      values.push({ labels: { le: '+Inf' }, sharedLabels: s.labels, value: s.count, metricName: `${name}_bucket`, exemplar: null });
      values.push({ labels: {}, sharedLabels: s.labels, value: s.sum, metricName: `${name}_sum` });
      values.push({ labels: {}, sharedLabels: s.labels, value: s.count, metricName: `${name}_count` });
    }
    return { name, help, type: 'histogram', aggregator: 'sum', values } as unknown as HistogramAnswer;
  }

  override async get(): Promise<HistogramAnswer> {
    const answer = await this.getForPromString();
    const values = (answer.values as unknown as { labels: Record<string, string | number>; sharedLabels: Labels; value: number; metricName: string }[]).map(
      ({ sharedLabels, labels, ...rest }) => ({ ...rest, labels: { ...labels, ...sharedLabels } }),
    );
    return { ...answer, values } as HistogramAnswer;
  }

  override reset(): void {
    super.reset();
    // The base constructor resets before this class's fields exist.
    for (const s of (this.all as RequestSeries[] | undefined) ?? []) {
      s.count = 0;
      s.sum = 0;
      s.buckets.fill(0);
    }
  }
}
