import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, UserInfo } from '../../apimachinery/types.js';
import type { RESTStore } from '../../registry/types.js';
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

  it('allows with escalate, for the superuser group, and for updates that keep the rules', async () => {
    const secrets = role([{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }]);
    await check.check(u('eli'), 'roles', 'ns', secrets, undefined);
    await check.check(u('root', 'system:masters'), 'clusterroles', '', secrets, undefined);
    await check.check(u('pam'), 'roles', 'ns', { ...secrets, metadata: { name: 'r', labels: { a: 'b' } } }, secrets);
  });

  it('lets bindings reference only roles the user holds, or may bind', async () => {
    await check.check(u('pam'), 'rolebindings', 'ns', bindTo('ClusterRole', 'pod-admin'), undefined);
    await assert.rejects(check.check(u('pam'), 'rolebindings', 'ns', bindTo('ClusterRole', 'cluster-admin'), undefined), /not currently held/);
    await check.check(u('bea'), 'rolebindings', 'ns', bindTo('ClusterRole', 'cluster-admin'), undefined);
    await assert.rejects(check.check(u('bea'), 'rolebindings', 'ns', bindTo('ClusterRole', 'escalator'), undefined), /not currently held/);
    await assert.rejects(check.check(u('pam'), 'rolebindings', 'ns', bindTo('Role', 'missing'), undefined), /role\.rbac\.authorization\.orch\.io "missing" not found/);
  });

  it('asks for everything before an aggregation rule may be written', async () => {
    const agg: KubeObject = { metadata: { name: 'agg' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { x: 'y' } }] }, rules: [] };
    await assert.rejects(check.check(u('pam'), 'clusterroles', '', agg, undefined), /Resources:\["\*"\]/);
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
});
