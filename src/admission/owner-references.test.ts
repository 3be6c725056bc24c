// OwnerReferencesPermissionEnforcement with a recording authorizer: which questions are asked
// for which changes, and kube's refusals.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../apimachinery/errors.js';
import type { KubeObject } from '../apimachinery/types.js';
import type { ResourceAccess } from './access.js';
import { newBlockingRefs, OwnerReferencesPermissionEnforcement } from './owner-references.js';
import type { AdmissionAttributes, AdmissionOperation } from './types.js';

const rs = (uid: string, block?: boolean) => ({ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `rs-${uid}`, uid, ...(block === undefined ? {} : { blockOwnerDeletion: block }) });
const obj = (owners: unknown[]): KubeObject => ({ metadata: { name: 'p', ownerReferences: owners as never } });

function attrs(op: AdmissionOperation, object: KubeObject, old?: KubeObject, subresource = ''): AdmissionAttributes {
  return {
    operation: op,
    object,
    oldObject: old,
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    subresource,
    namespace: 'team',
    name: 'p',
    user: { username: 'alice', groups: [] },
    dryRun: false,
    warnings: [],
  };
}

function plugin(allow: (a: ResourceAccess) => boolean) {
  const asked: string[] = [];
  const p = new OwnerReferencesPermissionEnforcement(
    async (_user, a) => {
      asked.push(`${a.verb} ${a.group}/${a.resource}/${a.subresource} ${a.namespace}/${a.name}`);
      return { allowed: allow(a), reason: '' };
    },
    (g, v, kind) => {
      if (g === 'apps' && v === 'v1' && kind === 'ReplicaSet') return ['replicasets'];
      throw new Error(`no matches for kind "${kind}" in version "${g}/${v}"`);
    },
  );
  return { p, asked };
}

async function outcome(p: Promise<void>): Promise<string | undefined> {
  try {
    await p;
    return undefined;
  } catch (e) {
    assert.ok(e instanceof ApiError && e.code === 403, String(e));
    return e.message;
  }
}

test('newly blocking references: added blocking, or switched to blocking (by uid)', () => {
  assert.deepEqual(newBlockingRefs([rs('a', true), rs('b')], undefined), [rs('a', true)]);
  assert.deepEqual(newBlockingRefs([rs('a', true), rs('b', true)], [rs('a', true), rs('b', false)]), [rs('b', true)]);
  assert.deepEqual(newBlockingRefs([rs('a', false)], [rs('a', true)]), []);
});

test('creates need finalizers rights only for blocking owners; updates need delete on the object', async () => {
  const onlyDelete = (a: ResourceAccess) => a.verb === 'delete';
  const none = () => false;
  const cases: [string, (a: ResourceAccess) => boolean, AdmissionAttributes, string | undefined, string[]][] = [
    ['create, non-blocking owner', none, attrs('CREATE', obj([rs('a')])), undefined, []],
    ['create, no owners', none, attrs('CREATE', obj([])), undefined, []],
    [
      'create, blocking owner without rights',
      onlyDelete,
      attrs('CREATE', obj([rs('a', true)])),
      `pods "p" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: , <nil>`,
      ['update */*/finalizers /*', 'update apps/replicasets/finalizers team/rs-a'],
    ],
    ['create, blocking owner with rights on it', (a) => a.resource === 'replicasets', attrs('CREATE', obj([rs('a', true)])), undefined, ['update */*/finalizers /*', 'update apps/replicasets/finalizers team/rs-a']],
    ['create, blocking owner, may finalize anything', (a) => a.resource === '*', attrs('CREATE', obj([rs('a', true)])), undefined, ['update */*/finalizers /*']],
    ['update without change', none, attrs('UPDATE', obj([rs('a', true)]), obj([rs('a', true)])), undefined, []],
    [
      'update adding an owner without delete',
      none,
      attrs('UPDATE', obj([rs('a')]), obj([])),
      `pods "p" is forbidden: cannot set an ownerRef on a resource you can't delete: , <nil>`,
      ['delete /pods/ team/p'],
    ],
    ['update adding an owner with delete', onlyDelete, attrs('UPDATE', obj([rs('a')]), obj([])), undefined, ['delete /pods/ team/p']],
    [
      'update making an owner blocking',
      onlyDelete,
      attrs('UPDATE', obj([rs('a', true)]), obj([rs('a')])),
      `pods "p" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: , <nil>`,
      ['delete /pods/ team/p', 'update */*/finalizers /*', 'update apps/replicasets/finalizers team/rs-a'],
    ],
    [
      'unknown owner kind',
      onlyDelete,
      attrs('CREATE', obj([{ apiVersion: 'example.com/v1', kind: 'Thing', name: 't', uid: 'u', blockOwnerDeletion: true }])),
      'pods "p" is forbidden: cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion example.com/v1 Kind Thing: no matches for kind "Thing" in version "example.com/v1"',
      ['update */*/finalizers /*'],
    ],
    [
      'malformed apiVersion',
      onlyDelete,
      attrs('CREATE', obj([{ apiVersion: 'a/b/c', kind: 'X', name: 't', uid: 'u', blockOwnerDeletion: true }])),
      'pods "p" is forbidden: cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion a/b/c Kind X: unexpected GroupVersion string: a/b/c',
      ['update */*/finalizers /*'],
    ],
    ['pod status is exempt', none, attrs('UPDATE', obj([rs('a', true)]), obj([]), 'status'), undefined, []],
  ];
  for (const [name, allow, a, want, questions] of cases) {
    const { p, asked } = plugin(allow);
    assert.equal(await outcome(p.validate(a)), want, name);
    assert.deepEqual(asked, questions, name);
  }
});
