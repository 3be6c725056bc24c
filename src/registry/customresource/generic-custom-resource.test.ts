// Black-box, the whole server over HTTPS in both naming flavors: the mechanisms that treat
// every resource alike (RBAC, admission webhooks, the namespace controller, quota) treat a
// custom resource as Kubernetes 1.27 does.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startAuthTestServer, type AuthTestServer, type Identity, type Response } from '../../testing/server.js';
import { createCA, issueCert } from '../../testing/pki.js';
import { json, startHttpsServer, type TestHttpsServer } from '../../testing/https-server.js';
import { eventually } from '../../testing/wait.js';

type Flavor = 'orch' | 'kubernetes';

const domain = (flavor: Flavor): string => (flavor === 'orch' ? 'orch.io' : 'k8s.io');

/** Widgets in v1 (stored) and v2 (served), converted by rewriting apiVersion; status and scale. */
function widgetDefinition(flavor: Flavor, extra: { categories?: string[] } = {}): Record<string, unknown> {
  const schema = {
    openAPIV3Schema: {
      type: 'object',
      properties: {
        spec: { type: 'object', properties: { replicas: { type: 'integer' }, note: { type: 'string' } } },
        status: { type: 'object', properties: { replicas: { type: 'integer' } } },
      },
    },
  };
  const subresources = { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } };
  return {
    apiVersion: `apiextensions.${domain(flavor)}/v1`,
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', kind: 'Widget', ...extra },
      versions: [
        { name: 'v1', served: true, storage: true, schema, subresources },
        { name: 'v2', served: true, storage: false, schema, subresources },
      ],
    },
  };
}

const widget = (name: string, ns: string, extra: Record<string, unknown> = {}, version = 'v1'): Record<string, unknown> => ({
  apiVersion: `example.com/${version}`,
  kind: 'Widget',
  metadata: { name, namespace: ns, ...extra },
  spec: { replicas: 1 },
});

const widgets = (ns: string, version = 'v1'): string => `/apis/example.com/${version}/namespaces/${ns}/widgets`;

async function createNamespace(s: AuthTestServer, name: string): Promise<void> {
  const r = await s.request('POST', '/api/v1/namespaces', s.admin, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  assert.equal(r.status, 201, r.text);
}

/** Creates the definition and waits until both versions serve. */
async function establishWidgets(s: AuthTestServer, flavor: Flavor): Promise<void> {
  const r = await s.request('POST', `/apis/apiextensions.${domain(flavor)}/v1/customresourcedefinitions`, s.admin, widgetDefinition(flavor));
  assert.equal(r.status, 201, r.text);
  for (const v of ['v1', 'v2']) {
    await eventually(async () => ((await s.request('GET', widgets('default', v), s.admin)).status === 200 ? true : undefined), `widgets ${v} served`, 10_000);
  }
}

function expectStatus(r: Response, code: number, what: string): void {
  assert.equal(r.status, code, `${what}: ${r.text}`);
}

for (const flavor of ['orch', 'kubernetes'] as const) {
  describe(`custom resources in the generic mechanisms (${flavor} flavor)`, () => {
    let s: AuthTestServer;
    const RBAC = `rbac.authorization.${domain(flavor)}`;
    const ADMISSION = `admissionregistration.${domain(flavor)}`;

    before(async () => {
      s = await startAuthTestServer(flavor === 'kubernetes' ? ['--compat=kubernetes'] : []);
      await establishWidgets(s, flavor);
      await createNamespace(s, 'dev');
    });
    after(async () => {
      await s?.stop();
    });

    describe('RBAC', () => {
      const users = new Map<string, Identity>();
      const grant = async (user: string, rules: unknown[]): Promise<void> => {
        const role = { apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: { name: user, namespace: 'dev' }, rules };
        expectStatus(await s.request('POST', `/apis/${RBAC}/v1/namespaces/dev/roles`, s.admin, role), 201, 'role');
        const binding = {
          apiVersion: `${RBAC}/v1`,
          kind: 'RoleBinding',
          metadata: { name: user, namespace: 'dev' },
          roleRef: { apiGroup: RBAC, kind: 'Role', name: user },
          subjects: [{ apiGroup: RBAC, kind: 'User', name: user }],
        };
        expectStatus(await s.request('POST', `/apis/${RBAC}/v1/namespaces/dev/rolebindings`, s.admin, binding), 201, 'binding');
        users.set(user, await s.user(user));
      };

      before(async () => {
        for (const name of ['w1', 'w2']) expectStatus(await s.request('POST', widgets('dev'), s.admin, widget(name, 'dev')), 201, name);
        await grant('plain', [{ apiGroups: ['example.com'], resources: ['widgets'], verbs: ['get', 'list', 'create'] }]);
        await grant('star', [{ apiGroups: ['example.com'], resources: ['*'], verbs: ['get'] }]);
        await grant('named', [{ apiGroups: ['example.com'], resources: ['widgets'], resourceNames: ['w1'], verbs: ['get', 'update'] }]);
        await grant('status', [{ apiGroups: ['example.com'], resources: ['widgets/status'], verbs: ['get', 'update', 'patch'] }]);
        await grant('scale', [{ apiGroups: ['example.com'], resources: ['widgets/scale'], verbs: ['get', 'update'] }]);
        await grant('othergroup', [{ apiGroups: ['example.org'], resources: ['widgets'], verbs: ['get', 'list'] }]);
      });

      // [user, method, path suffix, body, allowed]
      const MATRIX: [string, string, string, unknown, boolean][] = [
        ['plain', 'GET', '/w1', undefined, true],
        ['plain', 'GET', '', undefined, true],
        ['plain', 'POST', '', widget('p1', 'dev'), true],
        ['plain', 'DELETE', '/w1', undefined, false],
        ['plain', 'GET', '/w1/status', undefined, false],
        ['plain', 'GET', '/w1/scale', undefined, false],
        ['star', 'GET', '/w1', undefined, true],
        ['star', 'GET', '/w1/status', undefined, true],
        ['star', 'GET', '/w1/scale', undefined, true],
        ['star', 'GET', '', undefined, false],
        ['named', 'GET', '/w1', undefined, true],
        ['named', 'GET', '/w2', undefined, false],
        ['named', 'GET', '', undefined, false],
        ['named', 'GET', '/w1/status', undefined, false],
        ['status', 'GET', '/w1/status', undefined, true],
        ['status', 'PATCH', '/w1/status', { status: { replicas: 3 } }, true],
        ['status', 'GET', '/w1', undefined, false],
        ['status', 'GET', '/w1/scale', undefined, false],
        ['scale', 'GET', '/w2/scale', undefined, true],
        ['scale', 'GET', '/w2', undefined, false],
        ['scale', 'GET', '/w2/status', undefined, false],
        ['othergroup', 'GET', '/w1', undefined, false],
      ];

      for (const [user, method, suffix, body, allowed] of MATRIX) {
        it(`${user} ${method} widgets${suffix}: ${allowed ? 'allowed' : 'forbidden'}`, async () => {
          const who = users.get(user)!;
          const patch = method === 'PATCH' ? { ...who, headers: { 'Content-Type': 'application/merge-patch+json' } } : who;
          for (const version of ['v1', 'v2']) {
            const payload = body && method === 'POST' ? { ...(body as Record<string, unknown>), apiVersion: `example.com/${version}`, metadata: { name: `p-${version}`, namespace: 'dev' } } : body;
            const r = await s.request(method, `${widgets('dev', version)}${suffix}`, patch, payload);
            if (allowed) assert.ok(r.status < 300, `${version}: ${r.status} ${r.text}`);
            else {
              expectStatus(r, 403, version);
              assert.equal(r.json.reason, 'Forbidden');
              assert.match(String(r.json.message), new RegExp(`User "${user}" cannot [a-z]+ resource "widgets(/[a-z]+)?" in API group "example\\.com" in the namespace "dev"`));
            }
          }
        });
      }

      it('words the refusal as Kubernetes does, naming the subresource', async () => {
        const r = await s.request('GET', `${widgets('dev')}/w1/status`, users.get('plain')!);
        expectStatus(r, 403, 'status');
        assert.equal(r.json.message, 'widgets.example.com "w1" is forbidden: User "plain" cannot get resource "widgets/status" in API group "example.com" in the namespace "dev"');
        const list = await s.request('GET', widgets('dev'), users.get('named')!);
        assert.equal(list.json.message, 'widgets.example.com is forbidden: User "named" cannot list resource "widgets" in API group "example.com" in the namespace "dev"');
      });

      it('the scale update through the subresource changes spec.replicas', async () => {
        const who = users.get('scale')!;
        const scale = await s.request('GET', `${widgets('dev')}/w2/scale`, who);
        expectStatus(scale, 200, 'scale');
        const put = await s.request('PUT', `${widgets('dev')}/w2/scale`, who, { ...scale.json, spec: { replicas: 4 } });
        expectStatus(put, 200, 'scale update');
        const got = await s.request('GET', `${widgets('dev')}/w2`, s.admin);
        assert.equal((got.json.spec as { replicas: number }).replicas, 4);
      });
    });

    describe('ResourceQuota', () => {
      before(async () => {
        await createNamespace(s, 'quota');
        const quota = { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q', namespace: 'quota' }, spec: { hard: { 'count/widgets.example.com': '1' } } };
        expectStatus(await s.request('POST', '/api/v1/namespaces/quota/resourcequotas', s.admin, quota), 201, 'quota');
        // It limits once the resource quota controller has computed its status.
        await eventually(async () => {
          const got = await s.request('GET', '/api/v1/namespaces/quota/resourcequotas/q', s.admin);
          return (got.json.status as { used?: Record<string, string> } | undefined)?.used?.['count/widgets.example.com'] === '0' ? true : undefined;
        }, 'the quota status computed');
      });

      it('counts count/widgets.example.com and refuses the widget over it with the Kubernetes message', async () => {
        expectStatus(await s.request('POST', widgets('quota'), s.admin, widget('q1', 'quota')), 201, 'q1');
        const over = await s.request('POST', widgets('quota', 'v2'), s.admin, widget('q2', 'quota', {}, 'v2'));
        expectStatus(over, 403, 'q2');
        assert.equal(
          over.json.message,
          'widgets.example.com "q2" is forbidden: exceeded quota: q, requested: count/widgets.example.com=1, used: count/widgets.example.com=1, limited: count/widgets.example.com=1',
        );
        assert.equal((await s.request('GET', `${widgets('quota')}/q2`, s.admin)).status, 404);
        const quota = await s.request('GET', '/api/v1/namespaces/quota/resourcequotas/q', s.admin);
        assert.deepEqual((quota.json.status as { used: unknown }).used, { 'count/widgets.example.com': '1' });
        // A deletion frees the count once the controller has replenished the quota.
        expectStatus(await s.request('DELETE', `${widgets('quota')}/q1`, s.admin), 200, 'delete q1');
        await eventually(async () => {
          const got = await s.request('GET', '/api/v1/namespaces/quota/resourcequotas/q', s.admin);
          return (got.json.status as { used?: Record<string, string> }).used?.['count/widgets.example.com'] === '0' ? true : undefined;
        }, 'the quota replenished');
        expectStatus(await s.request('POST', widgets('quota'), s.admin, widget('q2', 'quota')), 201, 'q2 after delete');
      });
    });

    describe('admission webhooks', () => {
      let hooks: TestHttpsServer;
      const mutated: string[] = [];
      const seen: { hook: string; resource: string; requestResource: string; requestKind: string; objectVersion: string; subResource?: string }[] = [];

      type Review = {
        apiVersion: string;
        request: {
          uid: string;
          name: string;
          subResource?: string;
          resource: { group: string; version: string; resource: string };
          requestResource?: { group: string; version: string; resource: string };
          requestKind?: { group: string; version: string; kind: string };
          object?: { apiVersion: string; metadata: { name: string } };
        };
      };
      const gvr = (r?: { group: string; version: string; resource: string }): string => (r ? `${r.group}/${r.version}/${r.resource}` : '');

      before(async () => {
        const ca = await createCA('widget-hooks-ca');
        hooks = await startHttpsServer(await issueCert(ca, 'hooks', { usage: 'server', ips: ['127.0.0.1'] }), (req, body, res) => {
          const review = JSON.parse(body) as Review;
          const rq = review.request;
          const hook = new URL(req.url!, 'https://x').pathname.slice(1);
          if (hook === 'mutate') {
            mutated.push(`${gvr(rq.resource)} ${gvr(rq.requestResource)} ${rq.object?.apiVersion ?? ''}`);
            const patch = [
              { op: 'add', path: '/metadata/labels', value: { mutated: 'yes' } },
              { op: 'add', path: '/spec/note', value: 'set by the webhook' },
            ];
            json(res, 200, {
              apiVersion: review.apiVersion,
              kind: 'AdmissionReview',
              response: { uid: rq.uid, allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(patch)).toString('base64') },
            });
            return;
          }
          seen.push({
            hook,
            resource: gvr(rq.resource),
            requestResource: gvr(rq.requestResource),
            requestKind: rq.requestKind ? `${rq.requestKind.version}/${rq.requestKind.kind}` : '',
            objectVersion: rq.object?.apiVersion ?? '',
            ...(rq.subResource ? { subResource: rq.subResource } : {}),
          });
          const deny = rq.name === 'refused';
          json(res, 200, {
            apiVersion: review.apiVersion,
            kind: 'AdmissionReview',
            response: { uid: rq.uid, allowed: !deny, ...(deny ? { status: { message: 'widgets may not be called refused' } } : {}) },
          });
        });
        const caBundle = Buffer.from(ca.certPem).toString('base64');
        const hook = (name: string, matchPolicy: string, resources = ['widgets']) => ({
          name: `${name}.example.com`,
          clientConfig: { url: `${hooks.url}/${name}`, caBundle },
          rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: ['example.com'], apiVersions: ['v1'], resources, scope: 'Namespaced' }],
          matchPolicy,
          namespaceSelector: { matchLabels: { hooked: 'yes' } },
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
        });
        const config = {
          apiVersion: `${ADMISSION}/v1`,
          kind: 'ValidatingWebhookConfiguration',
          metadata: { name: 'widgets' },
          webhooks: [hook('equivalent', 'Equivalent'), hook('exact', 'Exact'), hook('status', 'Equivalent', ['widgets/status'])],
        };
        expectStatus(await s.request('POST', `/apis/${ADMISSION}/v1/validatingwebhookconfigurations`, s.admin, config), 201, 'webhook configuration');
        const mutating = {
          apiVersion: `${ADMISSION}/v1`,
          kind: 'MutatingWebhookConfiguration',
          metadata: { name: 'widgets' },
          webhooks: [{ ...hook('mutate', 'Equivalent'), rules: [{ operations: ['CREATE'], apiGroups: ['example.com'], apiVersions: ['v1'], resources: ['widgets'] }] }],
        };
        expectStatus(await s.request('POST', `/apis/${ADMISSION}/v1/mutatingwebhookconfigurations`, s.admin, mutating), 201, 'mutating configuration');
        const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'hooked', labels: { hooked: 'yes' } } };
        expectStatus(await s.request('POST', '/api/v1/namespaces', s.admin, ns), 201, 'namespace');
        // The configuration is read through an informer: wait until a create reaches it.
        await eventually(
          async () => {
            seen.length = 0;
            const name = `probe-${Date.now()}`;
            expectStatus(await s.request('POST', widgets('hooked'), s.admin, widget(name, 'hooked')), 201, 'probe');
            return seen.length > 0 && mutated.length > 0 ? true : undefined;
          },
          'the webhooks to be called',
          10_000,
        );
      });
      after(async () => {
        await hooks?.close();
      });

      it('a create in the matched version reaches both policies with the request as sent', async () => {
        seen.length = 0;
        expectStatus(await s.request('POST', widgets('hooked'), s.admin, widget('a', 'hooked')), 201, 'create');
        assert.deepEqual(
          [...seen].sort((a, b) => a.hook.localeCompare(b.hook)),
          ['equivalent', 'exact'].map((hook) => ({
            hook,
            resource: 'example.com/v1/widgets',
            requestResource: 'example.com/v1/widgets',
            requestKind: 'v1/Widget',
            objectVersion: 'example.com/v1',
          })),
        );
      });

      it('matchPolicy Equivalent sees a v2 create converted to v1; Exact is not called', async () => {
        seen.length = 0;
        expectStatus(await s.request('POST', widgets('hooked', 'v2'), s.admin, widget('b', 'hooked', {}, 'v2')), 201, 'create v2');
        assert.deepEqual(seen, [
          { hook: 'equivalent', resource: 'example.com/v1/widgets', requestResource: 'example.com/v2/widgets', requestKind: 'v2/Widget', objectVersion: 'example.com/v1' },
        ]);
      });

      it('a status update reaches only the status rule, in either version', async () => {
        for (const version of ['v1', 'v2']) {
          seen.length = 0;
          const r = await s.request('PATCH', `${widgets('hooked', version)}/a/status`, { ...s.admin, headers: { 'Content-Type': 'application/merge-patch+json' } }, { status: { replicas: 2 } });
          expectStatus(r, 200, `status ${version}`);
          assert.deepEqual(
            seen.map((x) => [x.hook, x.resource, x.requestResource, x.subResource]),
            [['status', 'example.com/v1/widgets', `example.com/${version}/widgets`, 'status']],
          );
        }
      });

      it('a denial refuses the custom resource with the webhook named, and stores nothing', async () => {
        const r = await s.request('POST', widgets('hooked', 'v2'), s.admin, widget('refused', 'hooked', {}, 'v2'));
        assert.equal(r.status, 403, r.text);
        assert.equal(r.json.message, 'admission webhook "equivalent.example.com" denied the request: widgets may not be called refused');
        assert.equal((await s.request('GET', `${widgets('hooked')}/refused`, s.admin)).status, 404);
      });

      it('a mutating webhook patches a v2 create in its v1 form; the patch is kept and served in v2', async () => {
        mutated.length = 0;
        const created = await s.request('POST', widgets('hooked', 'v2'), s.admin, widget('m', 'hooked', {}, 'v2'));
        expectStatus(created, 201, 'create');
        assert.deepEqual(mutated, ['example.com/v1/widgets example.com/v2/widgets example.com/v1']);
        assert.equal(created.json.apiVersion, 'example.com/v2');
        assert.deepEqual((created.json.metadata as { labels: unknown }).labels, { mutated: 'yes' });
        assert.deepEqual(created.json.spec, { replicas: 1, note: 'set by the webhook' });
      });

      it('a namespace outside the selector is not sent', async () => {
        seen.length = 0;
        mutated.length = 0;
        expectStatus(await s.request('POST', widgets('dev'), s.admin, widget('refused', 'dev')), 201, 'unhooked');
        assert.deepEqual(seen, []);
        assert.deepEqual(mutated, []);
      });
    });

    describe('the namespace controller', () => {
      type Condition = { type: string; status: string; reason: string; message: string };
      const conditionsOf = (r: Response): Map<string, Condition> =>
        new Map((((r.json.status as { conditions?: Condition[] }) ?? {}).conditions ?? []).map((c) => [c.type, c]));

      it('deletes the custom resources of a deleted namespace; one with a finalizer holds it', async () => {
        await createNamespace(s, 'doomed');
        expectStatus(await s.request('POST', widgets('doomed'), s.admin, widget('plain', 'doomed')), 201, 'plain');
        expectStatus(await s.request('POST', widgets('doomed', 'v2'), s.admin, widget('held', 'doomed', { finalizers: ['example.com/hold'] }, 'v2')), 201, 'held');
        expectStatus(await s.request('DELETE', '/api/v1/namespaces/doomed', s.admin), 200, 'delete namespace');

        const stuck = await eventually(
          async () => {
            const r = await s.request('GET', '/api/v1/namespaces/doomed', s.admin);
            return conditionsOf(r).get('NamespaceFinalizersRemaining')?.status === 'True' ? r : undefined;
          },
          'the namespace to report the finalizer',
          10_000,
        );
        const conditions = conditionsOf(stuck);
        const pick = (t: string) => {
          const c = conditions.get(t);
          return c && { status: c.status, reason: c.reason, message: c.message };
        };
        assert.deepEqual(pick('NamespaceContentRemaining'), {
          status: 'True',
          reason: 'SomeResourcesRemain',
          message: 'Some resources are remaining: widgets.example.com has 1 resource instances',
        });
        assert.deepEqual(pick('NamespaceFinalizersRemaining'), {
          status: 'True',
          reason: 'SomeFinalizersRemain',
          message: 'Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances',
        });
        assert.equal((stuck.json.status as { phase: string }).phase, 'Terminating');
        assert.equal((await s.request('GET', `${widgets('doomed')}/plain`, s.admin)).status, 404);
        const held = await s.request('GET', `${widgets('doomed')}/held`, s.admin);
        expectStatus(held, 200, 'held');
        assert.ok((held.json.metadata as { deletionTimestamp?: string }).deletionTimestamp);
        // A create in a terminating namespace is refused as for built-ins.
        const late = await s.request('POST', widgets('doomed'), s.admin, widget('late', 'doomed'));
        expectStatus(late, 403, 'late');
        assert.match(String(late.json.message), /because it is being terminated/);

        const release = await s.request('PATCH', `${widgets('doomed')}/held`, { ...s.admin, headers: { 'Content-Type': 'application/merge-patch+json' } }, { metadata: { finalizers: null } });
        expectStatus(release, 200, 'release');
        await eventually(async () => ((await s.request('GET', '/api/v1/namespaces/doomed', s.admin)).status === 404 ? true : undefined), 'the namespace to go', 15_000);
      });
    });
  });
}
