// Escalation prevention over HTTPS, on every write path: a user who may update or patch
// bindings or roles, but neither holds nor may bind what they grant, cannot add itself to a
// binding of a powerful role, nor widen a role, by PUT, any patch type, apply or dry run.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startAuthTestServer, type AuthTestServer, type Identity, type Response } from '../testing/server.js';
import { eventually } from '../testing/wait.js';

const RBAC = 'rbac.authorization.orch.io';
const NOT_HELD = /is attempting to grant RBAC permissions not currently held/;

const subject = (name: string) => ({ kind: 'User', apiGroup: RBAC, name });
const binding = (kind: 'RoleBinding' | 'ClusterRoleBinding', name: string, role: string, subjects: unknown[]) => ({
  apiVersion: `${RBAC}/v1`,
  kind,
  metadata: { name },
  roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: role },
  subjects,
});
const clusterRole = (name: string, rules: unknown[], labels?: Record<string, string>) => ({
  apiVersion: `${RBAC}/v1`,
  kind: 'ClusterRole',
  metadata: labels ? { name, labels } : { name },
  rules,
});

interface Write {
  what: string;
  method: string;
  query: string;
  contentType: string;
  body: (added: unknown, kind: 'RoleBinding' | 'ClusterRoleBinding', name: string, role: string) => unknown;
}

// The ways a user may rewrite a binding's subjects to [carol, added].
const WRITES: Write[] = [
  { what: 'PUT', method: 'PUT', query: '', contentType: 'application/json', body: (a, kind, name, role) => binding(kind, name, role, [subject('carol'), a]) },
  { what: 'merge patch', method: 'PATCH', query: '', contentType: 'application/merge-patch+json', body: (a) => ({ subjects: [subject('carol'), a] }) },
  { what: 'JSON patch', method: 'PATCH', query: '', contentType: 'application/json-patch+json', body: (a) => [{ op: 'add', path: '/subjects/-', value: a }] },
  { what: 'strategic merge patch', method: 'PATCH', query: '', contentType: 'application/strategic-merge-patch+json', body: (a) => ({ subjects: [subject('carol'), a] }) },
  {
    what: 'apply',
    method: 'PATCH',
    query: 'fieldManager=intruder&force=true',
    contentType: 'application/apply-patch+yaml',
    body: (a, kind, name, role) => JSON.stringify(binding(kind, name, role, [subject('carol'), a])),
  },
];

describe('escalation prevention on every write path', () => {
  let s: AuthTestServer;
  let mallory: Identity;
  let binder: Identity;
  let holder: Identity;

  const must = async (method: string, path: string, body?: unknown): Promise<Response> => {
    const r = await s.request(method, path, s.admin, body);
    assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${r.text}`);
    return r;
  };
  const write = (who: Identity, w: Write, path: string, body: unknown, dryRun: boolean) => {
    const query = [w.query, dryRun ? 'dryRun=All' : ''].filter(Boolean).join('&');
    return s.request(w.method, query ? `${path}?${query}` : path, { ...who, headers: { 'Content-Type': w.contentType } }, body);
  };
  const stored = async (path: string) => {
    const r = await must('GET', path);
    const m = r.json['metadata'] as Record<string, unknown>;
    return { resourceVersion: m['resourceVersion'], subjects: r.json['subjects'], rules: r.json['rules'], labels: m['labels'] };
  };

  before(async () => {
    s = await startAuthTestServer();
    mallory = await s.user('mallory');
    binder = await s.user('binder');
    holder = await s.user('holder');
    await must('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n' } });
    const writer = (resources: string[], extra: unknown[] = []) => [{ verbs: ['update', 'patch'], apiGroups: [RBAC], resources }, ...extra];
    await must('POST', `/apis/${RBAC}/v1/clusterroles`, clusterRole('binding-writer', writer(['rolebindings', 'clusterrolebindings', 'roles', 'clusterroles'])));
    await must('POST', `/apis/${RBAC}/v1/clusterroles`, clusterRole('binding-binder', writer(['rolebindings', 'clusterrolebindings'], [{ verbs: ['bind'], apiGroups: [RBAC], resources: ['clusterroles'], resourceNames: ['admin', 'cluster-admin'] }])));
    await must('POST', `/apis/${RBAC}/v1/clusterroles`, clusterRole('secret-reader', [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['secrets'] }]));
    await must('POST', `/apis/${RBAC}/v1/clusterrolebindings`, binding('ClusterRoleBinding', 'mallory-writes', 'binding-writer', [subject('mallory')]));
    await must('POST', `/apis/${RBAC}/v1/clusterrolebindings`, binding('ClusterRoleBinding', 'binder-binds', 'binding-binder', [subject('binder')]));
    await must('POST', `/apis/${RBAC}/v1/namespaces/n/rolebindings`, binding('RoleBinding', 'holder-admin', 'admin', [subject('holder')]));
    await must('POST', `/apis/${RBAC}/v1/namespaces/n/rolebindings`, binding('RoleBinding', 'admins', 'admin', [subject('carol')]));
    await must('POST', `/apis/${RBAC}/v1/clusterrolebindings`, binding('ClusterRoleBinding', 'root', 'cluster-admin', [subject('carol')]));
    await must('POST', `/apis/${RBAC}/v1/namespaces/n/roles`, { apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: { name: 'pod-reader' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] });
    await must('POST', '/api/v1/namespaces/n/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'token' }, stringData: { t: 'x' } });
    // The bindings reach the authorizer through its watch.
    await eventually(async () => (await s.request('GET', '/api/v1/namespaces/n/secrets', holder)).status === 200, 'bindings to reach the authorizer', 5000);
    await eventually(async () => {
      const r = await s.request('PATCH', `/apis/${RBAC}/v1/namespaces/n/rolebindings/missing`, { ...mallory, headers: { 'Content-Type': 'application/merge-patch+json' } }, {});
      return r.status === 404;
    }, 'the writer binding to reach the authorizer', 5000);
  });

  after(async () => {
    await s?.stop();
  });

  for (const [kind, path, role] of [
    ['RoleBinding', `/apis/${RBAC}/v1/namespaces/n/rolebindings/admins`, 'admin'],
    ['ClusterRoleBinding', `/apis/${RBAC}/v1/clusterrolebindings/root`, 'cluster-admin'],
  ] as const) {
    const name = path.slice(path.lastIndexOf('/') + 1);
    for (const w of WRITES) {
      for (const dryRun of [false, true]) {
        it(`refuses a user without bind adding itself to a ${kind} of ${role} by ${w.what}${dryRun ? ' (dryRun=All)' : ''}`, async () => {
          const before = await stored(path);
          const r = await write(mallory, w, path, w.body(subject('mallory'), kind, name, role), dryRun);
          assert.equal(r.status, 403, r.text);
          assert.match(String(r.json['message']), NOT_HELD);
          assert.deepEqual(await stored(path), before);
        });
      }
    }

    it(`refuses any other change of a ${kind} of ${role} (a label) and allows one of the garbage collector's fields`, async () => {
      const before = await stored(path);
      const merge = { ...mallory, headers: { 'Content-Type': 'application/merge-patch+json' } };
      const labeled = await s.request('PATCH', path, merge, { metadata: { labels: { team: 'x' } } });
      assert.equal(labeled.status, 403, labeled.text);
      assert.deepEqual(await stored(path), before);
      const held = await s.request('PATCH', path, merge, { metadata: { finalizers: ['example.com/hold'] } });
      assert.equal(held.status, 200, held.text);
      assert.deepEqual((held.json['metadata'] as Record<string, unknown>)['finalizers'], ['example.com/hold']);
      const released = await s.request('PATCH', path, merge, { metadata: { finalizers: null } });
      assert.equal(released.status, 200, released.text);
    });
  }

  it('lets a user with bind on the role add subjects by any write path', async () => {
    for (const [kind, path, role] of [
      ['RoleBinding', `/apis/${RBAC}/v1/namespaces/n/rolebindings/admins`, 'admin'],
      ['ClusterRoleBinding', `/apis/${RBAC}/v1/clusterrolebindings/root`, 'cluster-admin'],
    ] as const) {
      for (const w of WRITES) {
        const name = path.slice(path.lastIndexOf('/') + 1);
        const added = subject(`via-${w.what.replace(/ /g, '-')}`);
        if (w.method === 'PATCH' && w.contentType === 'application/json-patch+json') {
          // Start from [carol] so that every write path yields [carol, added].
          await must('PUT', path, binding(kind, name, role, [subject('carol')]));
        }
        const r = await write(binder, w, path, w.body(added, kind, name, role), false);
        assert.equal(r.status, 200, `${kind} ${w.what}: ${r.text}`);
        assert.deepEqual((await stored(path)).subjects, [subject('carol'), added], `${kind} ${w.what}`);
        await must('PUT', path, binding(kind, name, role, [subject('carol')]));
      }
    }
  });

  it('lets a user holding the role\'s permissions add subjects', async () => {
    const path = `/apis/${RBAC}/v1/namespaces/n/rolebindings/admins`;
    const r = await s.request('PATCH', path, { ...holder, headers: { 'Content-Type': 'application/merge-patch+json' } }, { subjects: [subject('carol'), subject('dora')] });
    assert.equal(r.status, 200, r.text);
    assert.equal((await s.request('GET', '/api/v1/namespaces/n/secrets', mallory)).status, 403);
  });

  it('refuses widening a role, or labelling a cluster role into an aggregated one, by patch', async () => {
    const role = `/apis/${RBAC}/v1/namespaces/n/roles/pod-reader`;
    const before = await stored(role);
    const json = await s.request('PATCH', role, { ...mallory, headers: { 'Content-Type': 'application/json-patch+json' } }, [
      { op: 'add', path: '/rules/-', value: { verbs: ['get'], apiGroups: [''], resources: ['secrets'] } },
    ]);
    assert.equal(json.status, 403, json.text);
    assert.match(String(json.json['message']), NOT_HELD);
    const merge = await s.request('PATCH', role, { ...mallory, headers: { 'Content-Type': 'application/merge-patch+json' } }, { rules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }] });
    assert.equal(merge.status, 403, merge.text);
    assert.deepEqual(await stored(role), before);
    // secret-reader's rules would flow into view, which everyone in n may be bound to.
    const reader = `/apis/${RBAC}/v1/clusterroles/secret-reader`;
    const label = await s.request('PATCH', reader, { ...mallory, headers: { 'Content-Type': 'application/merge-patch+json' } }, { metadata: { labels: { [`${RBAC}/aggregate-to-view`]: 'true' } } });
    assert.equal(label.status, 403, label.text);
    assert.equal((await stored(reader)).labels, undefined);
    const view = await must('GET', `/apis/${RBAC}/v1/clusterroles/view`);
    assert.ok(!(view.json['rules'] as { resources?: string[] }[]).some((r) => r.resources?.includes('secrets')));
  });
});
