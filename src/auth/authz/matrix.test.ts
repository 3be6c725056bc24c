// The identities x requests x decisions matrix, against the whole authorizer chain
// (superuser group, Node, RBAC) over the default policy plus test roles and bindings.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseFlags } from '../../apimachinery/flags.js';
import type { KubeObject, UserInfo } from '../../apimachinery/types.js';
import { group } from '../../naming/index.js';
import { authFlagDefinitions } from '../flags.js';
import { RBACCache, rbacResource } from '../rbac/cache.js';
import { startRBAC } from '../rbac/module.js';
import { FakeClient } from '../../testing/fake-client.js';
import { describe as show, nonres, res } from '../../testing/auth-attrs.js';
import { eventually } from '../../testing/wait.js';
import type { AuthorizationAttributes } from '../types.js';
import { buildAuthorizers, type BuiltAuthorizers } from './build.js';
import { Informer } from '../../client/informer.js';
import { forbiddenError } from './union.js';

const RBAC = group('rbac.authorization');
const AUTHZ = group('authorization');
const AUTHN = group('authentication');
const CERTS = group('certificates');
const COORD = group('coordination');

const u = (username: string, ...groups: string[]): UserInfo => ({ username, groups: [...groups, 'system:authenticated'] });
const admin = u('admin', 'system:masters');
const alice = u('alice');
const bob = u('bob');
const carol = u('carol');
const dave = u('dave');
const eve = u('eve');
const frank = u('frank', 'ops');
const gina = u('gina');
const hank = u('hank');
const anon: UserInfo = { username: 'system:anonymous', groups: ['system:unauthenticated'] };
const builder = u('system:serviceaccount:dev:builder', 'system:serviceaccounts', 'system:serviceaccounts:dev');
const otherSA = u('system:serviceaccount:dev:other', 'system:serviceaccounts', 'system:serviceaccounts:dev');
const tester = u('system:serviceaccount:qa:tester', 'system:serviceaccounts', 'system:serviceaccounts:qa');
const node1 = u('system:node:n1', 'system:nodes');
const node2 = u('system:node:n2', 'system:nodes');
const fakeNode = u('system:node:n1');
const namelessNode = u('system:node:', 'system:nodes');
const STORAGE = group('storage');

function binding(kind: 'RoleBinding' | 'ClusterRoleBinding', name: string, ns: string, roleKind: string, role: string, subjects: KubeObject[]): KubeObject {
  const metadata: KubeObject['metadata'] = { name };
  if (ns) metadata.namespace = ns;
  return { apiVersion: `${RBAC}/v1`, kind, metadata, roleRef: { apiGroup: RBAC, kind: roleKind, name: role }, subjects };
}
const user = (name: string) => ({ kind: 'User', apiGroup: RBAC, name });

async function fixture(client: FakeClient): Promise<void> {
  const rb = rbacResource('rolebindings');
  const crb = rbacResource('clusterrolebindings');
  const roles = rbacResource('roles');
  const croles = rbacResource('clusterroles');
  await client.create(rb, 'dev', binding('RoleBinding', 'alice-edit', 'dev', 'ClusterRole', 'edit', [user('alice')]));
  await client.create(rb, 'dev', binding('RoleBinding', 'bob-view', 'dev', 'ClusterRole', 'view', [user('bob')]));
  await client.create(rb, 'dev', binding('RoleBinding', 'carol-admin', 'dev', 'ClusterRole', 'admin', [user('carol')]));
  await client.create(crb, '', binding('ClusterRoleBinding', 'dave-view', '', 'ClusterRole', 'view', [user('dave')]));
  await client.create(roles, 'dev', { metadata: { name: 'pod-reader', namespace: 'dev' }, rules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods', 'pods/log'] }] });
  await client.create(roles, 'dev', { metadata: { name: 'cm-one', namespace: 'dev' }, rules: [{ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['one'] }] });
  await client.create(rb, 'dev', binding('RoleBinding', 'builder', 'dev', 'Role', 'pod-reader', [{ kind: 'ServiceAccount', name: 'builder', namespace: 'dev' }]));
  await client.create(rb, 'dev', binding('RoleBinding', 'builder-cm', 'dev', 'Role', 'cm-one', [{ kind: 'ServiceAccount', name: 'builder', namespace: 'dev' }]));
  await client.create(roles, 'qa', { metadata: { name: 'pod-reader', namespace: 'qa' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] });
  await client.create(rb, 'qa', binding('RoleBinding', 'tester', 'qa', 'Role', 'pod-reader', [{ kind: 'ServiceAccount', name: 'tester' }]));
  await client.create(croles, '', {
    metadata: { name: 'ops-role' },
    rules: [
      { verbs: ['get', 'list'], apiGroups: [''], resources: ['nodes'] },
      { verbs: ['get'], nonResourceURLs: ['/metrics'] },
      { verbs: ['update'], apiGroups: ['*'], resources: ['*/scale'] },
      { verbs: ['get'], apiGroups: [''], resources: ['pods/log'] },
    ],
  });
  await client.create(crb, '', binding('ClusterRoleBinding', 'ops', '', 'ClusterRole', 'ops-role', [{ kind: 'Group', apiGroup: RBAC, name: 'ops' }]));
  await client.create(croles, '', { metadata: { name: 'debug' }, rules: [{ verbs: ['get'], nonResourceURLs: ['/debug/*'] }] });
  await client.create(crb, '', binding('ClusterRoleBinding', 'gina-debug', '', 'ClusterRole', 'debug', [user('gina')]));
  await client.create(croles, '', { metadata: { name: 'all-apps-get' }, rules: [{ verbs: ['get'], apiGroups: ['apps'], resources: ['*'] }] });
  await client.create(rb, 'dev', binding('RoleBinding', 'hank', 'dev', 'ClusterRole', 'all-apps-get', [user('hank')]));
  await client.create(rb, 'dev', binding('RoleBinding', 'dangling', 'dev', 'Role', 'missing-role', [user('hank')]));
  const core = (resource: string) => ({ group: '', version: 'v1', resource });
  await client.create(core('persistentvolumeclaims'), 'dev', { metadata: { name: 'claim1', namespace: 'dev' }, spec: { volumeName: 'pv1' } });
  await client.create(core('persistentvolumeclaims'), 'dev', { metadata: { name: 'claim2', namespace: 'dev' }, spec: { volumeName: 'pv2' } });
  await client.create(core('persistentvolumes'), '', { metadata: { name: 'pv1' }, spec: { claimRef: { namespace: 'dev', name: 'claim1' }, csi: { driver: 'd', volumeHandle: 'h', nodePublishSecretRef: { namespace: 'dev', name: 'pv-secret' } } } });
  await client.create({ group: STORAGE, version: 'v1', resource: 'volumeattachments' }, '', { metadata: { name: 'va1' }, spec: { attacher: 'd', nodeName: 'n1', source: { persistentVolumeName: 'pv1' } } });
  await client.create({ group: STORAGE, version: 'v1', resource: 'volumeattachments' }, '', { metadata: { name: 'va2' }, spec: { attacher: 'd', nodeName: 'n2', source: { persistentVolumeName: 'pv2' } } });
  await client.create(core('pods'), 'dev', {
    metadata: { name: 'p1', namespace: 'dev' },
    spec: {
      nodeName: 'n1',
      serviceAccountName: 'default',
      volumes: [
        { name: 'a', secret: { secretName: 's1' } },
        { name: 'b', configMap: { name: 'cm1' } },
        { name: 'c', persistentVolumeClaim: { claimName: 'claim1' } },
        { name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'] } } } },
        { name: 'ceph', cephfs: { monitors: ['m'], secretRef: { name: 'ceph-secret' } } },
      ],
      containers: [{ name: 'c', image: 'x', env: [{ name: 'E', valueFrom: { secretKeyRef: { name: 'env-secret', key: 'k' } } }] }],
    },
  });
}

type Case = [AuthorizationAttributes, boolean];

const GRID_REQUESTS = (who: UserInfo): AuthorizationAttributes[] => [
  res(who, 'get', '', 'pods', 'dev', 'p'),
  res(who, 'create', '', 'pods', 'dev'),
  res(who, 'get', '', 'secrets', 'dev', 's'),
  res(who, 'create', RBAC, 'roles', 'dev'),
  res(who, 'list', '', 'pods', 'prod'),
  nonres(who, 'get', '/healthz'),
  nonres(who, 'get', '/apis'),
  res(who, 'create', AUTHZ, 'selfsubjectaccessreviews'),
  res(who, 'get', 'apps', 'deployments', 'dev', 'd'),
  res(who, 'delete', 'apps', 'deployments', 'dev', 'd'),
  res(who, 'create', AUTHZ, 'localsubjectaccessreviews', 'dev'),
  res(who, 'list', '', 'namespaces'),
  nonres(who, 'get', '/metrics'),
  res(who, 'impersonate', '', 'serviceaccounts', 'dev', 'builder'),
  res(who, 'update', '', 'pods', 'dev', 'p', 'status'),
];

// Expected decisions for GRID_REQUESTS, worked out by hand from the roles (T allowed).
const GRID: [UserInfo, string][] = [
  [admin, 'TTTTTTTTTTTTTTT'],
  [alice, 'TTTFFTTTTTFFFTF'],
  [bob, 'TFFFFTTTTFFFFFF'],
  [carol, 'TTTTFTTTTTTFFTF'],
  [dave, 'TFFFTTTTTFFTFFF'],
  [eve, 'FFFFFTTTFFFFFFF'],
  [anon, 'FFFFFTFFFFFFFFF'],
  [frank, 'FFFFFTTTFFFFTFF'],
  [builder, 'TFFFFTTTFFFFFFF'],
];

const SPECIFIC: Case[] = [
  // edit in dev
  [res(alice, 'list', '', 'pods', 'dev'), true],
  [res(alice, 'watch', '', 'pods', 'dev'), true],
  [res(alice, 'delete', '', 'pods', 'dev', 'p'), true],
  [res(alice, 'deletecollection', '', 'pods', 'dev'), true],
  [res(alice, 'get', '', 'pods', 'prod', 'p'), false],
  [res(alice, 'list', '', 'pods', ''), false],
  [res(alice, 'create', 'apps', 'deployments', 'dev'), true],
  [res(alice, 'update', 'apps', 'deployments', 'dev', 'd', 'scale'), true],
  [res(alice, 'create', RBAC, 'rolebindings', 'dev'), false],
  [res(alice, 'get', '', 'pods', 'dev', 'p', 'log'), true],
  [res(alice, 'create', '', 'pods', 'dev', 'p', 'exec'), true],
  [res(alice, 'get', '', 'nodes', '', 'n1'), false],
  [res(alice, 'get', '', 'namespaces', 'dev', 'dev'), true],
  [res(alice, 'create', '', 'serviceaccounts', 'dev', 'builder', 'token'), true],
  [res(alice, 'patch', '', 'configmaps', 'dev', 'c'), true],
  [res(alice, 'get', COORD, 'leases', 'dev', 'l'), true],
  [res(alice, 'create', 'batch', 'cronjobs', 'dev'), true],
  [nonres(alice, 'get', '/api'), true],
  [nonres(alice, 'post', '/api'), false],
  [nonres(alice, 'get', '/version'), true],
  // view in dev
  [res(bob, 'list', '', 'pods', 'dev'), true],
  [res(bob, 'watch', '', 'pods', 'dev'), true],
  [res(bob, 'delete', '', 'pods', 'dev', 'p'), false],
  [res(bob, 'get', '', 'pods', 'dev', 'p', 'log'), true],
  [res(bob, 'create', '', 'pods', 'dev', 'p', 'exec'), false],
  [res(bob, 'get', '', 'configmaps', 'dev', 'c'), true],
  [res(bob, 'update', 'apps', 'deployments', 'dev', 'd'), false],
  [res(bob, 'get', 'apps', 'deployments', 'dev', 'd', 'scale'), true],
  [res(bob, 'get', RBAC, 'roles', 'dev', 'r'), false],
  [res(bob, 'list', '', 'events', 'dev'), true],
  [res(bob, 'get', 'batch', 'cronjobs', 'dev', 'c', 'status'), true],
  [nonres(bob, 'get', '/openapi/v2'), true],
  // admin in dev
  [res(carol, 'create', RBAC, 'rolebindings', 'dev'), true],
  [res(carol, 'create', '', 'namespaces', ''), false],
  [res(carol, 'delete', '', 'namespaces', 'dev', 'dev'), false],
  [res(carol, 'update', '', 'resourcequotas', 'dev', 'q'), false],
  [res(carol, 'get', '', 'resourcequotas', 'dev', 'q'), true],
  [res(carol, 'get', '', 'pods', 'prod', 'p'), false],
  // cluster-wide view
  [res(dave, 'get', '', 'pods', 'prod', 'p'), true],
  [res(dave, 'list', '', 'pods', ''), true],
  [res(dave, 'get', '', 'nodes', '', 'n1'), false],
  [res(dave, 'watch', 'apps', 'deployments', ''), true],
  // only authenticated
  [res(eve, 'create', AUTHZ, 'selfsubjectrulesreviews'), true],
  [res(eve, 'create', AUTHN, 'selfsubjectreviews'), true],
  [res(eve, 'create', AUTHN, 'tokenreviews'), false],
  [res(eve, 'create', AUTHZ, 'subjectaccessreviews'), false],
  // anonymous
  [nonres(anon, 'get', '/livez'), true],
  [nonres(anon, 'get', '/readyz'), true],
  [nonres(anon, 'get', '/version'), true],
  [nonres(anon, 'get', '/api'), false],
  [res(anon, 'create', AUTHN, 'selfsubjectreviews'), false],
  [nonres(anon, 'get', '/.well-known/openid-configuration'), false],
  // service accounts
  [res(builder, 'list', '', 'pods', 'dev'), true],
  [res(builder, 'get', '', 'pods', 'dev', 'p', 'log'), true],
  [res(builder, 'delete', '', 'pods', 'dev', 'p'), false],
  [res(builder, 'get', '', 'configmaps', 'dev', 'one'), true],
  [res(builder, 'get', '', 'configmaps', 'dev', 'two'), false],
  [res(builder, 'list', '', 'configmaps', 'dev'), false],
  [nonres(builder, 'get', '/.well-known/openid-configuration'), true],
  [nonres(builder, 'get', '/openid/v1/jwks'), true],
  [res(otherSA, 'get', '', 'pods', 'dev', 'p'), false],
  [nonres(otherSA, 'get', '/openid/v1/jwks'), true],
  [res(tester, 'get', '', 'pods', 'qa', 'p'), true],
  [res(tester, 'get', '', 'pods', 'dev', 'p'), false],
  // group binding, subresource wildcards, non-resource prefixes
  [res(frank, 'get', '', 'nodes', '', 'n1'), true],
  [res(frank, 'list', '', 'nodes', ''), true],
  [res(frank, 'delete', '', 'nodes', '', 'n1'), false],
  [nonres(frank, 'get', '/metrics/extra'), false],
  [res(frank, 'update', 'apps', 'deployments', 'dev', 'd', 'scale'), true],
  [res(frank, 'update', 'apps', 'statefulsets', 'prod', 's', 'scale'), true],
  [res(frank, 'update', 'apps', 'deployments', 'dev', 'd'), false],
  [res(frank, 'get', '', 'pods', 'dev', 'p', 'log'), true],
  [res(frank, 'get', '', 'pods', 'dev', 'p'), false],
  [nonres(gina, 'get', '/debug/pprof'), true],
  [nonres(gina, 'get', '/debug'), false],
  [nonres(gina, 'post', '/debug/pprof'), false],
  [res(hank, 'get', 'apps', 'deployments', 'dev', 'd'), true],
  [res(hank, 'get', 'apps', 'deployments', 'dev', 'd', 'status'), true],
  [res(hank, 'get', '', 'pods', 'dev', 'p'), false],
  [res(hank, 'list', 'apps', 'deployments', 'dev'), false],
  [res(hank, 'get', 'apps', 'deployments', 'prod', 'd'), false],
  // agents (Node authorizer)
  [res(node1, 'get', '', 'nodes', '', 'n1'), true],
  [res(node1, 'update', '', 'nodes', '', 'n1', 'status'), true],
  [res(node1, 'create', '', 'events', 'dev'), true],
  [res(node1, 'list', '', 'pods', ''), true],
  [res(node1, 'get', '', 'secrets', 'dev', 's1'), true],
  [res(node1, 'get', '', 'secrets', 'dev', 'env-secret'), true],
  [res(node1, 'get', '', 'secrets', 'dev', 's2'), false],
  [res(node1, 'list', '', 'secrets', 'dev'), false],
  [res(node1, 'get', '', 'configmaps', 'dev', 'cm1'), true],
  [res(node1, 'get', '', 'persistentvolumeclaims', 'dev', 'claim1'), true],
  [res(node1, 'create', '', 'serviceaccounts', 'dev', 'default', 'token'), true],
  [res(node1, 'create', '', 'serviceaccounts', 'dev', 'builder', 'token'), false],
  [res(node1, 'delete', '', 'namespaces', 'dev', 'dev'), false],
  [res(node1, 'create', CERTS, 'certificatesigningrequests'), true],
  [res(node1, 'get', '', 'persistentvolumes', '', 'pv1'), true],
  [res(node1, 'get', '', 'persistentvolumes', '', 'pv2'), false],
  [res(node2, 'get', '', 'persistentvolumes', '', 'pv1'), false],
  [res(node2, 'get', '', 'secrets', 'dev', 's1'), false],
  [res(node2, 'get', '', 'nodes', '', 'n2'), true],
  [res(fakeNode, 'get', '', 'secrets', 'dev', 's1'), false],
  [res(fakeNode, 'get', '', 'nodes', '', 'n1'), false],
  [res(namelessNode, 'get', '', 'nodes', '', 'n1'), false],
  // a list or watch of one secret or config map (named by a metadata.name field selector) reads like a get
  [res(node1, 'list', '', 'secrets', 'dev', 's1'), true],
  [res(node1, 'watch', '', 'secrets', 'dev', 's1'), true],
  [res(node1, 'watch', '', 'configmaps', 'dev', 'cm1'), true],
  [res(node1, 'watch', '', 'secrets', 'dev', 's2'), false],
  [res(node1, 'watch', '', 'configmaps', 'dev'), false],
  [res(node2, 'list', '', 'secrets', 'dev', 's1'), false],
  [res(node1, 'delete', '', 'secrets', 'dev', 's1'), false],
  [res(node1, 'update', '', 'configmaps', 'dev', 'cm1'), false],
  [res(node1, 'get', '', 'secrets', 'dev', 's1', 'x'), false],
  [res(node1, 'get', '', 'secrets', '', 's1'), false],
  // what else a pod brings: secrets of its volume sources and of its claims' volumes, its ephemeral claims
  [res(node1, 'get', '', 'secrets', 'dev', 'ceph-secret'), true],
  [res(node1, 'get', '', 'secrets', 'dev', 'pv-secret'), true],
  [res(node2, 'get', '', 'secrets', 'dev', 'pv-secret'), false],
  [res(node1, 'get', '', 'persistentvolumeclaims', 'dev', 'p1-scratch'), true],
  // claims, volumes, attachments: get only; a claim's status only of the node's claims
  [res(node1, 'list', '', 'persistentvolumeclaims', 'dev', 'claim1'), false],
  [res(node1, 'watch', '', 'persistentvolumes', '', 'pv1'), false],
  [res(node1, 'update', '', 'persistentvolumeclaims', 'dev', 'claim1', 'status'), true],
  [res(node1, 'patch', '', 'persistentvolumeclaims', 'dev', 'claim2', 'status'), false],
  [res(node1, 'get', '', 'persistentvolumeclaims', 'dev', 'claim1', 'status'), false],
  [res(node1, 'get', STORAGE, 'volumeattachments', '', 'va1'), true],
  [res(node1, 'get', STORAGE, 'volumeattachments', '', 'va2'), false],
  [res(node1, 'get', '', 'serviceaccounts', 'dev', 'default'), false],
  // its own lease and CSINode only
  [res(node1, 'update', COORD, 'leases', 'orch-node-lease', 'n1'), true],
  [res(node1, 'create', COORD, 'leases', 'orch-node-lease'), true],
  [res(node1, 'delete', COORD, 'leases', 'orch-node-lease', 'n2'), false],
  [res(node1, 'get', COORD, 'leases', 'dev', 'n1'), false],
  [res(node1, 'list', COORD, 'leases', 'orch-node-lease'), false],
  [res(node1, 'patch', STORAGE, 'csinodes', '', 'n1'), true],
  [res(node1, 'delete', STORAGE, 'csinodes', '', 'n2'), false],
  // RBAC resourceNames apply to a list or watch of one name
  [res(builder, 'list', '', 'configmaps', 'dev', 'one'), true],
  [res(builder, 'watch', '', 'configmaps', 'dev', 'one'), true],
  [res(builder, 'list', '', 'configmaps', 'dev', 'two'), false],
  [res(builder, 'list', '', 'configmaps', 'dev'), false],
  // superuser
  [res(admin, 'escalate', RBAC, 'clusterroles', '', 'x'), true],
  [res(admin, 'impersonate', '', 'users', '', 'anyone'), true],
  [nonres(admin, 'delete', '/anything'), true],
];

// The Node authorizer over its own reflector of pods, and over a pods informer shared with the process.
for (const shared of [false, true]) describe(`authorization matrix (Node,RBAC over the default policy${shared ? ', pods from a shared informer' : ''})`, () => {
  const client = new FakeClient();
  const cache = new RBACCache(client);
  let authz: BuiltAuthorizers;
  let stop: () => Promise<void>;
  const signal = new AbortController();
  const pods = shared ? new Informer(client, { group: '', version: 'v1', resource: 'pods' }) : undefined;

  before(async () => {
    await fixture(client);
    stop = await startRBAC(client, cache, signal.signal);
    authz = await buildAuthorizers(parseFlags([], authFlagDefinitions), { client, rbac: cache, ...(pods ? { pods } : {}) });
    await authz.start();
    // Aggregation settles in a few passes (view, then edit, then admin).
    await eventually(() => {
      const admin = cache.getClusterRole('admin');
      const rules = (admin?.['rules'] as { resources?: string[] }[] | undefined) ?? [];
      return rules.some((r) => r.resources?.includes('roles')) && rules.some((r) => r.resources?.includes('pods/log'));
    }, 'aggregated admin role', 5000);
  });

  after(async () => {
    signal.abort();
    await stop();
    await authz.stop();
    // The shared informer is its owner's: the authorizers started it and leave it running.
    assert.equal(pods?.hasSynced() ?? true, true);
    await pods?.stop();
  });

  const cases: Case[] = [...SPECIFIC];
  for (const [who, expected] of GRID) GRID_REQUESTS(who).forEach((a, i) => cases.push([a, expected[i] === 'T']));

  it('has at least 200 cases', () => {
    assert.ok(cases.length >= 200, `only ${cases.length} cases`);
  });

  for (const [attrs, allowed] of cases) {
    it(`${allowed ? 'allows' : 'forbids'} ${show(attrs)}`, async () => {
      const r = await authz.authorizer.authorize(attrs);
      assert.equal(r.decision === 'Allow', allowed, `decision ${r.decision}: ${r.reason}`);
    });
  }

  it('gives the Node authorizer reasons for what it does not allow', async () => {
    const reason = async (a: AuthorizationAttributes): Promise<string> => (await authz.authorizer.authorize(a)).reason;
    assert.equal(await reason(res(node1, 'list', '', 'secrets', 'dev')), 'No Object name found');
    assert.equal(await reason(res(node1, 'delete', '', 'secrets', 'dev', 's1')), 'can only read resources of this type');
    assert.equal(await reason(res(node1, 'watch', '', 'secrets', 'dev', 's2')), "no relationship found between node 'n1' and this object");
    assert.equal(await reason(res(node1, 'list', '', 'persistentvolumeclaims', 'dev', 'claim1')), 'can only get individual resources of this type');
    assert.equal(await reason(res(node1, 'delete', COORD, 'leases', 'orch-node-lease', 'n2')), 'can only access node lease with the same name as the requesting node');
    assert.equal(await reason(res(namelessNode, 'get', '', 'nodes', '', 'n1')), 'unknown node for user "system:node:"');
  });

  it('explains an RBAC allow by binding, role and subject', async () => {
    const r = await authz.authorizer.authorize(res(alice, 'get', '', 'pods', 'dev', 'p'));
    assert.equal(r.reason, 'RBAC: allowed by RoleBinding "alice-edit/dev" of ClusterRole "edit" to User "alice"');
  });

  it('reports a binding to a missing role in the reason', async () => {
    const r = await authz.authorizer.authorize(res(hank, 'list', '', 'secrets', 'dev'));
    assert.equal(r.decision, 'NoOpinion');
    assert.equal(r.reason, `RBAC: role.${RBAC} "missing-role" not found`);
  });

  it('words the 403 as Kubernetes does', async () => {
    const attrs = res(bob, 'list', '', 'pods', 'prod');
    const e = forbiddenError(attrs, '');
    assert.equal(e.status.code, 403);
    assert.equal(e.message, 'pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "prod"');
    const e2 = forbiddenError(res(bob, 'get', 'apps', 'deployments', '', 'd', 'scale'), 'because');
    assert.equal(e2.message, 'deployments.apps "d" is forbidden: User "bob" cannot get resource "deployments/scale" in API group "apps" at the cluster scope: because');
    assert.deepEqual(e2.status.details, { name: 'd', group: 'apps', kind: 'deployments' });
    const e3 = forbiddenError(nonres(anon, 'get', '/metrics'), '');
    assert.equal(e3.message, 'forbidden: User "system:anonymous" cannot get path "/metrics"');
  });

  it('sees new bindings through the watch, without a restart', async () => {
    const attrs = res(eve, 'get', '', 'pods', 'dev', 'p');
    assert.equal((await authz.authorizer.authorize(attrs)).decision, 'NoOpinion');
    await client.create(rbacResource('rolebindings'), 'dev', binding('RoleBinding', 'eve-view', 'dev', 'ClusterRole', 'view', [user('eve')]));
    await eventually(async () => (await authz.authorizer.authorize(attrs)).decision === 'Allow', 'new binding', 5000);
    await client.delete(rbacResource('rolebindings'), 'dev', 'eve-view');
    await eventually(async () => (await authz.authorizer.authorize(attrs)).decision === 'NoOpinion', 'binding removal', 5000);
  });

  it('lists the rules of a user for rules reviews', () => {
    const r = authz.rulesFor(builder, 'dev');
    assert.ok(r.resourceRules.some((x) => x.resources?.includes('pods/log')));
    assert.ok(r.nonResourceRules.some((x) => x.nonResourceURLs?.includes('/openid/v1/jwks')));
    assert.equal(r.incomplete, false);
    assert.equal(authz.rulesFor(node1, '').incomplete, true);
    assert.deepEqual(authz.rulesFor(admin, 'dev').resourceRules, [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]);
  });
});

describe('authorization modes', () => {
  const client = new FakeClient();
  const cache = new RBACCache(client);
  const flags = (...argv: string[]) => parseFlags(argv, authFlagDefinitions);

  it('AlwaysAllow and AlwaysDeny decide; the superuser group passes even AlwaysDeny', async () => {
    const allow = await buildAuthorizers(flags('--authorization-mode=AlwaysAllow'), { client, rbac: cache });
    assert.equal((await allow.authorizer.authorize(res(anon, 'delete', '', 'pods', 'x', 'y'))).decision, 'Allow');
    const deny = await buildAuthorizers(flags('--authorization-mode=AlwaysDeny,AlwaysAllow'), { client, rbac: cache });
    assert.equal((await deny.authorizer.authorize(res(eve, 'get', '', 'pods', 'x', 'y'))).decision, 'Deny');
    assert.equal((await deny.authorizer.authorize(res(admin, 'get', '', 'pods', 'x', 'y'))).decision, 'Allow');
  });

  it('rejects unknown, repeated or incomplete modes', async () => {
    await assert.rejects(buildAuthorizers(flags('--authorization-mode=Magic'), { client, rbac: cache }), /unknown authorization mode "Magic"/);
    await assert.rejects(buildAuthorizers(flags('--authorization-mode=RBAC,RBAC'), { client, rbac: cache }), /more than once/);
    await assert.rejects(buildAuthorizers(flags('--authorization-mode=ABAC'), { client, rbac: cache }), /authorization-policy-file/);
    await assert.rejects(buildAuthorizers(flags('--authorization-mode=Webhook'), { client, rbac: cache }), /authorization-webhook-config-file/);
  });
});
