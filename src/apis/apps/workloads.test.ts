import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FieldError } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { strategyOf } from '../../testing/apis.js';

const rendered = (errs: FieldError[]): string[] => errs.map((e) => `${e.field}: ${e.detail}`);

function workload(kind: string, spec: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind,
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.25' }] } },
      ...spec,
    },
  };
}

const specOf = (o: KubeObject): Record<string, unknown> => o.spec as Record<string, unknown>;

describe('deployments', () => {
  const s = strategyOf('apps', 'deployments');

  it('get the apps/v1 defaults', () => {
    const d = workload('Deployment');
    s.defaults(d);
    const spec = specOf(d);
    assert.equal(spec.replicas, 1);
    assert.deepEqual(spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } });
    assert.equal(spec.revisionHistoryLimit, 10);
    assert.equal(spec.progressDeadlineSeconds, 600);
    assert.equal((spec.template as { spec: { restartPolicy: string } }).spec.restartPolicy, 'Always');
    assert.deepEqual(s.validate(d), []);
    const recreate = workload('Deployment', { replicas: 0, strategy: { type: 'Recreate' } });
    s.defaults(recreate);
    assert.equal(specOf(recreate).replicas, 0);
    assert.deepEqual(specOf(recreate).strategy, { type: 'Recreate' });
  });

  it('need a selector matching the template labels', () => {
    const none = workload('Deployment');
    delete specOf(none).selector;
    s.defaults(none);
    assert.deepEqual(rendered(s.validate(none)), ['spec.selector: Required value']);
    const mismatch = workload('Deployment', { selector: { matchLabels: { app: 'other' } } });
    s.defaults(mismatch);
    assert.deepEqual(rendered(s.validate(mismatch)), ['spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`']);
    const empty = workload('Deployment', { selector: {} });
    s.defaults(empty);
    assert.deepEqual(rendered(s.validate(empty)), ['spec.selector: Invalid value: {}: empty selector is invalid for deployment']);
  });

  it('check the strategy, restart policy and deadlines', () => {
    const d = workload('Deployment', { strategy: { type: 'Recreate', rollingUpdate: { maxSurge: 1 } }, progressDeadlineSeconds: 5, minReadySeconds: 10 });
    s.defaults(d);
    (d.spec as { template: { spec: Record<string, unknown> } }).template.spec.restartPolicy = 'Never';
    assert.deepEqual(rendered(s.validate(d)), [
      'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
      "spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'",
      'spec.progressDeadlineSeconds: Invalid value: 5: must be greater than minReadySeconds',
    ]);
    const zero = workload('Deployment', { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: '0%' } } });
    s.defaults(zero);
    assert.deepEqual(rendered(s.validate(zero)), ['spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "0%": may not be 0 when `maxSurge` is 0']);
  });

  it('keep their selector', () => {
    const old = workload('Deployment');
    s.defaults(old);
    const now = structuredClone(old);
    specOf(now).selector = { matchLabels: { app: 'web', tier: 'x' } };
    (specOf(now).template as { metadata: { labels: Record<string, string> } }).metadata.labels.tier = 'x';
    assert.deepEqual(rendered(s.validateUpdate(now, old)), ['spec.selector: Invalid value: {"matchLabels":{"app":"web","tier":"x"}}: field is immutable']);
    const scaled = structuredClone(old);
    specOf(scaled).replicas = 5;
    assert.deepEqual(s.validateUpdate(scaled, old), []);
  });
});

describe('replica sets, stateful sets, daemon sets, controller revisions', () => {
  it('replica sets default replicas and check their selector', () => {
    const s = strategyOf('apps', 'replicasets');
    const rs = workload('ReplicaSet');
    s.defaults(rs);
    assert.equal(specOf(rs).replicas, 1);
    assert.deepEqual(s.validate(rs), []);
    specOf(rs).replicas = -1;
    assert.deepEqual(rendered(s.validate(rs)), ['spec.replicas: Invalid value: -1: must be greater than or equal to 0']);
  });

  it('stateful sets get their defaults and allow only some spec changes', () => {
    const s = strategyOf('apps', 'statefulsets');
    const sts = workload('StatefulSet', { serviceName: 'web', volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'] } }] });
    s.defaults(sts);
    const spec = specOf(sts);
    assert.equal(spec.podManagementPolicy, 'OrderedReady');
    assert.deepEqual(spec.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { partition: 0 } });
    assert.deepEqual(spec.persistentVolumeClaimRetentionPolicy, { whenDeleted: 'Retain', whenScaled: 'Retain' });
    assert.equal(spec.replicas, 1);
    assert.equal(spec.revisionHistoryLimit, 10);
    assert.deepEqual(spec.volumeClaimTemplates, [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], volumeMode: 'Filesystem' }, status: { phase: 'Pending' } }]);
    assert.deepEqual(s.validate(sts), []);
    const scaled = structuredClone(sts);
    specOf(scaled).replicas = 3;
    assert.deepEqual(s.validateUpdate(scaled, sts), []);
    const renamed = structuredClone(sts);
    specOf(renamed).serviceName = 'other';
    assert.deepEqual(rendered(s.validateUpdate(renamed, sts)), [
      "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
    ]);
  });

  it('daemon sets default their update strategy', () => {
    const s = strategyOf('apps', 'daemonsets');
    const ds = workload('DaemonSet');
    s.defaults(ds);
    assert.deepEqual(specOf(ds).updateStrategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } });
    assert.equal(specOf(ds).revisionHistoryLimit, 10);
    assert.equal(specOf(ds).replicas, undefined);
    assert.deepEqual(s.validate(ds), []);
    const o: KubeObject = { status: { numberReady: 3 } };
    s.prepareForCreate(o);
    assert.deepEqual(o.status, { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 });
  });

  it('controller revisions keep their data', () => {
    const s = strategyOf('apps', 'controllerrevisions');
    const old: KubeObject = { metadata: { name: 'r', namespace: 'd' }, revision: 1, data: { a: 1 } };
    assert.deepEqual(s.validate(old), []);
    assert.deepEqual(rendered(s.validateUpdate({ ...old, data: { a: 2 } }, old)), ['data: Invalid value: {"a":2}: field is immutable']);
  });
});

describe('pod templates', () => {
  it('get the PodSpec defaults but not the Pod-only ones', () => {
    const d = workload('Deployment', {
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'x:1', resources: { limits: { cpu: '1' } }, ports: [{ containerPort: 80 }] }], hostNetwork: true } },
    });
    strategyOf('apps', 'deployments').defaults(d);
    const spec = (specOf(d).template as { spec: Record<string, unknown> }).spec;
    assert.equal(spec.enableServiceLinks, undefined);
    assert.equal(spec.dnsPolicy, 'ClusterFirst');
    const c = (spec.containers as Record<string, unknown>[])[0];
    assert.deepEqual(c.resources, { limits: { cpu: '1' } });
    assert.deepEqual(c.ports, [{ containerPort: 80, protocol: 'TCP' }]);
    assert.equal(c.imagePullPolicy, 'IfNotPresent');
  });
});
