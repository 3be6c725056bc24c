// The object history through the whole server, run once per naming flavor (server.test.ts,
// server-kubernetes.test.ts): writes of every verb by named users and managers, the revisions
// in order with their patches, a deleted object's history, Tables, discovery, and the hostile
// cases (selectors, writes, other users' objects).
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { startAuthTestServer, type AuthTestServer, type Identity, type Response } from '../testing/server.js';
import { eventually } from '../testing/wait.js';
import { group, metaGroup, productGroup } from '../naming/index.js';

interface RevisionJson {
  metadata: { name: string; namespace?: string; resourceVersion: string };
  target: Record<string, string>;
  revision: number;
  resourceVersion: string;
  operation: string;
  subresource?: string;
  user: { username: string; groups: string[] };
  fieldManager?: string;
  object: Record<string, unknown> & { metadata: Record<string, unknown> };
  patch: { op: string; path: string; value?: unknown }[];
}

export function historyCases(compat: 'orch' | 'kubernetes'): void {
  let t: AuthTestServer;
  let admin: Identity;
  const H = (): string => `/apis/${productGroup('history')}/v1`;
  const list = async (ns: string, selector: string, who: Identity = admin, extra = ''): Promise<Response> =>
    t.request('GET', `${H()}${ns ? `/namespaces/${ns}` : ''}/revisions?fieldSelector=${encodeURIComponent(selector)}${extra}`, who);
  const items = (r: Response): RevisionJson[] => {
    assert.equal(r.status, 200, r.text);
    return r.json.items as RevisionJson[];
  };

  before(async () => {
    t = await startAuthTestServer(['--authorization-mode=RBAC', `--compat=${compat}`]);
    admin = t.admin;
  });
  after(async () => {
    await t?.stop();
  });

  it('records create, update, patch, apply and delete of a ConfigMap with users, managers and patches', async () => {
    const cm = (data: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web', namespace: 'default' }, data });
    let r = await t.request('POST', '/api/v1/namespaces/default/configmaps?fieldManager=creator', admin, cm({ a: '1' }));
    assert.equal(r.status, 201, r.text);
    const uid = (r.json.metadata as Record<string, string>).uid!;
    r = await t.request('PUT', '/api/v1/namespaces/default/configmaps/web?fieldManager=updater', admin, cm({ a: '2' }));
    assert.equal(r.status, 200, r.text);
    r = await t.request('PATCH', '/api/v1/namespaces/default/configmaps/web?fieldManager=patcher', { ...admin, headers: { 'Content-Type': 'application/merge-patch+json' } }, { data: { b: 'x' } });
    assert.equal(r.status, 200, r.text);
    // A patch that changes nothing writes nothing, so it is no revision.
    r = await t.request('PATCH', '/api/v1/namespaces/default/configmaps/web?fieldManager=patcher', { ...admin, headers: { 'Content-Type': 'application/merge-patch+json' } }, { data: { b: 'x' } });
    assert.equal(r.status, 200, r.text);
    r = await t.request('PATCH', '/api/v1/namespaces/default/configmaps/web?fieldManager=applier&force=true', { ...admin, headers: { 'Content-Type': 'application/apply-patch+yaml' } }, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web' }, data: { c: 'y' } }));
    assert.equal(r.status, 200, r.text);
    r = await t.request('DELETE', '/api/v1/namespaces/default/configmaps/web', admin);
    assert.equal(r.status, 200, r.text);

    const revs = items(await list('default', 'target.resource=configmaps,target.name=web'));
    assert.deepEqual(revs.map((x) => x.operation), ['Create', 'Update', 'Patch', 'Apply', 'Delete']);
    assert.deepEqual(revs.map((x) => x.revision), [1, 2, 3, 4, 5]);
    assert.deepEqual(revs.map((x) => x.fieldManager), ['creator', 'updater', 'patcher', 'applier', undefined]);
    for (const x of revs) {
      assert.equal(x.user.username, 'test-admin');
      assert.ok(x.user.groups.includes('system:masters'));
      assert.deepEqual(x.target, { apiVersion: 'v1', kind: 'ConfigMap', group: '', resource: 'configmaps', namespace: 'default', name: 'web', uid });
      assert.equal(x.metadata.name, `${uid}.${x.resourceVersion}`);
      assert.equal(x.metadata.namespace, 'default');
      assert.equal(x.object.metadata.resourceVersion, x.resourceVersion);
    }
    const rvs = revs.map((x) => Number(x.resourceVersion));
    assert.deepEqual([...rvs].sort((a, b) => a - b), rvs);
    assert.deepEqual(revs[0]!.patch, []);
    assert.ok(revs[1]!.patch.some((p) => p.op === 'replace' && p.path === '/data/a' && p.value === '2'), JSON.stringify(revs[1]!.patch));
    assert.ok(revs[2]!.patch.some((p) => p.op === 'add' && p.path === '/data/b' && p.value === 'x'), JSON.stringify(revs[2]!.patch));
    assert.ok(!revs[2]!.patch.some((p) => p.path === '/metadata/resourceVersion'));
    assert.deepEqual(revs[3]!.object.data, { a: '2', b: 'x', c: 'y' });
    // The deleted object's history stays findable by namespace, resource and name, and by uid.
    assert.equal(items(await list('default', `target.resource=configmaps,target.uid=${uid}`)).length, 5);
    const one = await t.request('GET', `${H()}/namespaces/default/revisions/${revs[2]!.metadata.name}`, admin);
    assert.equal(one.status, 200, one.text);
    assert.equal(one.json.kind, 'Revision');
    assert.equal(one.json.apiVersion, `${productGroup('history')}/v1`);
    assert.equal(one.json.operation, 'Patch');
    // The same revision is not in another namespace.
    assert.equal((await t.request('GET', `${H()}/namespaces/kube-public/revisions/${revs[2]!.metadata.name}`, admin)).status, 404);
  });

  it('records status writes and custom resources', async () => {
    const crd = {
      apiVersion: `${group('apiextensions')}/v1`,
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            subresources: { status: {} },
            schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } }, status: { type: 'object', properties: { ready: { type: 'boolean' } } } } } },
          },
        ],
      },
    };
    assert.equal((await t.request('POST', `/apis/${group('apiextensions')}/v1/customresourcedefinitions`, admin, crd)).status, 201);
    const path = '/apis/example.com/v1/namespaces/default/widgets';
    await eventually(async () => (await t.request('GET', path, admin)).status === 200, 'the widgets are served', 10_000);
    let r = await t.request('POST', `${path}?fieldManager=maker`, admin, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 1 } });
    assert.equal(r.status, 201, r.text);
    r = await t.request('PATCH', `${path}/w/status?fieldManager=statuser`, { ...admin, headers: { 'Content-Type': 'application/merge-patch+json' } }, { status: { ready: true } });
    assert.equal(r.status, 200, r.text);
    const revs = items(await list('default', 'target.group=example.com,target.resource=widgets,target.name=w'));
    assert.deepEqual(revs.map((x) => [x.operation, x.subresource, x.fieldManager]), [
      ['Create', undefined, 'maker'],
      ['PatchStatus', 'status', 'statuser'],
    ]);
    assert.equal(revs[1]!.target.kind, 'Widget');
    assert.equal(revs[1]!.target.apiVersion, 'example.com/v1');
    assert.deepEqual(revs[1]!.patch.find((p) => p.path === '/status'), { op: 'add', path: '/status', value: { ready: true } });
  });

  it('records deletecollection, the scale subresource and the controllers\' own writes', async () => {
    for (const name of ['dc1', 'dc2']) {
      assert.equal((await t.request('POST', '/api/v1/namespaces/default/configmaps', admin, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { sweep: 'yes' } } })).status, 201);
    }
    const swept = await t.request('DELETE', '/api/v1/namespaces/default/configmaps?labelSelector=sweep%3Dyes', admin);
    assert.equal(swept.status, 200, swept.text);
    for (const name of ['dc1', 'dc2']) {
      assert.deepEqual(items(await list('default', `target.resource=configmaps,target.name=${name}`)).map((x) => x.operation), ['Create', 'Delete']);
    }
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: { replicas: 1, selector: { matchLabels: { app: 'd' } }, template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    };
    assert.equal((await t.request('POST', '/apis/apps/v1/namespaces/default/deployments', admin, deployment)).status, 201);
    const scale = await t.request('PATCH', '/apis/apps/v1/namespaces/default/deployments/d/scale?fieldManager=scaler', { ...admin, headers: { 'Content-Type': 'application/merge-patch+json' } }, { spec: { replicas: 3 } });
    assert.equal(scale.status, 200, scale.text);
    const revs = items(await list('default', 'target.group=apps,target.resource=deployments,target.name=d'));
    const scaled = revs.find((x) => x.subresource === 'scale');
    assert.ok(scaled, JSON.stringify(revs.map((x) => [x.operation, x.subresource])));
    assert.equal(scaled.operation, 'Patch');
    assert.equal(scaled.fieldManager, 'scaler');
    assert.equal(scaled.target.kind, 'Deployment');
    assert.equal((scaled.object.spec as { replicas: number }).replicas, 3);
    // The deployment controller's writes (a ReplicaSet, the status) are revisions too, by its own user.
    await eventually(async () => items(await list('default', 'target.group=apps,target.resource=deployments,target.name=d')).some((x) => x.operation === 'UpdateStatus' && x.user.username !== 'test-admin'), 'the controller\'s status write', 10_000);
  });

  it('watches new revisions, each only for a user who may get its object', async () => {
    const sel = encodeURIComponent('target.resource=configmaps,target.name=watched');
    const events = (r: Response) => r.text.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { type: string; object: RevisionJson });
    assert.equal((await t.request('POST', '/api/v1/namespaces/default/configmaps', admin, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'watched' }, data: { v: '1' } })).status, 201);
    const nobody = await t.user('nobody');
    // From the start: the kept revision, then the new one (live, or kept if the write wins the race).
    const open = t.request('GET', `${H()}/namespaces/default/revisions?watch=true&timeoutSeconds=2&fieldSelector=${sel}`, admin);
    const hidden = t.request('GET', `${H()}/namespaces/default/revisions?watch=true&timeoutSeconds=2&fieldSelector=${sel}`, nobody);
    assert.equal((await t.request('PUT', '/api/v1/namespaces/default/configmaps/watched', admin, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'watched' }, data: { v: '2' } })).status, 200);
    const seen = events(await open);
    assert.deepEqual(seen.map((e) => [e.type, e.object.operation, e.object.revision]), [
      ['ADDED', 'Create', 1],
      ['ADDED', 'Update', 2],
    ]);
    assert.deepEqual(events(await hidden), []);
    // From a resourceVersion: what came after it.
    const later = events(await t.request('GET', `${H()}/namespaces/default/revisions?watch=true&timeoutSeconds=1&resourceVersion=${seen[0]!.object.resourceVersion}&fieldSelector=${sel}`, admin));
    assert.deepEqual(later.map((e) => e.object.revision), [2]);
    assert.equal((await t.request('GET', `${H()}/namespaces/default/revisions?watch=true&resourceVersion=abc&fieldSelector=${sel}`, admin)).status, 400);
  });

  it('prints REVISION, TIME, USER, MANAGER and OPERATION columns as a Table', async () => {
    const r = await t.request('GET', `${H()}/namespaces/default/revisions?fieldSelector=${encodeURIComponent('target.resource=configmaps,target.name=web')}`, {
      ...admin,
      headers: { Accept: `application/json;as=Table;v=v1;g=${metaGroup()}` },
    });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.kind, 'Table');
    const cols = (r.json.columnDefinitions as { name: string; type: string }[]).map((c) => c.name);
    assert.deepEqual(cols, ['Name', 'Revision', 'Time', 'User', 'Manager', 'Operation']);
    const rows = (r.json.rows as { cells: unknown[] }[]).map((row) => row.cells);
    assert.deepEqual(rows[0]!.slice(0, 2), ['web', 1]);
    assert.deepEqual(rows.map((c) => c[5]), ['Create', 'Update', 'Patch', 'Apply', 'Delete']);
    assert.equal(rows[0]![3], 'test-admin');
  });

  it('pages with limit and continue, oldest first', async () => {
    const first = await list('default', 'target.resource=configmaps,target.name=web', admin, '&limit=2');
    const page1 = items(first);
    assert.equal(page1.length, 2);
    const token = (first.json.metadata as Record<string, string>).continue!;
    assert.ok(token);
    const page2 = items(await list('default', 'target.resource=configmaps,target.name=web', admin, `&limit=10&continue=${encodeURIComponent(token)}`));
    assert.deepEqual([...page1, ...page2].map((x) => x.revision), [1, 2, 3, 4, 5]);
    assert.equal((await list('default', 'target.resource=configmaps', admin, '&continue=bm90LWEtdG9rZW4')).status, 400);
  });

  it('refuses bad selectors and writes with a Status', async () => {
    const bad = [
      '',
      'target.name=web',
      'target.resource=__proto__',
      'target.resource=configmaps,target.group=..',
      'target.resource=configmaps,target.name=..',
      'target.resource=configmaps,target.name=__proto__',
      `target.resource=configmaps,target.name=${'x'.repeat(3000)}`,
      'target.resource=configmaps,spec.foo=1',
      'target.resource=configmaps,__proto__=1',
      'target.resource!=configmaps',
      'target.resource=configmaps,target.uid=../../x',
    ];
    for (const s of bad) {
      const r = await t.request('GET', `${H()}/namespaces/default/revisions${s ? `?fieldSelector=${encodeURIComponent(s)}` : ''}`, admin);
      assert.equal(r.status, 400, `${s}: ${r.text}`);
      assert.equal(r.json.kind, 'Status');
    }
    const missing = await t.request('GET', `${H()}/revisions`, admin);
    assert.match(String(missing.json.message), /target\.resource is required/);
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const path = method === 'POST' ? `${H()}/namespaces/default/revisions` : `${H()}/namespaces/default/revisions/x.1`;
      const r = await t.request(method, path, admin, method === 'DELETE' ? undefined : { apiVersion: `${productGroup('history')}/v1`, kind: 'Revision', metadata: { name: 'x.1' } });
      assert.equal(r.status, 405, `${method}: ${r.text}`);
    }
    assert.equal((await t.request('GET', `${H()}/namespaces/default/revisions/nothing.1`, admin)).status, 404);
    assert.equal((await t.request('GET', `${H()}/namespaces/default/revisions/__proto__`, admin)).status, 404);
    for (const name of ['constructor.1', `x.${'9'.repeat(40)}`, `${'u'.repeat(5000)}.1`, 'x.1e3', '%2e%2e', 'x.-1']) {
      const r = await t.request('GET', `${H()}/namespaces/default/revisions/${name}`, admin);
      assert.ok(r.status === 404 || r.status === 400, `${name}: ${r.status} ${r.text.slice(0, 200)}`);
      assert.equal(r.json.kind, 'Status');
    }
  });

  it('shows a user only the revisions of objects the user may get', async () => {
    for (const ns of ['a', 'b']) {
      assert.equal((await t.request('POST', '/api/v1/namespaces', admin, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } })).status, 201);
      assert.equal((await t.request('POST', `/api/v1/namespaces/${ns}/configmaps`, admin, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data: { k: ns } })).status, 201);
    }
    const secret = await t.request('POST', '/api/v1/namespaces/a/secrets', admin, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, stringData: { password: 'hunter2' } });
    assert.equal(secret.status, 201, secret.text);
    const rbac = `/apis/${group('rbac.authorization')}/v1`;
    assert.equal((await t.request('POST', `${rbac}/namespaces/a/roles`, admin, { apiVersion: `${group('rbac.authorization')}/v1`, kind: 'Role', metadata: { name: 'cm-reader' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] })).status, 201);
    const binding = { apiVersion: `${group('rbac.authorization')}/v1`, kind: 'RoleBinding', metadata: { name: 'alice' }, roleRef: { apiGroup: group('rbac.authorization'), kind: 'Role', name: 'cm-reader' }, subjects: [{ apiGroup: group('rbac.authorization'), kind: 'User', name: 'alice' }] };
    assert.equal((await t.request('POST', `${rbac}/namespaces/a/rolebindings`, admin, binding)).status, 201);
    const alice = await t.user('alice');
    // (Each namespace also has the root CA publisher's ConfigMap.)
    await eventually(async () => items(await list('a', 'target.resource=configmaps,target.name=cm', alice)).length === 1, 'alice reads the ConfigMap history of a', 10_000);

    // No Secret revisions: not listed, not by name, not by uid, not across namespaces.
    const secretUid = (secret.json.metadata as Record<string, string>).uid!;
    assert.deepEqual(items(await list('a', 'target.resource=secrets', alice)), []);
    assert.deepEqual(items(await list('a', `target.resource=secrets,target.name=s`, alice)), []);
    assert.deepEqual(items(await list('', `target.resource=secrets,target.uid=${secretUid}`, alice)), []);
    const secretRevs = items(await list('a', 'target.resource=secrets,target.name=s'));
    assert.equal(secretRevs.length, 1);
    const denied = await t.request('GET', `${H()}/namespaces/a/revisions/${secretRevs[0]!.metadata.name}`, alice);
    assert.equal(denied.status, 403, denied.text);
    assert.equal(denied.json.message, 'secrets "s" is forbidden: User "alice" cannot get resource "secrets" in API group "" in the namespace "a"');
    assert.doesNotMatch(denied.text, /hunter2|aHVudGVyMg/);

    // Namespace b's are not hers; across namespaces she sees a's only.
    assert.deepEqual(items(await list('b', 'target.resource=configmaps', alice)), []);
    const across = items(await list('', 'target.resource=configmaps', alice));
    assert.ok(across.some((x) => x.target.namespace === 'a' && x.target.name === 'cm'));
    // (The public cluster-info ConfigMap is readable by everyone, so its history is too.)
    assert.ok(across.every((x) => x.target.namespace === 'a' || x.target.name === 'cluster-info'), JSON.stringify(across.map((x) => x.target)));
    // The admin sees both.
    const all = items(await list('', 'target.resource=configmaps,target.name=cm'));
    assert.deepEqual(new Set(all.map((x) => x.target.namespace)), new Set(['a', 'b']));

    // A user who may not list revisions at all (no authenticated group) is refused by the chain.
    const anonymous = await t.request('GET', `${H()}/namespaces/a/revisions?fieldSelector=target.resource%3Dconfigmaps`, {});
    assert.ok(anonymous.status === 401 || anonymous.status === 403, anonymous.text);
  });

  it('lists the group in discovery as its own group', async () => {
    const apis = await t.request('GET', '/apis', admin);
    const groups = (apis.json.groups as { name: string; versions: { groupVersion: string }[] }[]).filter((g) => g.name === productGroup('history'));
    assert.equal(groups.length, 1);
    assert.deepEqual(groups[0]!.versions.map((v) => v.groupVersion), [`${productGroup('history')}/v1`]);
    const resources = await t.request('GET', `${H()}`, admin);
    assert.equal(resources.status, 200, resources.text);
    const rev = (resources.json.resources as { name: string; verbs: string[]; shortNames?: string[]; namespaced: boolean }[]).find((x) => x.name === 'revisions');
    assert.deepEqual(rev && { verbs: rev.verbs, shortNames: rev.shortNames, namespaced: rev.namespaced }, { verbs: ['get', 'list', 'watch'], shortNames: ['rev'], namespaced: true });
    const aggregated = await t.request('GET', '/apis', { ...admin, headers: { Accept: `application/json;g=apidiscovery.${compat === 'orch' ? 'orch.io' : 'k8s.io'};v=v2beta1;as=APIGroupDiscoveryList` } });
    assert.equal(aggregated.status, 200, aggregated.text);
    const agg = (aggregated.json.items as { metadata: { name: string } }[]).filter((g) => g.metadata.name === productGroup('history'));
    assert.equal(agg.length, 1, aggregated.text.slice(0, 300));
    // OpenAPI v2 and v3 describe it.
    const v2 = await t.request('GET', '/openapi/v2', admin);
    const v2Paths = Object.keys(v2.json.paths as Record<string, unknown>).filter((p) => p.includes(productGroup('history')));
    assert.deepEqual(v2Paths.sort(), [`${H()}/namespaces/{namespace}/revisions`, `${H()}/namespaces/{namespace}/revisions/{name}`, `${H()}/revisions`]);
    const v3 = await t.request('GET', '/openapi/v3', admin);
    const gv = (v3.json.paths as Record<string, { serverRelativeURL: string }>)[`apis/${productGroup('history')}/v1`];
    assert.ok(gv, v3.text.slice(0, 200));
    const v3doc = await t.request('GET', gv.serverRelativeURL, admin);
    assert.equal(v3doc.status, 200);
    assert.ok(Object.keys((v3doc.json.components as { schemas: Record<string, unknown> }).schemas).some((k) => k.endsWith('.Revision')));
    // No built-in group's document lists it.
    const core = await t.request('GET', '/api/v1', admin);
    assert.ok(!(core.json.resources as { name: string }[]).some((x) => x.name === 'revisions'));
  });
}
