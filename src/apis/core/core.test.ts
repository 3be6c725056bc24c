import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { FieldError } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { setFlavor } from '../../naming/index.js';
import { strategyOf } from '../../testing/apis.js';
import { namespaceFinalize } from './namespace.js';
import { validateObjectMeta } from '../../registry/objectmeta.js';
import type { Strategy } from '../../rest/index.js';

/** The Store's ObjectMeta findings with the kind's name rule (where name errors are reported). */
function metaErrors(s: Strategy, o: KubeObject, namespaced: boolean): FieldError[] {
  return validateObjectMeta(o.metadata ?? {}, namespaced, (name, prefix) => s.validateName?.(name, prefix) ?? []);
}

const rendered = (errs: FieldError[]): string[] => errs.map((e) => `${e.field}: ${e.detail}`);

describe('namespaces', () => {
  afterEach(() => setFlavor('orch'));

  it('start Active with the namespace finalizer and their name label', () => {
    for (const [flavor, finalizer, label] of [
      ['orch', 'orch', 'orch.io/metadata.name'],
      ['kubernetes', 'kubernetes', 'kubernetes.io/metadata.name'],
    ] as const) {
      setFlavor(flavor);
      const s = strategyOf('', 'namespaces');
      const ns: KubeObject = { metadata: { name: 'team-a' }, spec: { finalizers: ['example.com/x'] }, status: { phase: 'Terminating' } };
      s.defaults(ns);
      s.prepareForCreate(ns);
      assert.deepEqual(ns.status, { phase: 'Active' });
      assert.deepEqual(ns.spec, { finalizers: ['example.com/x', finalizer] });
      assert.equal(ns.metadata?.labels?.[label], 'team-a');
      assert.deepEqual(s.validate(ns), []);
    }
  });

  it('need DNS label names and keep spec.finalizers on update', () => {
    const s = strategyOf('', 'namespaces');
    // A valid subdomain that is not a label can only be wrong by its dots (Kubernetes 1.27 says so).
    assert.deepEqual(rendered(metaErrors(s, { metadata: { name: 'a.b' } }, false)), ['metadata.name: Invalid value: "a.b": must not contain dots']);
    assert.deepEqual(rendered(metaErrors(s, { metadata: { name: 'A_b' } }, false)), [
      `metadata.name: Invalid value: "A_b": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
    ]);
    const old: KubeObject = { metadata: { name: 'a' }, spec: { finalizers: ['orch'] }, status: { phase: 'Active' } };
    const now: KubeObject = { metadata: { name: 'a' }, spec: { finalizers: [] } };
    s.prepareForUpdate(now, old);
    assert.deepEqual(now.spec, { finalizers: ['orch'] });
    assert.deepEqual(now.status, { phase: 'Active' });
    assert.deepEqual(rendered(s.validate({ metadata: { name: 'a' }, spec: { finalizers: ['custom'] } })), [
      'spec.finalizers[0]: Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified',
    ]);
  });

  it('change only spec.finalizers through finalize', () => {
    const old: KubeObject = { metadata: { name: 'a', labels: { x: '1' } }, spec: { finalizers: ['orch'] }, status: { phase: 'Terminating' } };
    const now: KubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a', labels: { x: '2' } }, spec: { finalizers: [] }, status: { phase: 'Active' } };
    namespaceFinalize.prepareForUpdate(now, old, new Date());
    assert.deepEqual(now, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a', labels: { x: '1' } }, spec: { finalizers: [] }, status: { phase: 'Terminating' } });
  });
});

describe('services', () => {
  const s = strategyOf('', 'services');
  const svc = (spec: Record<string, unknown>): KubeObject => ({ metadata: { name: 'web', namespace: 'd' }, spec });

  it('default type, affinity, protocol and target port', () => {
    const o = svc({ ports: [{ port: 80 }, { port: 443, targetPort: 'https', protocol: 'TCP' }], selector: { app: 'web' } });
    s.defaults(o);
    assert.deepEqual(o.spec, {
      type: 'ClusterIP',
      sessionAffinity: 'None',
      internalTrafficPolicy: 'Cluster',
      selector: { app: 'web' },
      ports: [
        { port: 80, protocol: 'TCP', targetPort: 80 },
        { port: 443, targetPort: 'https', protocol: 'TCP' },
      ],
    });
    const np = svc({ type: 'NodePort', sessionAffinity: 'ClientIP', ports: [{ port: 80 }] });
    s.defaults(np);
    assert.equal((np.spec as Record<string, unknown>).externalTrafficPolicy, 'Cluster');
    assert.deepEqual((np.spec as Record<string, unknown>).sessionAffinityConfig, { clientIP: { timeoutSeconds: 10800 } });
  });

  it('validate ports and names', () => {
    const ok = svc({ ports: [{ port: 80 }] });
    s.defaults(ok);
    assert.deepEqual(s.validate(ok), []);
    const none = svc({});
    s.defaults(none);
    assert.deepEqual(rendered(s.validate(none)), ['spec.ports: Required value']);
    const bad = svc({ ports: [{ port: 0 }, { port: 81, name: 'b' }] });
    s.defaults(bad);
    assert.deepEqual(rendered(s.validate(bad)), [
      'spec.ports[0].name: Required value',
      'spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive',
      // The target port defaults to the port, so it is reported too.
      'spec.ports[0].targetPort: Invalid value: 0: must be between 1 and 65535, inclusive',
    ]);
    const badName: KubeObject = { metadata: { name: '1web', namespace: 'd' }, spec: { type: 'ClusterIP', sessionAffinity: 'None', ports: [{ port: 1, protocol: 'TCP' }] } };
    assert.match(rendered(metaErrors(s, badName, true))[0], /^metadata.name: Invalid value: "1web": a DNS-1035 label must consist of/);
    const headless = svc({ clusterIP: 'None', clusterIPs: ['None'] });
    s.defaults(headless);
    assert.deepEqual(s.validate(headless), []);
  });

  it('validate cluster IP fields', () => {
    const mismatch = svc({ ports: [{ port: 80 }], clusterIP: '10.0.0.5', clusterIPs: ['10.0.0.6'] });
    s.defaults(mismatch);
    assert.deepEqual(rendered(s.validate(mismatch)), ['spec.clusterIPs: Invalid value: []string{"10.0.0.6"}: first value must match `clusterIP`']);
    const bad = svc({ ports: [{ port: 80 }], clusterIP: 'ten', clusterIPs: ['ten'], ipFamilies: ['IPv5'], ipFamilyPolicy: 'Maybe' });
    s.defaults(bad);
    assert.deepEqual(rendered(s.validate(bad)), [
      'spec.ipFamilies[0]: Unsupported value: "IPv5": supported values: "IPv4", "IPv6"',
      'spec.ipFamilyPolicy: Unsupported value: "Maybe": supported values: "PreferDualStack", "RequireDualStack", "SingleStack"',
      'spec.clusterIPs[0]: Invalid value: "ten": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
    ]);
    const old = svc({ ports: [{ port: 80 }], clusterIP: '10.0.0.5', clusterIPs: ['10.0.0.5'], ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack' });
    s.defaults(old);
    const moved = structuredClone(old);
    Object.assign(moved.spec as object, { clusterIP: '10.0.0.7', clusterIPs: ['10.0.0.7'] });
    assert.deepEqual(rendered(s.validateUpdate(moved, old)), ['spec.clusterIPs[0]: Invalid value: []string{"10.0.0.7"}: may not change once set']);
    const ext = svc({ type: 'ExternalName', externalName: 'example.com', clusterIP: '10.0.0.5', clusterIPs: ['10.0.0.5'], ipFamilyPolicy: 'SingleStack' });
    s.defaults(ext);
    assert.deepEqual(rendered(s.validate(ext)), [
      'spec.clusterIPs: Forbidden: may not be set for ExternalName services',
      'spec.ipFamilyPolicy: Forbidden: may not be set for ExternalName services',
    ]);
  });
});

describe('config maps and secrets', () => {
  const cms = strategyOf('', 'configmaps');
  const secrets = strategyOf('', 'secrets');

  it('check keys', () => {
    assert.deepEqual(cms.validate({ metadata: { name: 'c', namespace: 'd' }, data: { 'a.b-c_D': 'x' } }), []);
    assert.deepEqual(rendered(cms.validate({ metadata: { name: 'c', namespace: 'd' }, data: { 'a b': 'x', ok: '1' }, binaryData: { ok: 'AA==' } })), [
      `data[a b]: Invalid value: "a b": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`,
      'binaryData[ok]: Invalid value: "ok": duplicate of key present in data',
    ]);
    assert.deepEqual(rendered(cms.validate({ metadata: { name: 'c', namespace: 'd' }, data: { '..': 'x' } })).length, 1);
    const big = { metadata: { name: 'c', namespace: 'd' }, data: { a: 'x'.repeat(1024 * 1024 + 1) } };
    assert.deepEqual(rendered(cms.validate(big)), [': Too long: must have at most 1048576 bytes']);
  });

  it('refuse changes once immutable', () => {
    const old: KubeObject = { metadata: { name: 'c', namespace: 'd' }, immutable: true, data: { a: '1' } };
    assert.deepEqual(cms.validateUpdate({ ...old }, old), []);
    assert.deepEqual(rendered(cms.validateUpdate({ ...old, data: { a: '2' } }, old)), ['data: Forbidden: field is immutable when `immutable` is set']);
    assert.deepEqual(rendered(cms.validateUpdate({ ...old, immutable: false }, old)), ['immutable: Forbidden: field is immutable when `immutable` is set']);
    const mutable: KubeObject = { metadata: { name: 'c', namespace: 'd' }, data: { a: '1' } };
    assert.deepEqual(cms.validateUpdate({ ...mutable, immutable: true, data: { a: '3' } }, mutable), []);
  });

  it('secrets default to Opaque, check their type rules and keep their type', () => {
    const s: KubeObject = { metadata: { name: 's', namespace: 'd' }, data: { a: 'YQ==' } };
    secrets.defaults(s);
    assert.equal(s.type, 'Opaque');
    assert.deepEqual(secrets.validate(s), []);
    assert.deepEqual(rendered(secrets.validate({ metadata: { name: 't', namespace: 'd' }, type: 'orch.io/tls', data: { 'tls.crt': 'eA==' } })), ['data[tls.key]: Required value']);
    assert.deepEqual(rendered(secrets.validate({ metadata: { name: 't', namespace: 'd' }, type: 'orch.io/service-account-token' })), [
      'metadata.annotations[orch.io/service-account.name]: Required value',
    ]);
    assert.deepEqual(rendered(secrets.validateUpdate({ ...s, type: 'other' }, s)), ['type: Invalid value: "other": field is immutable']);
    assert.deepEqual(secrets.selectableFields(s), { 'metadata.name': 's', 'metadata.namespace': 'd', type: 'Opaque' });
  });
});

describe('secret stringData', () => {
  const secrets = strategyOf('', 'secrets');
  const b64 = (v: string): string => Buffer.from(v, 'utf8').toString('base64');

  it('is folded into data, base64-encoded, winning over a key in both', () => {
    const s: KubeObject = { metadata: { name: 's', namespace: 'd' }, data: { a: b64('old'), b: b64('b') }, stringData: { a: 'new', c: 'é' } };
    secrets.defaults(s);
    assert.equal(s.stringData, undefined);
    assert.deepEqual(s.data, { a: b64('new'), b: b64('b'), c: b64('é') });
    assert.deepEqual(secrets.validate(s), []);
    const only: KubeObject = { metadata: { name: 's', namespace: 'd' }, stringData: { 'tls.crt': 'c', 'tls.key': 'k' }, type: 'orch.io/tls' };
    secrets.defaults(only);
    assert.deepEqual(only.data, { 'tls.crt': b64('c'), 'tls.key': b64('k') });
    assert.deepEqual(secrets.validate(only), []);
    const empty: KubeObject = { metadata: { name: 's', namespace: 'd' }, stringData: {} };
    secrets.defaults(empty);
    assert.deepEqual(Object.keys(empty).sort(), ['metadata', 'type']);
  });

  it('keys are checked as data keys; the size limit counts the folded data and is reported on data', () => {
    const bad: KubeObject = { metadata: { name: 's', namespace: 'd' }, stringData: { 'a b': 'x' } };
    secrets.defaults(bad);
    assert.deepEqual(rendered(secrets.validate(bad)).map((m) => m.split(':')[0]), ['data[a b]']);
    const big: KubeObject = { metadata: { name: 's', namespace: 'd' }, data: { a: b64('x'.repeat(600 * 1024)) }, stringData: { b: 'y'.repeat(600 * 1024) } };
    secrets.defaults(big);
    assert.deepEqual(rendered(secrets.validate(big)), ['data: Too long: must have at most 1048576 bytes']);
  });

  it('a stringData that is not a map of strings is left for validation to refuse', () => {
    const s: KubeObject = { metadata: { name: 's', namespace: 'd' }, stringData: { a: 1 } };
    secrets.defaults(s);
    assert.deepEqual(rendered(secrets.validate(s)), ['stringData[a]: Invalid value: 1: must be a string']);
  });
});

describe('replication controllers and volume claims', () => {
  it('RCs default selector and labels from the template and need a matching selector', () => {
    const s = strategyOf('', 'replicationcontrollers');
    const rc: KubeObject = { metadata: { name: 'r', namespace: 'd' }, spec: { template: { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'x' }] } } } };
    s.defaults(rc);
    assert.deepEqual((rc.spec as Record<string, unknown>).selector, { app: 'a' });
    assert.deepEqual(rc.metadata?.labels, { app: 'a' });
    assert.equal((rc.spec as Record<string, unknown>).replicas, 1);
    assert.deepEqual(s.validate(rc), []);
    (rc.spec as Record<string, unknown>).selector = { app: 'b' };
    assert.deepEqual(rendered(s.validate(rc)), ['spec.template.metadata.labels: Invalid value: {"app":"a"}: `selector` does not match template `labels`']);
  });

  it('PVC specs are immutable except for bound claims growing', () => {
    const s = strategyOf('', 'persistentvolumeclaims');
    const old: KubeObject = { metadata: { name: 'c', namespace: 'd' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } }, status: { phase: 'Bound' } };
    s.defaults(old);
    const grow = structuredClone(old);
    (grow.spec as { resources: { requests: { storage: string } } }).resources.requests.storage = '2Gi';
    assert.deepEqual(s.validateUpdate(grow, old), []);
    const change = structuredClone(old);
    (change.spec as Record<string, unknown>).accessModes = ['ReadWriteMany'];
    assert.deepEqual(rendered(s.validateUpdate(change, old)), ['spec: Forbidden: spec is immutable after creation except resources.requests for bound claims']);
    assert.deepEqual(rendered(s.validate({ metadata: { name: 'c', namespace: 'd' }, spec: {} })), [
      'spec.accessModes: Required value: at least 1 access mode is required',
      'spec.resources[storage]: Required value',
    ]);
  });
});

describe('nodes and limit ranges', () => {
  it('nodes default allocatable to capacity', () => {
    const n: KubeObject = { metadata: { name: 'n' }, status: { capacity: { cpu: '4', memory: '8Gi' } } };
    strategyOf('', 'nodes').defaults(n);
    assert.deepEqual((n.status as Record<string, unknown>).allocatable, { cpu: '4', memory: '8Gi' });
  });

  it('container limit ranges default limits and requests', () => {
    const lr: KubeObject = {
      metadata: { name: 'l', namespace: 'd' },
      spec: { limits: [{ type: 'Container', max: { cpu: '2' }, min: { memory: '64Mi' }, default: { memory: '1Gi' } }, { type: 'Pod', max: { cpu: '4' } }] },
    };
    strategyOf('', 'limitranges').defaults(lr);
    assert.deepEqual((lr.spec as Record<string, unknown>).limits, [
      { type: 'Container', max: { cpu: '2' }, min: { memory: '64Mi' }, default: { memory: '1Gi', cpu: '2' }, defaultRequest: { memory: '1Gi', cpu: '2' } },
      { type: 'Pod', max: { cpu: '4' } },
    ]);
  });
});
