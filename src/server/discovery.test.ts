import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { discoveryGroup, setFlavor } from '../naming/index.js';
import type { GroupVersion } from '../apimachinery/types.js';
import type { ResourceDefinition, ResourceTable, RESTStore, SubresourceStore } from '../rest/index.js';
import { compareVersions, Discovery, notModified, storageVersionHash } from './discovery.js';

describe('discovery helpers', () => {
  it('computes the storage version hashes Kubernetes reports', () => {
    // Values as kube-apiserver 1.27 lists them in /api/v1.
    assert.equal(storageVersionHash('', 'v1', 'ConfigMap'), 'qFsyl6wFWjQ=');
    assert.equal(storageVersionHash('', 'v1', 'Pod'), 'xPOwRZ+Yhw8=');
  });

  it('orders versions GA first, then beta, then alpha, higher numbers first', () => {
    assert.deepEqual(['v1beta1', 'v1', 'v2', 'v1alpha1', 'v1beta2', 'v2beta1'].sort(compareVersions), ['v2', 'v1', 'v2beta1', 'v1beta2', 'v1beta1', 'v1alpha1']);
  });

  it('orders versions of other forms after the Kubernetes ones, in byte order', () => {
    // CompareKubeAwareVersionStrings: non-kube versions lose to kube ones and sort ascending.
    const cases: [string[], string[]][] = [
      [['foo', 'v1', 'Bar', 'v1alpha1'], ['v1', 'v1alpha1', 'Bar', 'foo']],
      [['v1gamma1', 'v10', 'v2'], ['v10', 'v2', 'v1gamma1']],
      [['v1beta10', 'v1beta9', 'v11alpha2'], ['v1beta10', 'v1beta9', 'v11alpha2']],
      [['zeta', 'alpha', 'v1.0'], ['alpha', 'v1.0', 'zeta']],
    ];
    for (const [input, want] of cases) assert.deepEqual([...input].sort(compareVersions), want, input.join(','));
  });
});

// ---- a resource table of hand-made definitions ----

const ALL = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

class Table implements ResourceTable {
  private stores: RESTStore[] = [];
  private listeners: (() => void)[] = [];
  lookup(gv: GroupVersion, resource: string): RESTStore | undefined {
    return this.stores.find((s) => s.definition.group === gv.group && s.definition.version === gv.version && s.definition.resource === resource);
  }
  /** Every declared subresource is served. */
  lookupSubresource(gv: GroupVersion, resource: string, name: string): SubresourceStore | undefined {
    return this.subresources(gv, resource).find((s) => s.definition.name === name);
  }
  subresources(gv: GroupVersion, resource: string): SubresourceStore[] {
    const store = this.lookup(gv, resource);
    return store ? store.definition.subresources.map((definition) => ({ resource: store.definition, definition })) : [];
  }
  addSubresource(): void {
    throw new Error('subresources are served as declared');
  }
  all(): RESTStore[] {
    return [...this.stores];
  }
  add(store: RESTStore): void {
    this.stores.push(store);
    for (const l of this.listeners) l();
  }
  remove(gv: GroupVersion, resource: string): void {
    this.stores = this.stores.filter((s) => !(s.definition.group === gv.group && s.definition.version === gv.version && s.definition.resource === resource));
    for (const l of this.listeners) l();
  }
  onChange(listener: () => void): () => void {
    this.listeners.push(listener);
    return () => {};
  }
}

function builtin(group: string, version: string, resource: string, kind: string, preferred = true): ResourceDefinition {
  return {
    group, version, resource, kind, singularName: kind.toLowerCase(), namespaced: true, shortNames: [], categories: [], verbs: ALL, subresources: [], preferred,
    storage: { group, resource, version },
  };
}

/** A custom resource version as the CRD registrar defines it (verbs in sorted order on purpose). */
function custom(group: string, version: string, opts: { storageVersion?: string; scale?: boolean; status?: boolean; preferred?: boolean } = {}): ResourceDefinition {
  const subresources: ResourceDefinition['subresources'] = [];
  if (opts.status !== false) subresources.push({ name: 'status', kind: 'Widget', verbs: ['update', 'get', 'patch'], serving: { by: 'status' } });
  if (opts.scale) subresources.push({ name: 'scale', kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: ['get', 'patch', 'update'], serving: { by: 'scale' } });
  return {
    group, version, resource: 'widgets', kind: 'Widget', singularName: 'widget', namespaced: true,
    shortNames: ['wd'], categories: ['all', 'toys'], verbs: ALL, subresources, preferred: opts.preferred ?? false,
    storage: { group, resource: 'widgets', version: opts.storageVersion ?? version },
    customResource: { crdName: `widgets.${group}`, crdUID: 'uid-1' },
  };
}

const store = (definition: ResourceDefinition): RESTStore => ({ definition });

interface Resource {
  name: string;
  singularName?: string;
  group?: string;
  version?: string;
  kind: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  storageVersionHash?: string;
}
interface AggResource {
  resource: string;
  responseKind: { group: string; version: string; kind: string };
  scope: string;
  singularResource: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  subresources?: { subresource: string; responseKind: { group: string; version: string; kind: string }; verbs: string[] }[];
}
interface AggList {
  kind: string;
  apiVersion: string;
  items: { metadata: { name?: string }; versions: { version: string; resources: AggResource[]; freshness: string }[] }[];
}

const AGG = (): string => `application/json;g=${discoveryGroup()};v=v2beta1;as=APIGroupDiscoveryList`;

describe('discovery of custom resources', () => {
  const setup = (): { table: Table; discovery: Discovery } => {
    const table = new Table();
    table.add(store(builtin('', 'v1', 'configmaps', 'ConfigMap')));
    table.add(store(builtin('apps', 'v1', 'deployments', 'Deployment')));
    table.add(store(builtin('zzz.builtin', 'v1', 'things', 'Thing')));
    return { table, discovery: new Discovery(table, () => '127.0.0.1:6443') };
  };

  it('lists custom resource groups after the built-in ones, by name, with the highest-priority version preferred', () => {
    const { table, discovery } = setup();
    // Added in an order unlike the expected one; the definitions' `preferred` is not what decides.
    table.add(store(custom('stable.example.com', 'v1beta1', { storageVersion: 'v1', preferred: true })));
    table.add(store(custom('stable.example.com', 'v1')));
    table.add(store(custom('stable.example.com', 'v2alpha1', { storageVersion: 'v1' })));
    table.add(store(custom('a.example.com', 'v1')));
    const list = discovery.groupList(undefined).body as { groups: { name: string; versions: { groupVersion: string; version: string }[]; preferredVersion: { version: string } }[] };
    assert.deepEqual(list.groups.map((g) => g.name), ['apps', 'zzz.builtin', 'a.example.com', 'stable.example.com']);
    const stable = list.groups[3]!;
    assert.deepEqual(stable.versions.map((v) => v.groupVersion), ['stable.example.com/v1', 'stable.example.com/v1beta1', 'stable.example.com/v2alpha1']);
    assert.deepEqual(stable.preferredVersion, { groupVersion: 'stable.example.com/v1', version: 'v1' });
    assert.deepEqual(discovery.group('stable.example.com')?.body, { kind: 'APIGroup', apiVersion: 'v1', ...stable });
  });

  it('serves /apis/<group>/<version> with Kubernetes verbs, names, storage version hash and subresources', () => {
    const { table, discovery } = setup();
    table.add(store(custom('stable.example.com', 'v1beta1', { storageVersion: 'v1', scale: true })));
    const body = discovery.resourceList('stable.example.com', 'v1beta1')?.body as { kind: string; apiVersion: string; groupVersion: string; resources: Resource[] };
    assert.equal(body.kind, 'APIResourceList');
    assert.equal(body.apiVersion, 'v1');
    assert.equal(body.groupVersion, 'stable.example.com/v1beta1');
    assert.deepEqual(body.resources, [
      {
        name: 'widgets', singularName: 'widget', namespaced: true, kind: 'Widget',
        verbs: ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'],
        shortNames: ['wd'], categories: ['all', 'toys'],
        // The hash of the storage version, not of the version listed.
        storageVersionHash: storageVersionHash('stable.example.com', 'v1', 'Widget'),
      },
      { name: 'widgets/scale', singularName: '', namespaced: true, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] },
      { name: 'widgets/status', singularName: '', namespaced: true, kind: 'Widget', verbs: ['get', 'patch', 'update'] },
    ]);
    assert.notEqual(storageVersionHash('stable.example.com', 'v1', 'Widget'), storageVersionHash('stable.example.com', 'v1beta1', 'Widget'));
    // JSON field order as Go writes APIResource.
    assert.deepEqual(Object.keys(body.resources[1]!), ['name', 'singularName', 'namespaced', 'group', 'version', 'kind', 'verbs']);
  });

  it('a terminating definition lists only the verbs it still serves, in Kubernetes order', () => {
    const { table, discovery } = setup();
    const d = custom('stable.example.com', 'v1');
    d.verbs = ['watch', 'list', 'get', 'deletecollection', 'delete'];
    table.add(store(d));
    const body = discovery.resourceList('stable.example.com', 'v1')?.body as { resources: Resource[] };
    assert.deepEqual(body.resources[0]!.verbs, ['delete', 'deletecollection', 'get', 'list', 'watch']);
  });

  it('aggregated discovery: custom groups last, versions by priority, subresources with their response kinds', () => {
    for (const flavor of ['orch', 'kubernetes'] as const) {
      setFlavor(flavor);
      const { table, discovery } = setup();
      table.add(store(custom('stable.example.com', 'v1beta1', { storageVersion: 'v1', scale: true })));
      table.add(store(custom('stable.example.com', 'v1', { scale: true })));
      table.add(store(custom('b.example.com', 'v1', { status: false })));
      const a = discovery.groupList(`application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,${AGG()},application/json`);
      assert.equal(a.contentType, AGG());
      const body = a.body as AggList;
      assert.equal(body.kind, 'APIGroupDiscoveryList');
      assert.equal(body.apiVersion, `${discoveryGroup()}/v2beta1`);
      assert.deepEqual(body.items.map((i) => i.metadata.name), ['apps', 'zzz.builtin', 'b.example.com', 'stable.example.com']);
      const stable = body.items[3]!;
      assert.deepEqual(stable.versions.map((v) => [v.version, v.freshness]), [['v1', 'Current'], ['v1beta1', 'Current']]);
      assert.deepEqual(stable.versions[1]!.resources, [
        {
          resource: 'widgets',
          responseKind: { group: 'stable.example.com', version: 'v1beta1', kind: 'Widget' },
          scope: 'Namespaced',
          singularResource: 'widget',
          verbs: ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'],
          shortNames: ['wd'],
          categories: ['all', 'toys'],
          subresources: [
            { subresource: 'status', responseKind: { group: 'stable.example.com', version: 'v1beta1', kind: 'Widget' }, verbs: ['get', 'patch', 'update'] },
            { subresource: 'scale', responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, verbs: ['get', 'patch', 'update'] },
          ],
        },
      ]);
      assert.equal(body.items[2]!.versions[0]!.resources[0]!.subresources, undefined);
    }
    setFlavor('orch');
  });

  it('changes at once when the table changes, and the aggregated ETag with it', () => {
    const { table, discovery } = setup();
    const before = discovery.groupList(AGG());
    const etag = before.headers?.ETag;
    assert.match(etag ?? '', /^"[0-9A-F]{128}"$/);
    assert.equal(before.headers?.['Cache-Control'], 'public');
    assert.equal(notModified(discovery.groupList(AGG()), etag), true, 'same table, same ETag');
    assert.equal(discovery.resourceList('stable.example.com', 'v1'), undefined);

    table.add(store(custom('stable.example.com', 'v1')));
    const added = discovery.groupList(AGG());
    assert.notEqual(added.headers?.ETag, etag);
    assert.equal(notModified(added, etag), false);
    assert.ok((added.body as AggList).items.some((i) => i.metadata.name === 'stable.example.com'));
    assert.ok(discovery.resourceList('stable.example.com', 'v1'));
    assert.ok(discovery.group('stable.example.com'));

    table.remove({ group: 'stable.example.com', version: 'v1' }, 'widgets');
    assert.equal(discovery.groupList(AGG()).headers?.ETag, etag, 'back to the first document');
    assert.equal(discovery.group('stable.example.com'), undefined);
    assert.equal(discovery.resourceList('stable.example.com', 'v1'), undefined);
    // The legacy documents carry no ETag, as in Kubernetes.
    assert.equal(discovery.groupList(undefined).headers, undefined);
  });
});
