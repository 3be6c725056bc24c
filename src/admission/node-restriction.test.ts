// NodeRestriction: a table of what node n1 may and may not write, with kube's messages.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../apimachinery/errors.js';
import type { KubeObject } from '../apimachinery/types.js';
import { FakeClient } from '../testing/fake-client.js';
import { forbiddenNodeLabels, NodeRestriction, nodeIdentity } from './node-restriction.js';
import type { AdmissionAttributes, AdmissionOperation } from './types.js';

const n1 = { username: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] };

interface Req {
  op: AdmissionOperation;
  group?: string;
  resource: string;
  sub?: string;
  ns?: string;
  name?: string;
  object?: KubeObject;
  old?: KubeObject;
  user?: { username: string; groups: string[] };
}

function attrs(r: Req): AdmissionAttributes {
  return {
    operation: r.op,
    object: r.object,
    oldObject: r.old,
    kind: { group: r.group ?? '', version: 'v1', kind: 'X' },
    resource: { group: r.group ?? '', version: 'v1', resource: r.resource },
    subresource: r.sub ?? '',
    namespace: r.ns ?? '',
    name: r.name ?? r.object?.metadata?.name ?? '',
    user: r.user ?? n1,
    dryRun: false,
    warnings: [],
  };
}

const POD = { group: '', version: 'v1', resource: 'pods' };
const NODE = { group: '', version: 'v1', resource: 'nodes' };

async function world(): Promise<FakeClient> {
  const c = new FakeClient();
  // The fake client numbers uids in creation order: uid-1 (n1), uid-2 (mine), uid-3 (theirs).
  await c.create(NODE, '', { metadata: { name: 'n1' } });
  await c.create(POD, 'team', { metadata: { name: 'mine', namespace: 'team'}, spec: { nodeName: 'n1' } });
  await c.create(POD, 'team', { metadata: { name: 'theirs', namespace: 'team', uid: 'uid-3' }, spec: { nodeName: 'n2' } });
  return c;
}

const owner = { apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'uid-1', controller: true };
function mirror(spec: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): KubeObject {
  return {
    metadata: { name: 'static', namespace: 'team', annotations: { 'orch.io/config.mirror': 'x' }, ownerReferences: [owner], ...meta },
    spec: { nodeName: 'n1', containers: [{ name: 'a', image: 'a' }], ...spec },
  };
}
const node = (name: string, labels: Record<string, string> = {}, spec: Record<string, unknown> = {}): KubeObject => ({ metadata: { name, labels }, spec });

test('node identity: the prefix and the group are both needed', () => {
  assert.equal(nodeIdentity(n1), 'n1');
  assert.equal(nodeIdentity({ username: 'system:node:n1', groups: [] }), undefined);
  assert.equal(nodeIdentity({ username: 'n1', groups: ['system:nodes'] }), undefined);
  assert.equal(nodeIdentity({ username: 'system:node:', groups: ['system:nodes'] }), '');
});

test('node label rules: node-restriction and unknown reserved labels are refused, kubelet labels allowed', () => {
  assert.deepEqual(
    forbiddenNodeLabels([
      'orch.io/hostname',
      'topology.orch.io/zone',
      'node.orch.io/instance-type',
      'kubelet.orch.io/anything',
      'sub.node.orch.io/x',
      'example.com/free',
      'plain',
      'node-restriction.orch.io/fenced',
      'x.node-restriction.orch.io/fenced',
      'orch.io/made-up',
      'other.orch.io/role',
      '__proto__',
    ]),
    ['node-restriction.orch.io/fenced', 'orch.io/made-up', 'other.orch.io/role', 'x.node-restriction.orch.io/fenced'],
  );
});

test('what node n1 may write', async () => {
  const plugin = new NodeRestriction(await world());
  const q = '"n1"';
  const cases: [string, Req, string | number | undefined][] = [
    // Nodes.
    ['create itself', { op: 'CREATE', resource: 'nodes', object: node('n1', { 'orch.io/hostname': 'n1', 'example.com/x': 'y' }) }, undefined],
    ['create another node', { op: 'CREATE', resource: 'nodes', object: node('n2') }, `nodes "n2" is forbidden: node ${q} is not allowed to modify node "n2"`],
    ['update another node', { op: 'UPDATE', resource: 'nodes', name: 'n2', object: node('n2'), old: node('n2') }, `nodes "n2" is forbidden: node ${q} is not allowed to modify node "n2"`],
    ['status of another node', { op: 'UPDATE', resource: 'nodes', sub: 'status', name: 'n2', object: node('n2'), old: node('n2') }, `nodes "n2" is forbidden: node ${q} is not allowed to modify node "n2"`],
    ['create with a fenced label', { op: 'CREATE', resource: 'nodes', object: node('n1', { 'node-restriction.orch.io/a': '1', 'orch.io/role': 'x' }) }, `nodes "n1" is forbidden: node ${q} is not allowed to set the following labels: node-restriction.orch.io/a, orch.io/role`],
    ['create with configSource', { op: 'CREATE', resource: 'nodes', object: node('n1', {}, { configSource: { configMap: {} } }) }, `nodes "n1" is forbidden: node ${q} is not allowed to create pods with a non-nil configSource`],
    ['remove its taint', { op: 'UPDATE', resource: 'nodes', name: 'n1', object: node('n1'), old: node('n1', {}, { taints: [{ key: 'k', effect: 'NoSchedule' }] }) }, `nodes "n1" is forbidden: node ${q} is not allowed to modify taints`],
    ['empty taints equal absent ones', { op: 'UPDATE', resource: 'nodes', name: 'n1', object: node('n1', {}, { taints: [] }), old: node('n1') }, undefined],
    ['new configSource', { op: 'UPDATE', resource: 'nodes', name: 'n1', object: node('n1', {}, { configSource: { a: 1 } }), old: node('n1') }, `nodes "n1" is forbidden: node ${q} is not allowed to update configSource to a new non-nil configSource`],
    ['drop a fenced label', { op: 'UPDATE', resource: 'nodes', name: 'n1', object: node('n1'), old: node('n1', { 'node-restriction.orch.io/a': '1' }) }, 'nodes "n1" is forbidden: is not allowed to modify labels: node-restriction.orch.io/a'],
    ['change a kubelet label', { op: 'UPDATE', resource: 'nodes', name: 'n1', object: node('n1', { 'orch.io/arch': 'arm64' }), old: node('n1', { 'orch.io/arch': 'amd64' }) }, undefined],
    // Pods.
    ['create a mirror pod', { op: 'CREATE', resource: 'pods', ns: 'team', object: mirror() }, undefined],
    ['create a normal pod', { op: 'CREATE', resource: 'pods', ns: 'team', object: mirror({}, { annotations: {} }) }, `pods "static" is forbidden: pod does not have "orch.io/config.mirror" annotation, node ${q} can only create mirror pods`],
    ['mirror pod for another node', { op: 'CREATE', resource: 'pods', ns: 'team', object: mirror({ nodeName: 'n2' }) }, `pods "static" is forbidden: node ${q} can only create pods with spec.nodeName set to itself`],
    ['mirror pod with no owner', { op: 'CREATE', resource: 'pods', ns: 'team', object: mirror({}, { ownerReferences: [] }) }, `pods "static" is forbidden: node ${q} can only create pods with an owner reference set to itself`],
    ['mirror pod owned by another node', { op: 'CREATE', resource: 'pods', ns: 'team', object: mirror({}, { ownerReferences: [{ ...owner, name: 'n2' }] }) }, `pods "static" is forbidden: node ${q} can only create pods with an owner reference set to itself`],
    ['two owners', { op: 'CREATE', resource: 'pods', ns: 'team', object: mirror({}, { ownerReferences: [owner, owner] }) }, `pods "static" is forbidden: node ${q} can only create pods with a single owner reference set to itself`],
    ['not controller', { op: 'CREATE', resource: 'pods', ns: 'team', object: mirror({}, { ownerReferences: [{ ...owner, controller: false }] }) }, `pods "static" is forbidden: node ${q} can only create pods with a controller owner reference set to itself`],
    ['blocking owner', { op: 'CREATE', resource: 'pods', ns: 'team', object: mirror({}, { ownerReferences: [{ ...owner, blockOwnerDeletion: true }] }) }, `pods "static" is forbidden: node ${q} must not set blockOwnerDeletion on an owner reference`],
    ['stale node uid', { op: 'CREATE', resource: 'pods', ns: 'team', object: mirror({}, { ownerReferences: [{ ...owner, uid: 'old' }] }) }, 'pods "static" is forbidden: node n1 UID mismatch: expected old got uid-1'],
    ['service account', { op: 'CREATE', resource: 'pods', ns: 'team', object: mirror({ serviceAccountName: 'sa' }) }, `pods "static" is forbidden: node ${q} can not create pods that reference a service account`],
    ['secret env', { op: 'CREATE', resource: 'pods', ns: 'team', object: mirror({ containers: [{ name: 'a', env: [{ name: 'x', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] }] }) }, `pods "static" is forbidden: node ${q} can not create pods that reference secrets`],
    ['projected config map', { op: 'CREATE', resource: 'pods', ns: 'team', object: mirror({ volumes: [{ name: 'v', projected: { sources: [{ configMap: { name: 'c' } }] } }] }) }, `pods "static" is forbidden: node ${q} can not create pods that reference configmaps`],
    ['claim', { op: 'CREATE', resource: 'pods', ns: 'team', object: mirror({ volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'c' } }] }) }, `pods "static" is forbidden: node ${q} can not create pods that reference persistentvolumeclaims`],
    ['update a pod', { op: 'UPDATE', resource: 'pods', ns: 'team', name: 'mine', object: mirror(), old: mirror() }, `pods "mine" is forbidden: unexpected operation "UPDATE", node ${q} can only create and delete mirror pods`],
    ['delete its pod', { op: 'DELETE', resource: 'pods', ns: 'team', name: 'mine' }, undefined],
    ['delete another node\'s pod', { op: 'DELETE', resource: 'pods', ns: 'team', name: 'theirs' }, `pods "theirs" is forbidden: node ${q} can only delete pods with spec.nodeName set to itself`],
    ['delete a missing pod', { op: 'DELETE', resource: 'pods', ns: 'team', name: 'gone' }, 404],
    ['status of its pod', { op: 'UPDATE', resource: 'pods', sub: 'status', ns: 'team', name: 'mine', object: { metadata: { name: 'mine' }, spec: { nodeName: 'n1' } }, old: { metadata: { name: 'mine' }, spec: { nodeName: 'n1' } } }, undefined],
    ['status of another pod', { op: 'UPDATE', resource: 'pods', sub: 'status', ns: 'team', name: 'theirs', object: { metadata: { name: 'theirs' } }, old: { metadata: { name: 'theirs' }, spec: { nodeName: 'n2' } } }, `pods "theirs" is forbidden: node ${q} can only update pod status for pods with spec.nodeName set to itself`],
    ['labels through status', { op: 'UPDATE', resource: 'pods', sub: 'status', ns: 'team', name: 'mine', object: { metadata: { name: 'mine', labels: { a: 'b' } }, spec: { nodeName: 'n1' } }, old: { metadata: { name: 'mine' }, spec: { nodeName: 'n1' } } }, `pods "mine" is forbidden: node ${q} cannot update labels through pod status`],
    ['evict its pod', { op: 'CREATE', resource: 'pods', sub: 'eviction', ns: 'team', name: 'mine', object: { metadata: { name: 'mine' } } }, undefined],
    ['evict another pod', { op: 'CREATE', resource: 'pods', sub: 'eviction', ns: 'team', name: 'theirs', object: { metadata: { name: 'theirs' } } }, 'pods "theirs" is forbidden: node n1 can only evict pods with spec.nodeName set to itself'],
    ['other pod subresource', { op: 'CREATE', resource: 'pods', sub: 'binding', ns: 'team', name: 'mine', object: { metadata: { name: 'mine' } } }, `pods "mine" is forbidden: unexpected pod subresource "binding", only 'status' and 'eviction' are allowed`],
    // Claims, tokens, leases, CSINodes.
    ['claim spec', { op: 'UPDATE', resource: 'persistentvolumeclaims', ns: 'team', name: 'c', object: { metadata: { name: 'c' } }, old: { metadata: { name: 'c' } } }, 'persistentvolumeclaims "c" is forbidden: may only update PVC status'],
    ['claim capacity', { op: 'UPDATE', resource: 'persistentvolumeclaims', sub: 'status', ns: 'team', name: 'c', object: { metadata: { name: 'c', resourceVersion: '2' }, status: { capacity: { storage: '2Gi' } } }, old: { metadata: { name: 'c', resourceVersion: '1' }, status: {} } }, undefined],
    ['claim phase', { op: 'UPDATE', resource: 'persistentvolumeclaims', sub: 'status', ns: 'team', name: 'c', object: { metadata: { name: 'c' }, status: { phase: 'Lost' } }, old: { metadata: { name: 'c' }, status: {} } }, `persistentvolumeclaims "c" is forbidden: node ${q} is not allowed to update fields other than status.quantity and status.conditions: changed status`],
    ['token for its pod', { op: 'CREATE', resource: 'serviceaccounts', sub: 'token', ns: 'team', name: 'default', object: { spec: { boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'mine', uid: 'uid-2' } } } }, undefined],
    ['unbound token', { op: 'CREATE', resource: 'serviceaccounts', sub: 'token', ns: 'team', name: 'default', object: { spec: {} } }, 'serviceaccounts "default" is forbidden: node requested token not bound to a pod'],
    ['token without uid', { op: 'CREATE', resource: 'serviceaccounts', sub: 'token', ns: 'team', name: 'default', object: { spec: { boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'mine' } } } }, 'serviceaccounts "default" is forbidden: node requested token with a pod binding without a uid'],
    ['token with a stale uid', { op: 'CREATE', resource: 'serviceaccounts', sub: 'token', ns: 'team', name: 'default', object: { spec: { boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'mine', uid: 'x' } } } }, 'serviceaccounts "default" is forbidden: the UID in the bound object reference (x) does not match the UID in record. The object might have been deleted and then recreated'],
    ['token for another pod', { op: 'CREATE', resource: 'serviceaccounts', sub: 'token', ns: 'team', name: 'default', object: { spec: { boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'theirs', uid: 'uid-3' } } } }, 'serviceaccounts "default" is forbidden: node requested token bound to a pod scheduled on a different node'],
    ['its lease', { op: 'UPDATE', group: 'coordination.orch.io', resource: 'leases', ns: 'orch-node-lease', name: 'n1', object: { metadata: { name: 'n1' } } }, undefined],
    ['create its lease', { op: 'CREATE', group: 'coordination.orch.io', resource: 'leases', ns: 'orch-node-lease', object: { metadata: { name: 'n1' } } }, undefined],
    ['another lease', { op: 'UPDATE', group: 'coordination.orch.io', resource: 'leases', ns: 'orch-node-lease', name: 'n2', object: { metadata: { name: 'n2' } } }, 'leases.coordination.orch.io "n2" is forbidden: can only access node lease with the same name as the requesting node'],
    ['lease elsewhere', { op: 'CREATE', group: 'coordination.orch.io', resource: 'leases', ns: 'team', object: { metadata: { name: 'n1' } } }, 'leases.coordination.orch.io "n1" is forbidden: can only access leases in the "orch-node-lease" system namespace'],
    ['its CSINode', { op: 'CREATE', group: 'storage.orch.io', resource: 'csinodes', object: { metadata: { name: 'n1' } } }, undefined],
    ['another CSINode', { op: 'DELETE', group: 'storage.orch.io', resource: 'csinodes', name: 'n2' }, 'csinodes.storage.orch.io "n2" is forbidden: can only access CSINode with the same name as the requesting node'],
    // Not a node, or a node without a name.
    ['a user is not restricted', { op: 'UPDATE', resource: 'nodes', name: 'n2', object: node('n2'), old: node('n2'), user: { username: 'system:node:n1', groups: [] } }, undefined],
    ['a nameless node', { op: 'UPDATE', resource: 'nodes', name: 'n2', object: node('n2'), old: node('n2'), user: { username: 'system:node:', groups: ['system:nodes'] } }, 'nodes "n2" is forbidden: could not determine node from user "system:node:"'],
  ];
  for (const [name, req, want] of cases) {
    let got: unknown;
    try {
      await plugin.admit(attrs(req));
    } catch (e) {
      got = e;
    }
    if (want === undefined) assert.equal(got, undefined, `${name}: ${String(got)}`);
    else {
      assert.ok(got instanceof ApiError, `${name}: expected a refusal`);
      if (typeof want === 'number') assert.equal(got.code, want, name);
      else {
        assert.equal(got.code, 403, name);
        assert.equal(got.message, want, name);
      }
    }
  }
});
