import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { setFlavor } from '../naming/index.js';
import { builtinResourceDefinitions, compareVersionPriority } from './definitions.js';
import { RuntimeConfigError, parseRuntimeConfig } from './runtime-config.js';

const key = (d: { group: string; version: string; resource: string }): string => `${d.group}/${d.version}/${d.resource}`;

describe('builtinResourceDefinitions', () => {
  afterEach(() => setFlavor('orch'));

  it('serves the 58 default resources of 1.27, 51 stored and 7 virtual', () => {
    const defs = builtinResourceDefinitions();
    assert.equal(defs.length, 58);
    const stored = defs.filter((d) => d.storage);
    assert.equal(stored.length, 51);
    for (const d of stored) assert.ok(d.strategy, `${key(d)} has a strategy`);
    const virtual = defs.filter((d) => !d.storage).map((d) => d.resource).sort();
    assert.deepEqual(virtual, [
      'bindings',
      'componentstatuses',
      'localsubjectaccessreviews',
      'selfsubjectaccessreviews',
      'selfsubjectrulesreviews',
      'subjectaccessreviews',
      'tokenreviews',
    ]);
    for (const d of defs.filter((x) => !x.storage)) assert.equal(d.strategy, undefined);
    assert.equal(new Set(defs.map(key)).size, 58);
    assert.equal(defs.reduce((n, d) => n + d.subresources.length, 0), 44);
  });

  it('every subresource says who serves it, as its kind declares', () => {
    const served: Record<string, string> = {};
    for (const d of builtinResourceDefinitions({ runtimeConfig: 'api/all=true' })) {
      for (const sub of d.subresources) {
        const by = sub.serving.by === 'handler' ? `handler ${sub.serving.handler}` : sub.serving.by;
        served[`${d.resource}/${sub.name}`] = sub.connect ? `${by} connect ${sub.connect.methods.join(',')}${sub.connect.read ? ' read' : ''}` : by;
        if (sub.serving.by === 'status') assert.equal(d.strategy?.hasStatus, true, `${d.resource} ignores status on the object`);
        if (sub.serving.by === 'scale') assert.ok(d.strategy?.scale, `${d.resource} says where replicas live`);
      }
    }
    const notStatus = Object.fromEntries(Object.entries(served).filter(([, by]) => by !== 'status'));
    assert.deepEqual(notStatus, {
      'certificatesigningrequests/approval': 'part',
      'deployments/scale': 'scale',
      'namespaces/finalize': 'part',
      'nodes/proxy': 'handler NodeProxy connect GET,POST,PUT,PATCH,DELETE,HEAD,OPTIONS',
      'pods/attach': 'handler PodConnect connect GET,POST',
      'pods/binding': 'handler PodBinding',
      'pods/ephemeralcontainers': 'part',
      'pods/eviction': 'handler PodEviction',
      'pods/exec': 'handler PodConnect connect GET,POST',
      'pods/log': 'handler PodConnect connect GET read',
      'pods/portforward': 'handler PodConnect connect GET,POST',
      'pods/proxy': 'handler PodConnect connect GET,POST,PUT,PATCH,DELETE,HEAD,OPTIONS',
      'replicasets/scale': 'scale',
      'replicationcontrollers/scale': 'scale',
      'serviceaccounts/token': 'handler ServiceAccountToken',
      'services/proxy': 'handler ServiceProxy connect GET,POST,PUT,PATCH,DELETE,HEAD,OPTIONS',
      'statefulsets/scale': 'scale',
    });
  });

  it('maps group names to the flavor, including subresource kinds', () => {
    const orch = builtinResourceDefinitions();
    assert.ok(orch.some((d) => d.group === 'rbac.authorization.orch.io' && d.resource === 'roles'));
    assert.ok(orch.every((d) => !d.group.endsWith('k8s.io')));
    const sa = orch.find((d) => d.group === '' && d.resource === 'serviceaccounts');
    assert.deepEqual(sa?.subresources, [
      { name: 'token', kind: 'TokenRequest', group: 'authentication.orch.io', version: 'v1', verbs: ['create'], serving: { by: 'handler', handler: 'ServiceAccountToken' } },
    ]);
    const eviction = orch.find((d) => d.resource === 'pods')?.subresources.find((s) => s.name === 'eviction');
    assert.deepEqual(eviction, {
      name: 'eviction',
      kind: 'Eviction',
      group: 'policy',
      version: 'v1',
      verbs: ['create'],
      serving: { by: 'handler', handler: 'PodEviction' },
      acceptedVersions: ['v1beta1'],
    });
    setFlavor('kubernetes');
    const kube = builtinResourceDefinitions();
    assert.ok(kube.some((d) => d.group === 'rbac.authorization.k8s.io' && d.resource === 'clusterrolebindings'));
  });

  it('carries scope, verbs, short names, categories and singular names', () => {
    const pods = builtinResourceDefinitions().find((d) => d.group === '' && d.resource === 'pods');
    assert.ok(pods);
    assert.equal(pods.kind, 'Pod');
    assert.equal(pods.singularName, 'pod');
    assert.equal(pods.namespaced, true);
    assert.deepEqual(pods.shortNames, ['po']);
    assert.deepEqual(pods.categories, ['all']);
    assert.deepEqual(pods.verbs, ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']);
    assert.equal(pods.strategy?.hasStatus, true);
    const ns = builtinResourceDefinitions().find((d) => d.resource === 'namespaces');
    assert.equal(ns?.namespaced, false);
    assert.ok(!ns?.verbs.includes('deletecollection'));
  });

  it('shares storage across versions and converts the non-storage ones', () => {
    const defs = builtinResourceDefinitions();
    const find = (g: string, v: string, r: string) => defs.find((d) => d.group === g && d.version === v && d.resource === r);
    const hpa1 = find('autoscaling', 'v1', 'horizontalpodautoscalers');
    const hpa2 = find('autoscaling', 'v2', 'horizontalpodautoscalers');
    assert.deepEqual(hpa1?.storage, { group: 'autoscaling', resource: 'horizontalpodautoscalers', version: 'v2' });
    assert.deepEqual(hpa2?.storage, hpa1?.storage);
    assert.ok(hpa1?.conversion);
    assert.equal(hpa2?.conversion, undefined);
    assert.equal(hpa1?.strategy, hpa2?.strategy);
    assert.equal(hpa1?.preferred, false);
    assert.equal(hpa2?.preferred, true);

    const events = find('events.orch.io', 'v1', 'events');
    assert.deepEqual(events?.storage, { group: '', resource: 'events', version: 'v1' });
    assert.ok(events?.conversion);
    // Same storage, but writes through events.<domain>/v1 are checked more strictly.
    assert.ok(events?.strategy);
    assert.notEqual(events.strategy, find('', 'v1', 'events')?.strategy);
    assert.equal(events.strategy.table, find('', 'v1', 'events')?.strategy?.table);

    const fs2 = find('flowcontrol.apiserver.orch.io', 'v1beta2', 'flowschemas');
    assert.deepEqual(fs2?.storage, { group: 'flowcontrol.apiserver.orch.io', resource: 'flowschemas', version: 'v1beta3' });
    assert.deepEqual(fs2?.deprecated, { since: '1.26', removedIn: '1.29', replacement: 'flowcontrol.apiserver.orch.io/v1beta3 FlowSchema' });
    assert.equal(find('flowcontrol.apiserver.orch.io', 'v1beta3', 'flowschemas')?.preferred, true);
    assert.deepEqual(find('', 'v1', 'componentstatuses')?.deprecated, { since: '1.19' });
  });
});

describe('--runtime-config', () => {
  const served = (rc: string): Set<string> => new Set(builtinResourceDefinitions({ runtimeConfig: rc }).map(key));

  it('parses key=value pairs, a bare key meaning true', () => {
    assert.deepEqual(parseRuntimeConfig('api/all=false, batch/v1 ,apps/v1/deployments=true,x/v1=0'), [
      { key: 'api/all', enabled: false },
      { key: 'batch/v1', enabled: true },
      { key: 'apps/v1/deployments', enabled: true },
      { key: 'x/v1', enabled: false },
    ]);
    assert.deepEqual(parseRuntimeConfig(''), []);
    assert.throws(() => parseRuntimeConfig('batch/v1=maybe'), RuntimeConfigError);
  });

  it('disables a group-version', () => {
    const s = served('batch/v1=false');
    assert.ok(!s.has('batch/v1/jobs'));
    assert.ok(!s.has('batch/v1/cronjobs'));
    assert.equal(s.size, 56);
  });

  it('enables an alpha group-version and makes it preferred when its group has no other', () => {
    const defs = builtinResourceDefinitions({ runtimeConfig: 'resource.orch.io/v1alpha2=true' });
    const claims = defs.find((d) => d.resource === 'resourceclaims');
    assert.equal(claims?.preferred, true);
    assert.ok(claims?.strategy);
    assert.equal(defs.length, 62);
  });

  it('keeps the stable version preferred when a newer beta is enabled', () => {
    const defs = builtinResourceDefinitions({ runtimeConfig: 'authentication.orch.io/v1beta1' });
    const ssr = defs.find((d) => d.resource === 'selfsubjectreviews');
    assert.equal(ssr?.version, 'v1beta1');
    assert.equal(ssr?.preferred, false);
    assert.equal(ssr?.storage, undefined);
  });

  it('prefers the remaining version when the preferred one is disabled', () => {
    const defs = builtinResourceDefinitions({ runtimeConfig: 'autoscaling/v2=false' });
    const hpa = defs.filter((d) => d.resource === 'horizontalpodautoscalers');
    assert.equal(hpa.length, 1);
    assert.equal(hpa[0].version, 'v1');
    assert.equal(hpa[0].preferred, true);
    assert.equal(hpa[0].storage?.version, 'v2');
    assert.ok(hpa[0].conversion);
  });

  it('switches single resources, after their group-version', () => {
    const s = served('apps/v1=false,apps/v1/deployments=true');
    assert.ok(s.has('apps/v1/deployments'));
    assert.ok(!s.has('apps/v1/replicasets'));
    const t = served('flowcontrol.apiserver.orch.io/v1beta2/flowschemas=false');
    assert.ok(!t.has('flowcontrol.apiserver.orch.io/v1beta2/flowschemas'));
    assert.ok(t.has('flowcontrol.apiserver.orch.io/v1beta2/prioritylevelconfigurations'));
  });

  it('applies api/all, api/ga, api/beta and api/alpha', () => {
    assert.equal(served('api/all=true').size, 70);
    assert.equal(served('api/alpha=true').size, 69);
    assert.equal(served('api/all=false').size, 0);
    assert.equal(served('api/all=false,v1=true').size, 17);
    const beta = served('api/beta=false');
    assert.ok(![...beta].some((k) => k.includes('beta')));
    assert.equal(beta.size, 54);
    assert.equal(served('api/ga=false').size, 4);
  });

  it('names the core group v1 or api/v1', () => {
    assert.equal(served('v1=false').size, 41);
    assert.equal(served('api/v1=false').size, 41);
    assert.ok(!served('api/v1/pods=false').has('/v1/pods'));
  });

  it('rejects unknown group-versions, resources and malformed keys', () => {
    assert.throws(() => builtinResourceDefinitions({ runtimeConfig: 'nope/v1=true' }), /group version nope\/v1 that has not been registered/);
    assert.throws(() => builtinResourceDefinitions({ runtimeConfig: 'apps/v2' }), RuntimeConfigError);
    assert.throws(() => builtinResourceDefinitions({ runtimeConfig: 'apps/v1/nothings' }), /unknown resource nothings/);
    assert.throws(() => builtinResourceDefinitions({ runtimeConfig: 'a/b/c/d' }), /invalid key/);
    // The stock group names are not the served ones in the orch flavor.
    assert.throws(() => builtinResourceDefinitions({ runtimeConfig: 'rbac.authorization.k8s.io/v1=false' }), RuntimeConfigError);
  });

  it('accepts imagepolicy.<domain>/v1alpha1 as kube-apiserver does, serving nothing for it', () => {
    const base = builtinResourceDefinitions({ runtimeConfig: '' }).length;
    assert.equal(builtinResourceDefinitions({ runtimeConfig: 'imagepolicy.orch.io/v1alpha1=true' }).length, base);
    assert.equal(builtinResourceDefinitions({ runtimeConfig: 'imagepolicy.orch.io/v1alpha1=false' }).length, base);
    assert.ok(builtinResourceDefinitions({ runtimeConfig: 'imagepolicy.orch.io/v1alpha1=true' }).every((d) => !d.group.startsWith('imagepolicy.')));
    assert.throws(() => builtinResourceDefinitions({ runtimeConfig: 'imagepolicy.orch.io/v1beta1=true' }), /group version imagepolicy.orch.io\/v1beta1 that has not been registered/);
    assert.throws(() => builtinResourceDefinitions({ runtimeConfig: 'imagepolicy.orch.io/v1alpha1=maybe' }), RuntimeConfigError);
  });
});

describe('compareVersionPriority', () => {
  it('orders GA over beta over alpha, higher numbers first', () => {
    const sorted = ['v1alpha1', 'v1beta1', 'v1', 'v2beta2', 'v2', 'v1beta2', 'v11alpha2'].sort(compareVersionPriority);
    assert.deepEqual(sorted, ['v2', 'v1', 'v2beta2', 'v1beta2', 'v1beta1', 'v11alpha2', 'v1alpha1']);
  });
});
