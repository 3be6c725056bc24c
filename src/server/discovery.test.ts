import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareVersions, storageVersionHash } from './discovery.js';

describe('discovery helpers', () => {
  it('computes the storage version hashes Kubernetes reports', () => {
    // Values as kube-apiserver 1.27 lists them in /api/v1.
    assert.equal(storageVersionHash('', 'v1', 'ConfigMap'), 'qFsyl6wFWjQ=');
    assert.equal(storageVersionHash('', 'v1', 'Pod'), 'xPOwRZ+Yhw8=');
  });

  it('orders versions GA first, then beta, then alpha, higher numbers first', () => {
    assert.deepEqual(['v1beta1', 'v1', 'v2', 'v1alpha1', 'v1beta2', 'v2beta1'].sort(compareVersions), ['v2', 'v1', 'v2beta1', 'v1beta2', 'v1beta1', 'v1alpha1']);
  });
});
