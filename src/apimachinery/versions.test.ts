import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compareKubeAwareVersions, sortByVersionPriority } from './versions.js';

test('versions sort as Kubernetes orders them: GA, beta, alpha, then other names ascending', () => {
  // The ordering apimachinery's version helpers document and test.
  const shuffled = ['foo10', 'v1alpha1', 'v11alpha2', 'v1', 'foo1', 'v2', 'v10beta3', 'v12alpha1', 'v3beta1', 'v10', 'v11beta2'];
  assert.deepEqual(sortByVersionPriority(shuffled), ['v10', 'v2', 'v1', 'v11beta2', 'v10beta3', 'v3beta1', 'v12alpha1', 'v11alpha2', 'v1alpha1', 'foo1', 'foo10']);
});

test('compareKubeAwareVersions', () => {
  const cases: [string, string, number][] = [
    ['v1', 'v1', 0],
    ['v2', 'v1', 1],
    ['v1', 'v2', -1],
    ['v1', 'v2beta1', 1],
    ['v1beta2', 'v1beta1', 1],
    ['v1alpha1', 'v1beta1', -1],
    ['v1', 'foo', 1],
    ['foo', 'v1alpha1', -1],
    ['a', 'b', 1],
    ['v1.0', 'v1', -1],
  ];
  for (const [a, b, sign] of cases) assert.equal(Math.sign(compareKubeAwareVersions(a, b)), sign, `${a} vs ${b}`);
});
