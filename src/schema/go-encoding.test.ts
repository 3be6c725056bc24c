import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fillGoEncodedZeroValues } from './go-encoding.js';

test('non-pointer structs become {} and non-pointer times null, as Go writes them', () => {
  const deployment: Record<string, unknown> = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', creationTimestamp: '2024-01-01T00:00:00Z' },
    spec: { template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'x' }] } } },
  };
  fillGoEncodedZeroValues(deployment, { group: 'apps', version: 'v1', kind: 'Deployment' });
  const spec = deployment.spec as Record<string, Record<string, Record<string, unknown>>>;
  assert.deepEqual(spec.template?.metadata, { labels: { app: 'web' }, creationTimestamp: null });
  assert.deepEqual((spec.template?.spec?.containers as Record<string, unknown>[])[0]?.resources, {});
  // DeploymentStrategy is a struct, the selector a pointer.
  assert.deepEqual(spec.strategy, {});
  assert.equal('selector' in spec, false);
  assert.deepEqual(deployment.status, {});
  assert.equal((deployment.metadata as Record<string, unknown>).creationTimestamp, '2024-01-01T00:00:00Z');
  // Pointers (deletionTimestamp) stay absent.
  assert.equal('deletionTimestamp' in (deployment.metadata as Record<string, unknown>), false);
});

test('list and map items are filled; kinds outside the catalog are left alone', () => {
  const pod: Record<string, unknown> = {
    metadata: { name: 'p' },
    spec: { containers: [] },
    status: { conditions: [{ type: 'Ready', status: 'True' }] },
  };
  fillGoEncodedZeroValues(pod, { group: '', version: 'v1', kind: 'Pod' });
  const condition = ((pod.status as Record<string, unknown>).conditions as Record<string, unknown>[])[0];
  assert.deepEqual(condition, { type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: null });
  const custom: Record<string, unknown> = { spec: {} };
  fillGoEncodedZeroValues(custom, { group: 'example.com', version: 'v1', kind: 'Widget' });
  assert.deepEqual(custom, { spec: {} });
});

test('with scalars, absent non-omitempty strings, numbers and booleans get their zero value', () => {
  const event: Record<string, unknown> = { metadata: { name: 'e' }, involvedObject: { kind: 'Pod' }, reason: 'R' };
  fillGoEncodedZeroValues(event, { group: '', version: 'v1', kind: 'Event' }, { scalars: true });
  assert.equal(event.reportingComponent, '');
  assert.equal(event.reportingInstance, '');
  assert.deepEqual(event.source, {});
  assert.equal(event.eventTime, null);
  // omitempty fields stay absent.
  assert.equal('count' in event, false);
  const rs: Record<string, unknown> = { metadata: { name: 'r' }, spec: { selector: { matchLabels: { a: 'b' } } } };
  fillGoEncodedZeroValues(rs, { group: 'apps', version: 'v1', kind: 'ReplicaSet' }, { scalars: true });
  assert.deepEqual(rs.status, { replicas: 0 });
  // Without the option, scalars are left absent.
  const plain: Record<string, unknown> = { metadata: { name: 'e' } };
  fillGoEncodedZeroValues(plain, { group: '', version: 'v1', kind: 'Event' });
  assert.equal('reportingComponent' in plain, false);
});
