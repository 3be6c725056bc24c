import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { setFlavor, fromKubernetesGroup } from '../naming/index.js';
import { getCatalog, jsonFields, lookupType, typeIdForKind } from './index.js';
import type { FieldDef, TypeRef } from './index.js';

interface ReferenceResource {
  group: string;
  version: string;
  kind: string;
  subresources: { kind: string; group?: string; version?: string }[];
}

function findUp(rel: string): string | undefined {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    try {
      readFileSync(join(dir, rel));
      return join(dir, rel);
    } catch {
      if (dirname(dir) === dir) return undefined;
    }
  }
}

function field(typeId: string, name: string): FieldDef {
  const f = jsonFields(typeId).find((x) => x.name === name);
  assert.ok(f, `${typeId} has field ${name}`);
  return f;
}

function refOf(t: TypeRef): string {
  if ('ref' in t) return t.ref;
  if ('list' in t) return refOf(t.list);
  if ('map' in t) return refOf(t.map);
  throw new Error('not a reference');
}

test('every kind of the 1.27 surface has a catalog entry, in both flavors', () => {
  const reference = findUp('../shared/reference/api-resources-1.27.json');
  const kinds: { group: string; version: string; kind: string }[] = reference
    ? (JSON.parse(readFileSync(reference, 'utf8')) as ReferenceResource[]).flatMap((r) => [
        { group: r.group, version: r.version, kind: r.kind },
        ...r.subresources.map((s) => ({ group: s.group ?? r.group, version: s.version ?? r.version, kind: s.kind })),
      ])
    : [
        { group: '', version: 'v1', kind: 'Pod' },
        { group: 'apps', version: 'v1', kind: 'Deployment' },
        { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRole' },
        { group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition' },
        { group: 'apiregistration.k8s.io', version: 'v1', kind: 'APIService' },
      ];
  for (const flavor of ['orch', 'kubernetes'] as const) {
    setFlavor(flavor);
    for (const k of kinds) {
      const served = { ...k, group: fromKubernetesGroup(k.group) };
      const id = typeIdForKind(served);
      assert.ok(id, `no catalog type for ${JSON.stringify(served)}`);
      assert.ok(lookupType(id), id);
    }
  }
  setFlavor('orch');
});

test('every reference resolves inside the catalog', () => {
  const types = getCatalog().types;
  const check = (t: TypeRef, where: string): void => {
    if ('ref' in t) assert.ok(types[t.ref], `${where} -> ${t.ref}`);
    else if ('list' in t) check(t.list, where);
    else if ('map' in t) check(t.map, where);
  };
  for (const def of Object.values(types)) for (const f of def.fields) check(f.type, `${def.id}.${f.name}`);
  assert.equal(getCatalog().source, 'v0.27.16');
});

test('meta types are present with their kinds', () => {
  for (const [group, version, kind] of [
    ['', 'v1', 'Status'],
    ['meta.orch.io', 'v1', 'Table'],
    ['meta.orch.io', 'v1', 'PartialObjectMetadataList'],
    ['apps', 'v1', 'DeleteOptions'],
    ['', 'v1', 'WatchEvent'],
    ['', 'v1', 'APIResourceList'],
  ]) {
    assert.ok(typeIdForKind({ group, version, kind }), `${group}/${version} ${kind}`);
  }
  assert.ok(lookupType('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'));
  assert.equal(typeIdForKind({ group: '', version: 'v1', kind: 'NoSuchKind' }), undefined);
});

test('merge keys and list-map keys of Pod containers and ports', () => {
  const spec = refOf(field('io.k8s.api.core.v1.Pod', 'spec').type);
  const containers = field(spec, 'containers');
  assert.equal(containers.patchMergeKey, 'name');
  assert.deepEqual(containers.patchStrategy, ['merge']);
  assert.equal(containers.required, true);
  const ports = field(refOf(containers.type), 'ports');
  assert.equal(ports.listType, 'map');
  assert.deepEqual(ports.listMapKeys, ['containerPort', 'protocol']);
  assert.equal(ports.patchMergeKey, 'containerPort');
  const volumes = field(spec, 'volumes');
  assert.deepEqual(volumes.patchStrategy, ['merge', 'retainKeys']);
  assert.deepEqual(field(refOf(containers.type), 'imagePullPolicy').enum, ['Always', 'IfNotPresent', 'Never']);
});

test('protobuf numbers of ObjectMeta', () => {
  const meta = lookupType('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
  assert.ok(meta);
  assert.equal(meta.protobufMessage, 'k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta');
  const numbers = Object.fromEntries(meta.fields.map((f) => [f.name, f.protobuf?.number]));
  assert.deepEqual(
    { name: 1, generateName: 2, namespace: 3, selfLink: 4, uid: 5, resourceVersion: 6, generation: 7, creationTimestamp: 8, deletionTimestamp: 9, deletionGracePeriodSeconds: 10, labels: 11, annotations: 12, ownerReferences: 13, finalizers: 14, managedFields: 17 },
    numbers,
  );
  const labels = meta.fields.find((f) => f.name === 'labels');
  assert.deepEqual(labels?.protobuf?.mapEntry, { key: 'string', value: 'string' });
});

test('Go types map to schema scalars', () => {
  assert.deepEqual(field('io.k8s.api.core.v1.Secret', 'data').type, { map: { scalar: 'bytes' } });
  assert.deepEqual(field('io.k8s.api.core.v1.ResourceRequirements', 'limits').type, { map: { scalar: 'quantity' } });
  assert.deepEqual(field('io.k8s.api.core.v1.ServicePort', 'targetPort').type, { scalar: 'int-or-string' });
  assert.deepEqual(field('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta', 'creationTimestamp').type, { scalar: 'time' });
  assert.deepEqual(field('io.k8s.api.core.v1.ContainerPort', 'containerPort').type, { scalar: 'int32' });
  // TypeMeta is flattened into objects and carries no protobuf number there.
  const kind = field('io.k8s.api.core.v1.Pod', 'kind');
  assert.equal(kind.protobuf, undefined);
  // An inline struct with its own protobuf field keeps it; JSON readers see its fields.
  const volume = lookupType('io.k8s.api.core.v1.Volume');
  assert.equal(volume?.fields.find((f) => f.inline)?.protobuf?.number, 2);
  assert.ok(jsonFields('io.k8s.api.core.v1.Volume').some((f) => f.name === 'configMap'));
});
