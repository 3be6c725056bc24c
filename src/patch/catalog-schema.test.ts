// Strategic merge patch over the generated catalog of built-in types.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { applyStrategicMergePatch } from './strategic-merge-patch.js';
import { catalogPatchSchema, catalogSupportsStrategicMergePatch } from './catalog-schema.js';
import { getCatalog, typeIdForKind } from '../schema/index.js';

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
});
