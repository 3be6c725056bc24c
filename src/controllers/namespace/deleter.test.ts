import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DefaultResourceTable } from '../../registry/index.js';
import type { ResourceDefinition } from '../../rest/index.js';
import { coreDefinitions } from '../../testing/memory-table.js';
import { deletableResources, deletionConditions, type NamespaceCondition } from './deleter.js';

const T0 = new Date('2026-01-01T00:00:00.123Z');
const T1 = new Date('2026-01-01T00:05:00Z');

test('a clean pass sets the five conditions False with the Kubernetes reasons and messages', () => {
  const conditions = deletionConditions([], { remaining: new Map(), finalizers: new Map(), errors: [] }, T0);
  assert.deepEqual(conditions, [
    { type: 'NamespaceDeletionDiscoveryFailure', status: 'False', reason: 'ResourcesDiscovered', message: 'All resources successfully discovered', lastTransitionTime: '2026-01-01T00:00:00Z' },
    { type: 'NamespaceDeletionGroupVersionParsingFailure', status: 'False', reason: 'ParsedGroupVersions', message: 'All legacy kube types successfully parsed', lastTransitionTime: '2026-01-01T00:00:00Z' },
    { type: 'NamespaceDeletionContentFailure', status: 'False', reason: 'ContentDeleted', message: 'All content successfully deleted, may be waiting on finalization', lastTransitionTime: '2026-01-01T00:00:00Z' },
    { type: 'NamespaceContentRemaining', status: 'False', reason: 'ContentRemoved', message: 'All content successfully removed', lastTransitionTime: '2026-01-01T00:00:00Z' },
    { type: 'NamespaceFinalizersRemaining', status: 'False', reason: 'ContentHasNoFinalizers', message: 'All content-preserving finalizers finished', lastTransitionTime: '2026-01-01T00:00:00Z' },
  ]);
});

test('failures and leftovers are reported; unchanged statuses keep their transition time', () => {
  const first = deletionConditions([{ type: 'Other', status: 'True', reason: 'X', message: 'kept', lastTransitionTime: 't' }], { remaining: new Map(), finalizers: new Map(), errors: [] }, T0);
  const next = deletionConditions(
    first,
    {
      remaining: new Map([['pods.', 2], ['deployments.apps', 1]]),
      finalizers: new Map([['b.io/y', 1], ['a.io/x', 2]]),
      errors: ['boom', 'bang'],
    },
    T1,
  );
  const byType = new Map(next.map((c: NamespaceCondition) => [c.type, c]));
  assert.equal(byType.get('Other')?.message, 'kept');
  assert.equal(byType.get('NamespaceDeletionDiscoveryFailure')?.lastTransitionTime, '2026-01-01T00:00:00Z');
  assert.deepEqual(byType.get('NamespaceDeletionContentFailure'), {
    type: 'NamespaceDeletionContentFailure', status: 'True', reason: 'ContentDeletionFailed',
    message: 'Failed to delete all resource types, 2 remaining: [boom, bang]', lastTransitionTime: '2026-01-01T00:05:00Z',
  });
  assert.equal(byType.get('NamespaceContentRemaining')?.message, 'Some resources are remaining: deployments.apps has 1 resource instances, pods. has 2 resource instances');
  assert.equal(byType.get('NamespaceFinalizersRemaining')?.message, 'Some content in the namespace has finalizers remaining: a.io/x in 2 resource instances, b.io/y in 1 resource instances');
  assert.equal(byType.get('NamespaceFinalizersRemaining')?.reason, 'SomeFinalizersRemain');
});

test('resources sharing storage are deleted once, through the preferred version; cluster-scoped and virtual ones are skipped', () => {
  // Only the definitions matter here: the stores carry nothing else.
  const [namespaces, configmaps, events, nodes] = coreDefinitions('namespaces', 'configmaps', 'events', 'nodes') as [ResourceDefinition, ResourceDefinition, ResourceDefinition, ResourceDefinition];
  const definitions: ResourceDefinition[] = [
    namespaces,
    configmaps,
    { ...events, group: 'events.example', storage: { group: '', resource: 'events', version: 'v1' }, preferred: true },
    { ...events, storage: { group: '', resource: 'events', version: 'v1' }, preferred: false },
    { ...configmaps, group: 'authz.example', resource: 'localreviews', kind: 'Review', verbs: ['create'], storage: undefined },
    nodes,
  ];
  const table = new DefaultResourceTable(definitions.map((definition) => ({ definition })));
  assert.deepEqual(
    deletableResources(table).map((d) => `${d.resource}.${d.group}`),
    ['configmaps.', 'events.events.example'],
  );
});
