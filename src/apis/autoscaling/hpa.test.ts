import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../apimachinery/types.js';
import { definitionOf, strategyOf } from '../../testing/apis.js';
import { hpaV1ToV2, hpaV2ToV1 } from './hpa.js';

const v2 = (): KubeObject => ({
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  metadata: { name: 'web', namespace: 'd', annotations: { keep: 'me' } },
  spec: {
    scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
    minReplicas: 2,
    maxReplicas: 10,
    metrics: [
      { type: 'Pods', pods: { metric: { name: 'rps' }, target: { type: 'AverageValue', averageValue: '100' } } },
      { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } },
    ],
    behavior: { scaleDown: { stabilizationWindowSeconds: 60 } },
  },
  status: {
    currentReplicas: 3,
    desiredReplicas: 4,
    currentMetrics: [
      { type: 'Pods', pods: { metric: { name: 'rps' }, current: { averageValue: '80' } } },
      { type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 45 } } },
    ],
    conditions: [{ type: 'AbleToScale', status: 'True' }],
  },
});

describe('HorizontalPodAutoscaler autoscaling/v1 <-> v2', () => {
  it('v2 to v1 keeps the CPU target and moves the rest to annotations', () => {
    const v1 = hpaV2ToV1(v2());
    assert.equal(v1.apiVersion, 'autoscaling/v1');
    assert.deepEqual(v1.spec, { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 2, maxReplicas: 10, targetCPUUtilizationPercentage: 60 });
    assert.deepEqual(v1.status, { currentReplicas: 3, desiredReplicas: 4, currentCPUUtilizationPercentage: 45 });
    const a = v1.metadata?.annotations ?? {};
    assert.equal(a.keep, 'me');
    assert.deepEqual(JSON.parse(a['autoscaling.alpha.orch.io/metrics']), [{ type: 'Pods', pods: { metric: { name: 'rps' }, target: { type: 'AverageValue', averageValue: '100' } } }]);
    assert.deepEqual(JSON.parse(a['autoscaling.alpha.orch.io/behavior']), { scaleDown: { stabilizationWindowSeconds: 60 } });
    assert.deepEqual(JSON.parse(a['autoscaling.alpha.orch.io/conditions']), [{ type: 'AbleToScale', status: 'True' }]);
    assert.deepEqual(JSON.parse(a['autoscaling.alpha.orch.io/current-metrics']), [{ type: 'Pods', pods: { metric: { name: 'rps' }, current: { averageValue: '80' } } }]);
  });

  it('v2 -> v1 -> v2 gives back the same object (CPU metric last, as v1 restores it)', () => {
    const original = v2();
    const back = hpaV1ToV2(hpaV2ToV1(original));
    assert.deepEqual(back, original);
  });

  it('v1 -> v2 -> v1 gives back the same object', () => {
    const v1: KubeObject = {
      apiVersion: 'autoscaling/v1',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'web', namespace: 'd' },
      spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 3, targetCPUUtilizationPercentage: 50 },
      status: { currentReplicas: 1, desiredReplicas: 1, currentCPUUtilizationPercentage: 10 },
    };
    const stored = hpaV1ToV2(v1);
    assert.deepEqual((stored.spec as Record<string, unknown>).metrics, [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }]);
    assert.equal(stored.metadata?.annotations, undefined);
    assert.deepEqual(hpaV2ToV1(stored), v1);
  });

  it('is the conversion of the autoscaling/v1 definition; v2 defaults the CPU metric and behavior', () => {
    const def = definitionOf('autoscaling', 'horizontalpodautoscalers', 'v1');
    assert.equal(def.conversion?.toStorage, hpaV1ToV2);
    const s = strategyOf('autoscaling', 'horizontalpodautoscalers');
    const o: KubeObject = { metadata: { name: 'h', namespace: 'd' }, spec: { scaleTargetRef: { kind: 'Deployment', name: 'w' }, maxReplicas: 3, behavior: {} } };
    s.defaults(o);
    const spec = o.spec as Record<string, unknown>;
    assert.equal(spec.minReplicas, 1);
    assert.deepEqual(spec.metrics, [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }]);
    assert.deepEqual(spec.behavior, {
      scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }] },
      scaleDown: { stabilizationWindowSeconds: 300, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] },
    });
    assert.deepEqual(s.validate(o), []);
    const bad: KubeObject = { metadata: { name: 'h', namespace: 'd' }, spec: { scaleTargetRef: { kind: 'Deployment', name: 'w' }, minReplicas: 4, maxReplicas: 3 } };
    assert.deepEqual(s.validate(bad).map((e) => `${e.field}: ${e.detail}`), ['spec.maxReplicas: Invalid value: 3: must be greater than or equal to `minReplicas`']);
  });
});
