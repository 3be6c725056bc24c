// Strategic merge patch over the generated catalog of built-in types.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { applyStrategicMergePatch } from './strategic-merge-patch.js';
import { catalogPatchSchema, catalogSupportsStrategicMergePatch } from './catalog-schema.js';
import { getCatalog, typeIdForKind } from '../schema/index.js';
import { goFormat } from './json-value.js';

describe('strategic merge patch on catalog types', () => {
  it('knows the built-in kinds and refuses unknown ones', () => {
    assert.equal(catalogSupportsStrategicMergePatch(typeIdForKind({ group: 'apps', version: 'v1', kind: 'Deployment' })), true);
    assert.equal(catalogSupportsStrategicMergePatch(typeIdForKind({ group: '', version: 'v1', kind: 'ConfigMap' })), true);
    assert.equal(catalogSupportsStrategicMergePatch(typeIdForKind({ group: 'example.com', version: 'v1', kind: 'Widget' })), false);
    assert.equal(catalogSupportsStrategicMergePatch(undefined), false);
  });

  it('finds patch facts through inline members (Volume -> VolumeSource, EphemeralContainer -> EphemeralContainerCommon)', () => {
    const pod = catalogPatchSchema('io.k8s.api.core.v1.Pod');
    assert.deepEqual(pod.field('io.k8s.api.core.v1.Volume', 'configMap')?.type, { ref: 'io.k8s.api.core.v1.ConfigMapVolumeSource' });
    assert.equal(pod.field('io.k8s.api.core.v1.EphemeralContainer', 'env')?.patchMergeKey, 'name');
    assert.deepEqual(pod.field('io.k8s.api.core.v1.PodSpec', 'volumes')?.patchStrategy, ['merge', 'retainKeys']);
    assert.equal(pod.field('io.k8s.api.core.v1.PodSpec', 'nope'), undefined);
  });

  it('every merge-strategy list of objects declares a merge key', () => {
    const missing: string[] = [];
    for (const def of Object.values(getCatalog().types)) {
      for (const f of def.fields) {
        if (!(f.patchStrategy ?? []).includes('merge') || !('list' in f.type)) continue;
        if ('ref' in f.type.list && !f.patchMergeKey) missing.push(`${def.id}.${f.name}`);
      }
    }
    assert.deepEqual(missing, []);
  });

  it('applies kubectl apply’s patch to a Deployment: image change, env deletion, new container, strategy switch', () => {
    const live = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default', labels: { app: 'web' }, finalizers: ['example.com/a'] },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'web' } },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: {
            containers: [
              {
                name: 'web',
                image: 'nginx:1.25',
                ports: [{ containerPort: 80, protocol: 'TCP' }],
                env: [
                  { name: 'A', value: '1' },
                  { name: 'B', value: '2' },
                ],
                volumeMounts: [{ name: 'cache', mountPath: '/cache' }],
              },
            ],
            volumes: [{ name: 'cache', emptyDir: {} }],
            tolerations: [{ key: 'old', operator: 'Exists' }],
          },
        },
      },
    };
    const patch = {
      metadata: { '$deleteFromPrimitiveList/finalizers': ['example.com/a'], labels: { tier: 'front' } },
      spec: {
        strategy: { $retainKeys: ['type'], type: 'Recreate', rollingUpdate: null },
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'web' }, { name: 'exporter' }],
            containers: [
              {
                name: 'web',
                image: 'nginx:1.26',
                '$setElementOrder/env': [{ name: 'A' }],
                env: [{ name: 'B', $patch: 'delete' }],
              },
              { name: 'exporter', image: 'exporter:1', ports: [{ containerPort: 9100 }] },
            ],
            volumes: [{ name: 'cache', $retainKeys: ['configMap', 'name'], configMap: { name: 'cache-cm' } }],
            tolerations: [{ key: 'new', operator: 'Exists' }],
          },
        },
      },
    };
    const result = applyStrategicMergePatch(live, patch, catalogPatchSchema('io.k8s.api.apps.v1.Deployment'));
    assert.deepEqual(result, {
      ...live,
      metadata: { name: 'web', namespace: 'default', labels: { app: 'web', tier: 'front' }, finalizers: [] },
      spec: {
        ...live.spec,
        strategy: { type: 'Recreate' },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: {
            containers: [
              {
                name: 'web',
                image: 'nginx:1.26',
                ports: [{ containerPort: 80, protocol: 'TCP' }],
                env: [{ name: 'A', value: '1' }],
                volumeMounts: [{ name: 'cache', mountPath: '/cache' }],
              },
              { name: 'exporter', image: 'exporter:1', ports: [{ containerPort: 9100 }] },
            ],
            volumes: [{ name: 'cache', configMap: { name: 'cache-cm' } }],
            tolerations: [{ key: 'new', operator: 'Exists' }],
          },
        },
      },
    });
  });

  it('managedFields is replaced whole and fieldsV1 is never merged into', () => {
    const schema = catalogPatchSchema('io.k8s.api.core.v1.ConfigMap');
    const live = { metadata: { name: 'c', managedFields: [{ manager: 'a', fieldsV1: { 'f:data': {} } }] }, data: { x: '1' } };
    const result = applyStrategicMergePatch(live, { metadata: { managedFields: [{}] }, data: { y: '2' } }, schema);
    assert.deepEqual(result, { metadata: { name: 'c', managedFields: [{}] }, data: { x: '1', y: '2' } });
  });

  describe('a merged document that does not restore into the kind', () => {
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', labels: { a: 'b' } }, data: { k: 'v' } };
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i' }] } };
    const deploy = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { replicas: 1 } };
    const cases: [string, unknown, string, unknown, string][] = [
      ['io.k8s.api.core.v1.ConfigMap', cm, 'a string where a map belongs', { metadata: { labels: 'x' } }, 'cannot restore map from string'],
      ['io.k8s.api.core.v1.ConfigMap', cm, 'a list where a map belongs', { data: ['x'] }, 'cannot restore map from slice'],
      ['io.k8s.api.core.v1.Pod', pod, 'a string where a slice belongs', { spec: { containers: 'x' } }, 'cannot restore slice from string'],
      ['io.k8s.api.core.v1.Pod', pod, 'a number where a struct belongs', { spec: 5 }, 'cannot restore struct from: int64'],
      ['io.k8s.api.core.v1.ConfigMap', cm, 'a string where a bool belongs', { immutable: 'yes' }, 'unrecognized type: bool'],
      ['apps.v1', deploy, 'a string where an int32 belongs', { spec: { replicas: '3' } }, 'unrecognized type: int32'],
    ];
    for (const [typeId, doc, what, patch, detail] of cases) {
      it(`${what}: 422 on the field patch`, () => {
        const schema = catalogPatchSchema(typeId === 'apps.v1' ? 'io.k8s.api.apps.v1.Deployment' : typeId);
        assert.throws(
          () => applyStrategicMergePatch(doc, patch, schema),
          (e: unknown) => {
            const err = e as { code: number; status: { reason?: string; message?: string; details?: { causes?: unknown[] } } };
            assert.equal(err.code, 422);
            assert.equal(err.status.reason, 'Invalid');
            assert.equal(err.status.message, ` "" is invalid: patch: Invalid value: "${goFormat(patch)}": ${detail}`);
            assert.deepEqual(err.status.details?.causes, [{ reason: 'FieldValueInvalid', message: `Invalid value: "${goFormat(patch)}": ${detail}`, field: 'patch' }]);
            return true;
          },
        );
      });
    }

    it('a value of the right shape, null, a whole number for a float and an unknown field pass', () => {
      const schema = catalogPatchSchema('io.k8s.api.core.v1.ConfigMap');
      assert.deepEqual(applyStrategicMergePatch(cm, { metadata: { labels: null }, immutable: true, unknownField: 'x' }, schema), {
        ...cm,
        metadata: { name: 'c' },
        immutable: true,
        unknownField: 'x',
      });
    });
  });
});
