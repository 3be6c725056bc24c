// The pure rules of the aggregation layer: endpoint resolution, the Available condition's
// reasons and messages, the front-proxy headers, paths, and the flags.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseFlags } from '../apimachinery/flags.js';
import { aggregatedFromLegacy } from '../server/discovery.js';
import { availabilityAfterCheck, availabilityBeforeCheck, parseAPIService, resolveEndpoint, withCondition } from './apiservice.js';
import { aggregatorFlagDefinitions, frontProxyFromFlags } from './flags.js';
import { droppedHeaders, identityHeaders } from './front-proxy.js';
import { groupVersionOf, hasDotSegment } from './proxy.js';

const apiService = (service?: Record<string, unknown>) =>
  parseAPIService({ apiVersion: 'x/v1', kind: 'APIService', metadata: { name: 'v1.g.io' }, spec: { group: 'g.io', version: 'v1', groupPriorityMinimum: 10, versionPriority: 5, ...(service ? { service } : {}) } });
const svc = (ports: Record<string, unknown>[], type?: string) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's', namespace: 'n' }, spec: { ports, ...(type ? { type } : {}) } });
const eps = (subsets: unknown[]) => ({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 's', namespace: 'n' }, subsets });

describe('availability before the discovery check', () => {
  const remote = apiService({ namespace: 'n', name: 's' });
  const cases: [string, ReturnType<typeof svc> | undefined, ReturnType<typeof eps> | undefined, string | undefined, string | undefined][] = [
    ['no service', undefined, undefined, 'ServiceNotFound', 'service/s in "n" is not present'],
    ['wrong port', svc([{ port: 8443 }]), undefined, 'ServicePortError', 'service/s in "n" is not listening on port 443'],
    ['no endpoints', svc([{ port: 443 }]), undefined, 'EndpointsNotFound', 'cannot find endpoints for service/s in "n"'],
    ['empty endpoints', svc([{ port: 443, name: 'https' }]), eps([{ notReadyAddresses: [{ ip: '10.0.0.1' }], ports: [{ name: 'https', port: 1 }] }]), 'MissingEndpoints', 'endpoints for service/s in "n" have no addresses with port name "https"'],
    ['port name mismatch', svc([{ port: 443, name: 'https' }]), eps([{ addresses: [{ ip: '10.0.0.1' }], ports: [{ name: 'other', port: 1 }] }]), 'MissingEndpoints', 'endpoints for service/s in "n" have no addresses with port name "https"'],
    ['ExternalName skips endpoints', svc([{ port: 443 }], 'ExternalName'), undefined, undefined, undefined],
    ['ready', svc([{ port: 443 }]), eps([{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 8443 }] }]), undefined, undefined],
  ];
  for (const [what, service, endpoints, reason, message] of cases) {
    it(what, () => {
      const a = availabilityBeforeCheck(remote, service, endpoints);
      assert.equal(a?.reason, reason);
      assert.equal(a?.message, message);
      if (a) assert.equal(a.status, 'False');
    });
  }
  it('a local APIService is always available', () => {
    assert.deepEqual(availabilityBeforeCheck(apiService(), undefined, undefined), { status: 'True', reason: 'Local', message: 'Local APIServices are always available' });
  });
  it('after the check: Passed, or FailedDiscoveryCheck naming the URL', () => {
    assert.equal(availabilityAfterCheck('https://x/apis/g/v', undefined).reason, 'Passed');
    assert.deepEqual(availabilityAfterCheck('https://x/apis/g/v', 'connect ECONNREFUSED'), { status: 'False', reason: 'FailedDiscoveryCheck', message: 'failing or missing response from https://x/apis/g/v: connect ECONNREFUSED' });
  });
  it('keeps lastTransitionTime while the status stays', () => {
    const o = { apiVersion: 'x/v1', kind: 'APIService', metadata: { name: 'v1.g.io' }, status: { conditions: [{ type: 'Available', status: 'False', lastTransitionTime: '2020-01-01T00:00:00Z', reason: 'A', message: 'a' }] } };
    const same = withCondition(o, { status: 'False', reason: 'B', message: 'b' }, new Date('2024-01-01T00:00:00Z'));
    assert.equal((same.status as { conditions: { lastTransitionTime: string }[] }).conditions[0]!.lastTransitionTime, '2020-01-01T00:00:00Z');
    const moved = withCondition(o, { status: 'True', reason: 'Passed', message: 'all checks passed' }, new Date('2024-01-01T00:00:00Z'));
    assert.equal((moved.status as { conditions: { lastTransitionTime: string }[] }).conditions[0]!.lastTransitionTime, '2024-01-01T00:00:00Z');
  });
});

describe('endpoint resolution', () => {
  const ref = { namespace: 'n', name: 's', port: 443 };
  it('goes to a ready address on the port carrying the service port name', () => {
    const r = resolveEndpoint(ref, svc([{ port: 80, name: 'http' }, { port: 443, name: 'https' }]), eps([{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }], notReadyAddresses: [{ ip: '10.0.0.9' }], ports: [{ name: 'http', port: 8080 }, { name: 'https', port: 8443 }] }]), () => 1);
    assert.deepEqual(r, { ok: true, host: '10.0.0.2', port: 8443 });
  });
  it("answers kube's messages otherwise", () => {
    assert.deepEqual(resolveEndpoint(ref, undefined, undefined), { ok: false, message: 'service "s" not found' });
    assert.deepEqual(resolveEndpoint(ref, svc([{ port: 1 }]), undefined), { ok: false, message: 'no service port 443 found for service "s"' });
    assert.deepEqual(resolveEndpoint(ref, svc([{ port: 443 }]), eps([])), { ok: false, message: 'no endpoints available for service "s"' });
  });
  it('a hostile pick stays within the choices', () => {
    const r = resolveEndpoint(ref, svc([{ port: 443 }]), eps([{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 1 }] }]), () => 99);
    assert.deepEqual(r, { ok: true, host: '10.0.0.1', port: 1 });
  });
});

describe('front-proxy headers and paths', () => {
  it('sends the caller as X-Remote-* and drops credentials and forged headers', () => {
    assert.deepEqual(identityHeaders({ username: 'jane', groups: ['a', 'b'], extra: { 'scopes.example.com/x y': ['1', '2'] } }), {
      'x-remote-user': 'jane',
      'x-remote-group': ['a', 'b'],
      'x-remote-extra-scopes.example.com%2fx%20y': ['1', '2'],
    });
    assert.deepEqual(droppedHeaders(['Authorization', 'Impersonate-User', 'X-Remote-User', 'X-Remote-Extra-Foo', 'Accept']), ['authorization', 'impersonate-user', 'x-remote-user', 'x-remote-extra-foo']);
  });
  it('finds the group-version of a path and dot segments, encoded or not', () => {
    assert.deepEqual(groupVersionOf('/apis/g.io/v1/namespaces/x'), { group: 'g.io', version: 'v1' });
    assert.equal(groupVersionOf('/apis/g.io'), undefined);
    assert.equal(groupVersionOf('/api/v1'), undefined);
    for (const p of ['/apis/g/v/..', '/apis/g/v/%2e%2E/x', '/apis/g/v/./x']) assert.equal(hasDotSegment(p), true, p);
    for (const p of ['/apis/g/v/a..b', '/apis/g/v/%zz']) assert.equal(hasDotSegment(p), false, p);
  });
});

describe('aggregated discovery from a legacy resource list', () => {
  it('nests subresources and skips hostile entries', () => {
    const out = aggregatedFromLegacy('g.io', 'v1', [
      { name: 'things', singularName: 'thing', namespaced: true, kind: 'Thing', verbs: ['get', 7], shortNames: ['th'] },
      { name: 'things/status', kind: 'Thing', verbs: ['get'] },
      { name: 'orphans/status', kind: 'X', verbs: [] },
      { name: 42 },
      null,
      JSON.parse('{"name":"__proto__","kind":"P","verbs":[]}'),
    ]);
    assert.deepEqual(out[0], {
      resource: 'things',
      responseKind: { group: 'g.io', version: 'v1', kind: 'Thing' },
      scope: 'Namespaced',
      singularResource: 'thing',
      verbs: ['get'],
      shortNames: ['th'],
      subresources: [{ subresource: 'status', responseKind: { group: 'g.io', version: 'v1', kind: 'Thing' }, verbs: ['get'] }],
    });
    assert.equal(out.length, 2);
    assert.equal(out[1]!.resource, '__proto__');
  });
});

describe('aggregator flags', () => {
  const files = { clientCert: '/nonexistent/c.crt', clientKey: '/nonexistent/c.key', ca: '/nonexistent/ca.crt', clientCA: 'pem', clientCommonName: 'front-proxy-client' };
  const parse = (args: string[]) => parseFlags(args, aggregatorFlagDefinitions);
  it('refuses --enable-aggregator-routing=false, a lone cert or key, and unreadable files, naming the flag', () => {
    assert.throws(() => frontProxyFromFlags(parse(['--enable-aggregator-routing=false']), files), /^Error: --enable-aggregator-routing: /);
    assert.throws(() => frontProxyFromFlags(parse(['--proxy-client-cert-file=/x']), files), /--proxy-client-cert-file and --proxy-client-key-file must be given together/);
    assert.throws(() => frontProxyFromFlags(parse(['--proxy-client-cert-file=/nope', '--proxy-client-key-file=/nope']), files), /^Error: --proxy-client-cert-file: cannot read "\/nope"/);
  });
});
