import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gcFinalizers, planDelete } from './graceful.js';

const now = new Date(Date.UTC(2024, 0, 1));
const obj = (finalizers?: string[], deleting = false) => ({ metadata: { name: 'o', ...(finalizers ? { finalizers } : {}), ...(deleting ? { deletionTimestamp: '2024-01-01T00:00:00Z', deletionGracePeriodSeconds: 0 } : {}) } });

test('the propagation policy becomes the collector finalizers, options first, then existing finalizers, then the kind default', () => {
  assert.deepEqual(gcFinalizers(obj(), { dryRun: false, propagationPolicy: 'Foreground' }), ['foregroundDeletion']);
  assert.deepEqual(gcFinalizers(obj(), { dryRun: false, propagationPolicy: 'Orphan' }), ['orphan']);
  assert.equal(gcFinalizers(obj(), { dryRun: false, propagationPolicy: 'Background' }), undefined);
  assert.deepEqual(gcFinalizers(obj(), { dryRun: false, orphanDependents: true }), ['orphan']);
  assert.deepEqual(gcFinalizers(obj(['orphan']), { dryRun: false, orphanDependents: false }), []);
  assert.equal(gcFinalizers(obj(['x', 'orphan']), { dryRun: false }), undefined, 'an existing finalizer stands');
  assert.deepEqual(gcFinalizers(obj(), { dryRun: false }, 'OrphanDependents'), ['orphan'], 'Jobs and ReplicationControllers');
  assert.equal(gcFinalizers(obj(), { dryRun: false, propagationPolicy: 'Orphan' }, 'Unsupported'), undefined, 'Events');
});

test('planDelete: a foreground delete marks the object; a later background delete of it removes it', () => {
  const first = planDelete({}, obj(), { dryRun: false, propagationPolicy: 'Foreground' }, now);
  assert.equal(first.kind, 'update');
  assert.deepEqual(first.kind === 'update' && first.object.metadata?.finalizers, ['foregroundDeletion']);
  assert.deepEqual(planDelete({}, obj(['foregroundDeletion'], true), { dryRun: false, propagationPolicy: 'Background' }, now), { kind: 'remove' });
  assert.deepEqual(planDelete({}, obj(['foregroundDeletion'], true), { dryRun: false }, now), { kind: 'unchanged' });
  assert.deepEqual(planDelete({}, obj(), { dryRun: false }, now), { kind: 'remove' });
});
