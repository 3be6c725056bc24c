import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, UserInfo } from '../../apimachinery/types.js';
import type { RESTStore } from '../../rest/index.js';
import { RBACAuthorizer, type RBACSource } from './authorizer.js';
import { EscalationCheck, withEscalationCheck } from './escalation.js';

const RBAC = 'rbac.authorization.orch.io';

const clusterRoles: Record<string, KubeObject> = {
  'pod-admin': { metadata: { name: 'pod-admin' }, rules: [{ verbs: ['*'], apiGroups: [''], resources: ['pods'] }] },
  binder: { metadata: { name: 'binder' }, rules: [{ verbs: ['bind'], apiGroups: [RBAC], resources: ['clusterroles'], resourceNames: ['cluster-admin'] }, { verbs: ['create'], apiGroups: [RBAC], resources: ['rolebindings'] }] },
  'cluster-admin': { metadata: { name: 'cluster-admin' }, rules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }] },
  escalator: { metadata: { name: 'escalator' }, rules: [{ verbs: ['escalate'], apiGroups: [RBAC], resources: ['roles'] }] },
};
const bindings: KubeObject[] = [
  { metadata: { name: 'b1', namespace: 'ns' }, roleRef: { kind: 'ClusterRole', name: 'pod-admin' }, subjects: [{ kind: 'User', name: 'pam' }, { kind: 'User', name: 'bea' }, { kind: 'User', name: 'eli' }] },
  { metadata: { name: 'b2', namespace: 'ns' }, roleRef: { kind: 'ClusterRole', name: 'binder' }, subjects: [{ kind: 'User', name: 'bea' }] },
  { metadata: { name: 'b3', namespace: 'ns' }, roleRef: { kind: 'ClusterRole', name: 'escalator' }, subjects: [{ kind: 'User', name: 'eli' }] },
];
const source: RBACSource = {
  getRole: () => undefined,
  getClusterRole: (n) => clusterRoles[n],
  listRoleBindings: (ns) => bindings.filter((b) => b.metadata?.namespace === ns),
  listClusterRoleBindings: () => [],
};
const check = new EscalationCheck(source, new RBACAuthorizer(source));
const u = (username: string, ...groups: string[]): UserInfo => ({ username, groups });
const role = (rules: unknown[]): KubeObject => ({ metadata: { name: 'r', namespace: 'ns' }, rules });
const bindTo = (kind: string, name: string): KubeObject => ({ metadata: { name: 'x', namespace: 'ns' }, roleRef: { apiGroup: RBAC, kind, name }, subjects: [{ kind: 'User', name: 'z' }] });

describe('escalation prevention', () => {
  it('lets a user grant only what it holds', async () => {
    await check.check(u('pam'), 'roles', 'ns', role([{ verbs: ['get', 'delete'], apiGroups: [''], resources: ['pods'] }]), undefined);
    await assert.rejects(check.check(u('pam'), 'roles', 'ns', role([{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }]), undefined), (e: Error & { status?: { code: number } }) => {
      assert.equal(e.status?.code, 403);
      assert.equal(e.message, `roles.${RBAC} "r" is forbidden: user "pam" (groups=[]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}`);
      return true;
    });
    await assert.rejects(check.check(u('pam'), 'roles', 'other', role([{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]), undefined), /not currently held/);
  });

  it('allows with escalate, for the superuser group, and for updates of the garbage collector\'s fields only', async () => {
    const secrets = role([{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }]);
    await check.check(u('eli'), 'roles', 'ns', secrets, undefined);
    await check.check(u('root', 'system:masters'), 'clusterroles', '', secrets, undefined);
    await check.check(u('pam'), 'roles', 'ns', secrets, secrets);
    const owned = { ...secrets, metadata: { ...secrets.metadata, ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'o', uid: 'u' }], finalizers: ['f'], resourceVersion: '9', managedFields: [] } };
    await check.check(u('pam'), 'roles', 'ns', owned, { ...secrets, metadata: { ...secrets.metadata, labels: {} } });
  });

  it('reviews every other update of a role: a label can aggregate its rules elsewhere', async () => {
    const secrets = role([{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }]);
    const labeled = { ...secrets, metadata: { name: 'r', namespace: 'ns', labels: { [`${RBAC}/aggregate-to-view`]: 'true' } } };
    await assert.rejects(check.check(u('pam'), 'roles', 'ns', labeled, secrets), /not currently held/);
    const annotated = { ...secrets, metadata: { name: 'r', namespace: 'ns', annotations: { a: 'b' } } };
    await assert.rejects(check.check(u('pam'), 'roles', 'ns', annotated, secrets), /not currently held/);
    const widened = role([{ verbs: ['get'], apiGroups: [''], resources: ['pods', 'secrets'] }]);
    await assert.rejects(check.check(u('pam'), 'roles', 'ns', widened, role([{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }])), /Resources:\["secrets"\]/);
    // What the user holds it may still write, changed or not.
    await check.check(u('pam'), 'roles', 'ns', { ...role([{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]), metadata: { name: 'r', namespace: 'ns', labels: { a: 'b' } } }, role([]));
  });

  it('reviews updates of a binding that change its subjects or anything but the garbage collector\'s fields', async () => {
    const admin = bindTo('ClusterRole', 'cluster-admin');
    const joined = { ...admin, subjects: [...(admin['subjects'] as unknown[]), { kind: 'User', name: 'pam' }] };
    await assert.rejects(check.check(u('pam'), 'rolebindings', 'ns', joined, admin), /not currently held/);
    await assert.rejects(check.check(u('pam'), 'clusterrolebindings', '', { ...joined, metadata: { name: 'x' } }, { ...admin, metadata: { name: 'x' } }), /not currently held/);
    // Kubernetes reviews a label change too (only owner references and finalizers are exempt).
    await assert.rejects(check.check(u('pam'), 'rolebindings', 'ns', { ...admin, metadata: { name: 'x', namespace: 'ns', labels: { a: 'b' } } }, admin), /not currently held/);
    await check.check(u('pam'), 'rolebindings', 'ns', { ...admin, metadata: { name: 'x', namespace: 'ns', finalizers: ['f'] } }, admin);
    await check.check(u('pam'), 'rolebindings', 'ns', structuredClone(admin), admin);
    // bind on the role, or holding its permissions, allows the change.
    await check.check(u('bea'), 'rolebindings', 'ns', joined, admin);
    await check.check(u('pam'), 'rolebindings', 'ns', { ...bindTo('ClusterRole', 'pod-admin'), subjects: [{ kind: 'User', name: 'pam' }] }, bindTo('ClusterRole', 'pod-admin'));
  });

  it('lets bindings reference only roles the user holds, or may bind', async () => {
    await check.check(u('pam'), 'rolebindings', 'ns', bindTo('ClusterRole', 'pod-admin'), undefined);
    await assert.rejects(check.check(u('pam'), 'rolebindings', 'ns', bindTo('ClusterRole', 'cluster-admin'), undefined), /not currently held/);
    await check.check(u('bea'), 'rolebindings', 'ns', bindTo('ClusterRole', 'cluster-admin'), undefined);
    await assert.rejects(check.check(u('bea'), 'rolebindings', 'ns', bindTo('ClusterRole', 'escalator'), undefined), /not currently held/);
    await assert.rejects(check.check(u('pam'), 'rolebindings', 'ns', bindTo('Role', 'missing'), undefined), /role\.rbac\.authorization\.orch\.io "missing" not found/);
  });

  it('asks for everything before an aggregation rule may be written, changed or dropped', async () => {
    const agg: KubeObject = { metadata: { name: 'agg' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { x: 'y' } }] }, rules: [] };
    const message = `clusterroles.${RBAC} "agg" is forbidden: must have cluster-admin privileges to use the aggregationRule`;
    await assert.rejects(check.check(u('pam'), 'clusterroles', '', agg, undefined), { message });
    await assert.rejects(check.check(u('pam'), 'clusterroles', '', { ...agg, metadata: { name: 'agg', labels: { a: 'b' } } }, agg), { message });
    await assert.rejects(check.check(u('pam'), 'clusterroles', '', { metadata: { name: 'agg' }, rules: [] }, agg), { message });
    await check.check(u('pam'), 'clusterroles', '', { metadata: { name: 'agg' }, rules: [] }, { metadata: { name: 'agg' }, aggregationRule: { clusterRoleSelectors: [] }, rules: [] });
  });

  it('wraps a store so create and update run the check before the store writes', async () => {
    const written: string[] = [];
    const store: RESTStore = {
      definition: { group: RBAC, version: 'v1', resource: 'roles', kind: 'Role', singularName: 'role', namespaced: true, shortNames: [], categories: [], verbs: ['create'], subresources: [], preferred: true },
      async create(_ctx, _ns, obj, opts) {
        await opts.validate?.(obj, undefined);
        written.push(obj.metadata?.name ?? '');
        return obj;
      },
      get: async () => ({}),
    };
    const guarded = withEscalationCheck(store, 'roles', check);
    const ctx = { user: u('pam'), signal: new AbortController().signal, warnings: [] };
    await guarded.create!(ctx, 'ns', role([{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]), { dryRun: false });
    await assert.rejects(guarded.create!(ctx, 'ns', role([{ verbs: ['get'], apiGroups: [''], resources: ['nodes'] }]), { dryRun: false }), /not currently held/);
    assert.deepEqual(written, ['r']);
    assert.equal(typeof guarded.get, 'function');
    assert.equal(guarded.update, undefined);
  });

  it('runs the check on the object an update computes, for every subresource and for creation through update', async () => {
    const stored = new Map<string, KubeObject>([['r', role([{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }])]]);
    const store: RESTStore = {
      definition: { group: RBAC, version: 'v1', resource: 'roles', kind: 'Role', singularName: 'role', namespaced: true, shortNames: [], categories: [], verbs: ['update'], subresources: [], preferred: true },
      async update(_ctx, _ns, name, objInfo, opts) {
        const old = stored.get(name);
        const next = await objInfo(old);
        await opts.validate?.(next, old);
        stored.set(name, next);
        return { object: next, created: !old };
      },
    };
    const guarded = withEscalationCheck(store, 'roles', check);
    const ctx = { user: u('pam'), signal: new AbortController().signal, warnings: [] };
    const addSecrets = (o: KubeObject | undefined): KubeObject => ({ ...o, rules: [...((o?.['rules'] as unknown[]) ?? []), { verbs: ['get'], apiGroups: [''], resources: ['secrets'] }] });
    await assert.rejects(guarded.update!(ctx, 'ns', 'r', addSecrets, { dryRun: false }), /not currently held/);
    await assert.rejects(guarded.update!(ctx, 'ns', 'r', addSecrets, { dryRun: true }), /not currently held/);
    await assert.rejects(guarded.update!(ctx, 'ns', 'new', addSecrets, { dryRun: false, forceAllowCreate: true }), /not currently held/);
    assert.deepEqual([...stored.keys()], ['r']);
    assert.deepEqual(stored.get('r')!['rules'], [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]);
  });
});
