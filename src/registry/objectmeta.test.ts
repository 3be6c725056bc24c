import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';
import { pathSegmentName } from '../apimachinery/names.js';

describe('object metadata validation of huge maps', () => {
  it('150,000 invalid label keys are 150,000 findings, not a stack overflow', () => {
    const labels: Record<string, string> = {};
    for (let i = 0; i < 150000; i++) labels[`-bad${i}`] = 'v';
    const meta = { name: 'c', namespace: 'default', labels, finalizers: Array.from({ length: 150000 }, () => 'no/such/finalizer/') };
    assert.equal(validateObjectMeta(meta, true, pathSegmentName).filter((e) => e.field === 'metadata.labels').length, 150000);
    assert.ok(validateObjectMetaUpdate(meta, meta).length >= 150000);
  });
});
