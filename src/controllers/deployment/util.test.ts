import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject } from '../../apimachinery/types.js';
import { setFlavor } from '../../naming/index.js';
import { deploymentAnnotation, maxSurge, maxUnavailable, newRSNewReplicas, proportion, resolveFenceposts, scaledValue } from './util.js';

function d(replicas: number, rollingUpdate: Record<string, unknown> = {}, type = 'RollingUpdate'): KubeObject {
  return { metadata: { name: 'd' }, spec: { replicas, strategy: { type, rollingUpdate } } };
}

test('percentages: maxSurge rounds up, maxUnavailable down; both zero leaves one unavailable', () => {
  assert.deepEqual(resolveFenceposts(d(10)), { surge: 3, unavailable: 2 });
  assert.deepEqual(resolveFenceposts(d(3, { maxSurge: '10%', maxUnavailable: '10%' })), { surge: 1, unavailable: 0 });
  assert.deepEqual(resolveFenceposts(d(3, { maxSurge: 0, maxUnavailable: '10%' })), { surge: 0, unavailable: 1 });
  assert.equal(maxUnavailable(d(2, { maxUnavailable: 5 })), 2, 'never more than the replicas');
  assert.equal(maxSurge(d(5, {}, 'Recreate')), 0);
  assert.equal(maxUnavailable(d(5, {}, 'Recreate')), 0);
  assert.throws(() => scaledValue('ten%', 10, true, '25%'), /not a percentage/);
  assert.throws(() => scaledValue('__proto__', 10, true, '25%'), /not a percentage/);
});

test('the new ReplicaSet grows as far as the surge allows', () => {
  const deploy = d(10, { maxSurge: 2 });
  const rs = (n: number): KubeObject => ({ metadata: { name: `rs${n}` }, spec: { replicas: n } });
  assert.equal(newRSNewReplicas(deploy, [rs(10), rs(0)], rs(0)), 2);
  assert.equal(newRSNewReplicas(deploy, [rs(10), rs(2)], rs(2)), 2, 'at 12 of 12: no more');
  assert.equal(newRSNewReplicas(deploy, [rs(3), rs(8)], rs(8)), 9);
});

test('proportions follow the max-replicas annotation (kubernetes flavor)', () => {
  setFlavor('kubernetes');
  try {
    const deploy = d(20, { maxSurge: 3 });
    const rs = (n: number): KubeObject => ({ metadata: { name: 'x', annotations: { [deploymentAnnotation('max-replicas')]: '13' } }, spec: { replicas: n } });
    assert.equal(deploymentAnnotation('max-replicas'), 'deployment.kubernetes.io/max-replicas');
    // 8 of 13 becomes 14 of 23; 5 of 13 becomes 9 of 23 (8.85 rounded).
    assert.equal(proportion(rs(8), deploy, 10, 0), 6);
    assert.equal(proportion(rs(5), deploy, 10, 6), 4);
    assert.equal(proportion(rs(5), deploy, 10, 10), 0, 'nothing left to add');
    assert.equal(proportion(rs(0), deploy, 10, 0), 0);
  } finally {
    setFlavor('orch');
  }
  assert.equal(deploymentAnnotation('revision'), 'deployment.orch.io/revision');
});
