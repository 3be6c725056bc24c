import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../apimachinery/types.js';
import type { KindFacts } from '../rest/index.js';
import { builtinResourceDefinitions } from './definitions.js';
import { makeStrategy } from './strategy.js';
import { strategyOf } from '../testing/apis.js';

const deployment = (): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default', labels: { app: 'web' }, generation: 1 },
  spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.25' }] } } },
  status: { replicas: 2, readyReplicas: 2 },
});

describe('status handling', () => {
  it('create drops a client-supplied status where the kind has a status subresource', () => {
    const s = strategyOf('apps', 'deployments');
    const d = deployment();
    s.prepareForCreate(d);
    assert.deepEqual(d.status, {});
    const cm: KubeObject = { metadata: { name: 'c', namespace: 'd' }, status: { x: 1 } };
    strategyOf('', 'configmaps').prepareForCreate(cm);
    assert.deepEqual(cm.status, { x: 1 });
  });

  it('kinds start with their zero-valued or initial status', () => {
    const rs: KubeObject = { spec: {}, status: { replicas: 9 } };
    strategyOf('apps', 'replicasets').prepareForCreate(rs);
    assert.deepEqual(rs.status, { replicas: 0 });
    const svc: KubeObject = { spec: {}, status: { loadBalancer: { ingress: [{ ip: '1.1.1.1' }] } } };
    strategyOf('', 'services').prepareForCreate(svc);
    assert.deepEqual(svc.status, { loadBalancer: {} });
    const pvc: KubeObject = { spec: {}, status: { phase: 'Bound' } };
    strategyOf('', 'persistentvolumeclaims').prepareForCreate(pvc);
    assert.deepEqual(pvc.status, { phase: 'Pending' });
  });

  it('nodes keep the status they register with', () => {
    const node: KubeObject = { metadata: { name: 'n1' }, status: { capacity: { cpu: '4' } } };
    strategyOf('', 'nodes').prepareForCreate(node);
    assert.deepEqual(node.status, { capacity: { cpu: '4' } });
  });

  it('an update of the main resource keeps the stored status', () => {
    const s = strategyOf('apps', 'deployments');
    const old = deployment();
    const now = deployment();
    now.status = { replicas: 99 };
    (now.spec as Record<string, unknown>).replicas = 5;
    s.prepareForUpdate(now, old);
    assert.deepEqual(now.status, old.status);
    assert.equal((now.spec as Record<string, unknown>).replicas, 5);
  });

  it('a status update keeps everything but status (and, for Deployments, labels)', () => {
    const s = strategyOf('apps', 'deployments');
    const old = deployment();
    const now = deployment();
    now.status = { replicas: 3 };
    (now.spec as Record<string, unknown>).replicas = 7;
    now.metadata = { ...now.metadata, labels: { app: 'other' }, annotations: { a: 'b' } };
    s.prepareForStatusUpdate(now, old, new Date());
    assert.deepEqual(now.status, { replicas: 3 });
    assert.deepEqual(now.spec, old.spec);
    assert.deepEqual(now.metadata?.labels, { app: 'web' });
    assert.deepEqual(now.metadata?.annotations, { a: 'b' });
  });

  it('pod status updates keep owner references but may change labels', () => {
    const s = strategyOf('', 'pods');
    const owners = [{ apiVersion: 'v1', kind: 'ReplicationController', name: 'rc', uid: 'u' }];
    const old: KubeObject = { metadata: { name: 'p', ownerReferences: owners }, spec: { nodeName: 'a' }, status: { phase: 'Pending' } };
    const now: KubeObject = { metadata: { name: 'p', labels: { x: 'y' } }, spec: { nodeName: 'b' }, status: { phase: 'Running' } };
    s.prepareForStatusUpdate(now, old, new Date());
    assert.deepEqual(now.metadata?.ownerReferences, owners);
    assert.deepEqual(now.metadata?.labels, { x: 'y' });
    assert.deepEqual(now.spec, { nodeName: 'a' });
    assert.deepEqual(now.status, { phase: 'Running' });
  });
});

describe('update and create-on-update rules', () => {
  const flags = (group: string, resource: string): [boolean, boolean] => {
    const s = strategyOf(group, resource);
    return [s.allowCreateOnUpdate ?? false, s.allowUnconditionalUpdate ?? true];
  };
  it('match Kubernetes per kind', () => {
    assert.deepEqual(flags('', 'pods'), [false, true]);
    assert.deepEqual(flags('', 'configmaps'), [false, true]);
    assert.deepEqual(flags('', 'services'), [true, true]);
    assert.deepEqual(flags('', 'endpoints'), [true, true]);
    assert.deepEqual(flags('', 'events'), [true, true]);
    assert.deepEqual(flags('', 'limitranges'), [true, true]);
    assert.deepEqual(flags('', 'serviceaccounts'), [false, true]);
    assert.deepEqual(flags('discovery.orch.io', 'endpointslices'), [false, true]);
    assert.deepEqual(flags('storage.orch.io', 'storageclasses'), [false, true]);
    assert.deepEqual(flags('storage.orch.io', 'csidrivers'), [false, false]);
    assert.deepEqual(flags('', 'resourcequotas'), [false, false]);
    assert.deepEqual(flags('apps', 'deployments'), [false, true]);
    assert.deepEqual(flags('rbac.authorization.orch.io', 'clusterroles'), [true, true]);
    assert.deepEqual(flags('coordination.orch.io', 'leases'), [true, true]);
    assert.deepEqual(flags('admissionregistration.orch.io', 'validatingwebhookconfigurations'), [false, false]);
  });
});

describe('field selectors', () => {
  it('pods expose the fields kubelets and schedulers select on', () => {
    const s = strategyOf('', 'pods');
    const pod: KubeObject = {
      metadata: { name: 'p', namespace: 'ns' },
      spec: { nodeName: 'n1', restartPolicy: 'Always', schedulerName: 'default-scheduler', serviceAccountName: 'sa', hostNetwork: true },
      status: { phase: 'Running', podIPs: [{ ip: '10.1.1.1' }, { ip: 'fd00::1' }], nominatedNodeName: 'n2' },
    };
    assert.deepEqual(s.selectableFields(pod), {
      'metadata.name': 'p',
      'metadata.namespace': 'ns',
      'spec.nodeName': 'n1',
      'spec.restartPolicy': 'Always',
      'spec.schedulerName': 'default-scheduler',
      'spec.serviceAccountName': 'sa',
      'spec.hostNetwork': 'true',
      'status.phase': 'Running',
      'status.podIP': '10.1.1.1',
      'status.nominatedNodeName': 'n2',
    });
    assert.equal(s.fieldSelectorKeys.length, 8);
  });

  it('cluster-scoped kinds have no metadata.namespace; per-kind keys', () => {
    assert.deepEqual(strategyOf('', 'namespaces').selectableFields({ metadata: { name: 'a' }, status: { phase: 'Active' } }), {
      'metadata.name': 'a',
      'status.phase': 'Active',
      name: 'a',
    });
    assert.deepEqual(strategyOf('', 'nodes').selectableFields({ metadata: { name: 'n' } }), { 'metadata.name': 'n', 'spec.unschedulable': 'false' });
    assert.deepEqual(strategyOf('', 'secrets').fieldSelectorKeys, ['type']);
    assert.deepEqual(strategyOf('', 'configmaps').fieldSelectorKeys, []);
    assert.deepEqual(strategyOf('', 'replicationcontrollers').selectableFields({ metadata: { name: 'r', namespace: 'n' }, status: { replicas: 3 } })['status.replicas'], '3');
    assert.deepEqual(strategyOf('apps', 'replicasets').fieldSelectorKeys, ['status.replicas']);
    assert.deepEqual(strategyOf('batch', 'jobs').selectableFields({ metadata: { name: 'j' }, status: { succeeded: 2 } })['status.successful'], '2');
    assert.deepEqual(strategyOf('certificates.orch.io', 'certificatesigningrequests').fieldSelectorKeys, ['spec.signerName']);
    const ev = strategyOf('', 'events');
    assert.deepEqual(
      ev.fieldSelectorKeys.sort(),
      [
        'involvedObject.apiVersion',
        'involvedObject.fieldPath',
        'involvedObject.kind',
        'involvedObject.name',
        'involvedObject.namespace',
        'involvedObject.resourceVersion',
        'involvedObject.uid',
        'reason',
        'reportingComponent',
        'source',
        'type',
      ],
    );
    assert.equal(ev.selectableFields({ metadata: { name: 'e' }, source: { component: 'kubelet' } }).source, 'kubelet');
  });
});

describe('scale', () => {
  it('deployments, replica sets, stateful sets and replication controllers have it', () => {
    const s = strategyOf('apps', 'deployments').scale;
    assert.ok(s);
    const d = deployment();
    (d.spec as Record<string, unknown>).selector = { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['b', 'a'] }] };
    assert.equal(s.specReplicas(d), 2);
    assert.equal(s.statusReplicas(d), 2);
    assert.equal(s.selector(d), 'app=web,tier in (a,b)');
    s.setSpecReplicas(d, 4);
    assert.equal((d.spec as Record<string, unknown>).replicas, 4);
    assert.ok(strategyOf('apps', 'replicasets').scale);
    assert.ok(strategyOf('apps', 'statefulsets').scale);
    assert.equal(strategyOf('apps', 'daemonsets').scale, undefined);
    const rc = strategyOf('', 'replicationcontrollers').scale;
    assert.equal(rc?.selector({ spec: { selector: { b: '2', a: '1' } } }), 'a=1,b=2');
  });
});

describe('kind facts', () => {
  it('are carried to the Strategy as the kind declares them, with their defaults', () => {
    const scale = { specReplicas: () => 1, setSpecReplicas: () => {}, statusReplicas: () => 0, selector: () => '' };
    const gracefulDeletePeriod = (): number => 30;
    const validateName = (): string[] => [];
    const facts: Required<KindFacts> = {
      allowCreateOnUpdate: true,
      allowUnconditionalUpdate: false,
      validateName,
      scale,
      gracefulDeletePeriod,
      tracksGeneration: true,
      returnDeletedObject: true,
      defaultGarbageCollectionPolicy: 'OrphanDependents',
      namespaceLifecycle: true,
    };
    const s = makeStrategy({ ...facts, defaults() {}, table: undefined }, { namespaced: true, hasStatus: false });
    for (const [key, value] of Object.entries(facts)) assert.equal(s[key as keyof KindFacts], value, key);
    const plain = makeStrategy({}, { namespaced: true, hasStatus: false });
    assert.deepEqual([plain.allowCreateOnUpdate, plain.allowUnconditionalUpdate, plain.tracksGeneration], [false, true, undefined]);
    assert.deepEqual(plain.validateName?.('a.b', false), []);
    assert.ok((plain.validateName?.('A', false) ?? []).length > 0, 'DNS-1123 subdomains by default');
  });
});

describe('virtual kinds', () => {
  it('declare the store the server provides, and their own columns', () => {
    const defs = builtinResourceDefinitions();
    const handlers = Object.fromEntries(defs.filter((d) => d.handler).map((d) => [d.resource, d.handler]));
    assert.deepEqual(handlers, { bindings: 'Bindings', componentstatuses: 'ComponentStatuses' });
    const cs = defs.find((d) => d.handler === 'ComponentStatuses');
    assert.deepEqual(cs?.table?.columns.map((c) => c.name), ['Name', 'Status', 'Message', 'Error']);
    for (const d of defs.filter((x) => x.storage)) assert.equal(d.handler, undefined, `${d.resource} is served by its Store`);
  });
});
