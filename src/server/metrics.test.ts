// The request metrics the server keeps itself read exactly as prom-client's own counter and
// histogram would, for the same requests.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Counter, Histogram, Registry } from 'prom-client';
import { ApiServerMetrics } from './metrics.js';
import type { RequestInfo } from './request-info.js';

const BUCKETS = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];

function info(verb: string, resource: string, namespace = 'ns'): RequestInfo {
  return { isResourceRequest: true, verb, apiGroup: '', apiVersion: 'v1', resource, subresource: '', namespace, name: '', collection: false } as unknown as RequestInfo;
}

/** The text prom-client gives for the same observations, labelled as the server labels them. */
async function reference(observations: [RequestInfo | undefined, string, number, number, boolean][]): Promise<string> {
  const registry = new Registry();
  const requests = new Counter({
    name: 'apiserver_request_total',
    help: 'Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
    labelNames: ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component', 'code'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'apiserver_request_duration_seconds',
    help: 'Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
    labelNames: ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component'],
    buckets: BUCKETS,
    registers: [registry],
  });
  for (const [i, method, code, seconds, dryRun] of observations) {
    const verb = i?.isResourceRequest ? { create: 'POST', get: 'GET', list: 'LIST', update: 'PUT' }[i.verb] ?? i.verb.toUpperCase() : method;
    const labels = {
      verb,
      dry_run: dryRun ? 'All' : '',
      group: i?.apiGroup ?? '',
      version: i?.apiVersion ?? '',
      resource: i?.resource ?? '',
      subresource: i?.subresource ?? '',
      scope: !i?.isResourceRequest ? '' : i.namespace ? 'namespace' : 'resource',
      component: 'apiserver',
    };
    requests.inc({ ...labels, code: String(code) });
    duration.observe(labels, seconds);
  }
  return registry.metrics();
}

/** The request series of the server's registry, without the metrics it has besides. */
async function served(metrics: ApiServerMetrics): Promise<string> {
  const text = await metrics.registry.metrics();
  return text
    .split('\n\n')
    .filter((block) => /^# HELP apiserver_request_(total|duration_seconds) /.test(block))
    .join('\n\n');
}

test('request counts and durations read as prom-client writes them', async () => {
  const observations: [RequestInfo | undefined, string, number, number, boolean][] = [
    [info('get', 'configmaps'), 'GET', 200, 0.0012, false],
    [info('create', 'configmaps'), 'POST', 201, 0.03, false],
    [info('get', 'configmaps'), 'GET', 404, 0.7, false],
    [info('create', 'configmaps'), 'POST', 201, 0.005, true],
    [undefined, 'GET', 200, 0.2, false],
    [info('get', 'configmaps'), 'GET', 200, 75, false],
    [info('list', 'pods', ''), 'GET', 200, 0.06, false],
    [info('get', 'configmaps'), 'GET', 200, 0.1, false],
  ];
  const metrics = new ApiServerMetrics();
  for (const [i, method, code, seconds, dryRun] of observations) metrics.observe(i, method, code, seconds, dryRun);
  const expected = (await reference(observations)).trimEnd();
  assert.match(expected, /apiserver_request_duration_seconds_bucket\{le="\+Inf",verb="GET"/);
  assert.equal(await served(metrics), expected);
});

test('nothing observed, no series', async () => {
  assert.equal(await served(new ApiServerMetrics()), (await reference([])).trimEnd());
});

test('the in-flight gauge reads the latest figure of each request kind', async () => {
  const metrics = new ApiServerMetrics();
  assert.doesNotMatch(await metrics.registry.metrics(), /apiserver_current_inflight_requests\{/);
  metrics.setInflight('readOnly', 3);
  metrics.setInflight('mutating', 1);
  metrics.setInflight('readOnly', 2);
  const text = await metrics.registry.metrics();
  assert.match(text, /^apiserver_current_inflight_requests\{request_kind="readOnly"\} 2$/m);
  assert.match(text, /^apiserver_current_inflight_requests\{request_kind="mutating"\} 1$/m);
});
