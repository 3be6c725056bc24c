// End to end over HTTPS against the real server with its defaults (Node,RBAC, anonymous on):
// the identities x requests matrix, impersonation, escalation prevention, aggregation, the
// review APIs, static and bootstrap tokens, and service account tokens.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { SignJWT, createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { readFileSync } from 'node:fs';
import { startAuthTestServer, type AuthTestServer, type Identity, type Response } from '../testing/server.js';
import { eventually } from '../testing/wait.js';

const RBAC = 'rbac.authorization.orch.io';
const AUTHZ = 'authorization.orch.io';
const AUTHN = 'authentication.orch.io';
const STATIC_TOKEN = 'static-token-0123456789abcdef';

interface Req {
  method: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
}

const AUTHZ_403 = /User ".*" cannot [a-z]+ (resource|path)/;

function forbiddenByAuthz(r: Response): boolean {
  return r.status === 403 && AUTHZ_403.test(String(r.json['message'] ?? ''));
}

const pod = (name: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
const ssar = (attrs: Record<string, string>) => ({ apiVersion: `${AUTHZ}/v1`, kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: attrs } });

// The same fifteen requests as the unit matrix, as HTTP requests.
const GRID_REQUESTS: Req[] = [
  { method: 'GET', path: '/api/v1/namespaces/dev/pods/p' },
  { method: 'POST', path: '/api/v1/namespaces/dev/pods', body: pod('grid') },
  { method: 'GET', path: '/api/v1/namespaces/dev/secrets/s' },
  { method: 'POST', path: `/apis/${RBAC}/v1/namespaces/dev/roles`, body: { apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: { generateName: 'grid-' }, rules: [] } },
  { method: 'GET', path: '/api/v1/namespaces/prod/pods' },
  { method: 'GET', path: '/healthz' },
  { method: 'GET', path: '/apis' },
  { method: 'POST', path: `/apis/${AUTHZ}/v1/selfsubjectaccessreviews`, body: ssar({ verb: 'get', resource: 'pods', namespace: 'dev' }) },
  { method: 'GET', path: '/apis/apps/v1/namespaces/dev/deployments/d' },
  { method: 'DELETE', path: '/apis/apps/v1/namespaces/dev/deployments/d' },
  {
    method: 'POST',
    path: `/apis/${AUTHZ}/v1/namespaces/dev/localsubjectaccessreviews`,
    body: { apiVersion: `${AUTHZ}/v1`, kind: 'LocalSubjectAccessReview', metadata: { namespace: 'dev' }, spec: { user: 'x', resourceAttributes: { namespace: 'dev', verb: 'get', resource: 'pods' } } },
  },
  { method: 'GET', path: '/api/v1/namespaces' },
  { method: 'GET', path: '/metrics' },
  { method: 'GET', path: '/version', headers: { 'Impersonate-User': 'system:serviceaccount:dev:builder' } },
  { method: 'PUT', path: '/api/v1/namespaces/dev/pods/p/status', body: pod('p') },
];

const GRID: [string, string][] = [
  ['admin', 'TTTTTTTTTTTTTTT'],
  ['alice', 'TTTFFTTTTTFFFTF'],
  ['bob', 'TFFFFTTTTFFFFFF'],
  ['carol', 'TTTTFTTTTTTFFTF'],
  ['dave', 'TFFFTTTTTFFTFFF'],
  ['eve', 'FFFFFTTTFFFFFFF'],
  ['anonymous', 'FFFFFTFFFFFFFFF'],
  ['frank', 'FFFFFTTTFFFFTFF'],
  ['static', 'FFFFFTTTFFFFFFF'],
  // An agent: the node role's pods, pod status and local access reviews, no unrelated secret.
  ['node1', 'TTFFTTTTFFTFFFT'],
  // A service account (bearer token from TokenRequest) bound to view in dev.
  ['gridder', 'TFFFFTTTTFFFFFF'],
  ['bootstrap', 'FFFFFTTTFFFFFFF'],
  // A group bound to edit in dev.
  ['carl', 'TTTFFTTTTTFFFTF'],
  // The superuser acting as bob: bob's answers, except that the fourteenth request
  // replaces the impersonated user, which the superuser may.
  ['admin-as-bob', 'TFFFFTTTTFFFFTF'],
];

const binding = (kind: 'RoleBinding' | 'ClusterRoleBinding', name: string, roleKind: string, role: string, subjects: unknown[], ns?: string) => ({
  apiVersion: `${RBAC}/v1`,
  kind,
  metadata: ns ? { name, namespace: ns } : { name },
  roleRef: { apiGroup: RBAC, kind: roleKind, name: role },
  subjects,
});
const userSubject = (name: string) => ({ kind: 'User', apiGroup: RBAC, name });

describe('auth over HTTPS with the default configuration', () => {
  let s: AuthTestServer;
  const who: Record<string, Identity> = {};

  const must = async (method: string, path: string, body?: unknown): Promise<Response> => {
    const r = await s.request(method, path, s.admin, body);
    assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${r.text}`);
    return r;
  };

  before(async () => {
    const dir = (await import('node:fs')).mkdtempSync(join((await import('node:os')).tmpdir(), 'orch-auth-tokens-'));
    const tokenFile = join(dir, 'tokens.csv');
    writeFileSync(tokenFile, `${STATIC_TOKEN},static-user,uid-42,"qa,testers"\n`);
    // SelfSubjectReview's alpha and beta versions are served only when asked for, as in 1.27.
    s = await startAuthTestServer([`--token-auth-file=${tokenFile}`, '--enable-bootstrap-token-auth', `--runtime-config=${AUTHN}/v1alpha1=true,${AUTHN}/v1beta1=true`]);
    who['admin'] = s.admin;
    for (const name of ['alice', 'bob', 'carol', 'dave', 'eve']) who[name] = await s.user(name);
    who['frank'] = await s.user('frank', 'ops');
    who['anonymous'] = {};
    who['static'] = { token: STATIC_TOKEN };
    who['node1'] = await s.user('system:node:n1', 'system:nodes');
    who['carl'] = await s.user('carl', 'dev-editors');
    who['admin-as-bob'] = { ...s.admin, headers: { 'Impersonate-User': 'bob' } };
    who['bootstrap'] = { token: 'grid01.0123456789abcdef' };
    for (const ns of ['dev', 'prod', 'qa']) await must('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    // Pods need the namespace's default service account. The service account controller
    // creates it on its own; create it here only when the controller has not yet done so.
    for (const ns of ['dev', 'prod']) {
      const r = await s.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, s.admin, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } });
      assert.ok(r.status === 201 || (r.status === 409 && r.json['reason'] === 'AlreadyExists'), `the default service account of ${ns}: ${r.status} ${r.text}`);
      await must('GET', `/api/v1/namespaces/${ns}/serviceaccounts/default`);
    }
    await must('POST', '/api/v1/namespaces/dev/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'builder' } });
    await must('POST', `/apis/${RBAC}/v1/namespaces/dev/rolebindings`, binding('RoleBinding', 'alice-edit', 'ClusterRole', 'edit', [userSubject('alice')]));
    await must('POST', `/apis/${RBAC}/v1/namespaces/dev/rolebindings`, binding('RoleBinding', 'bob-view', 'ClusterRole', 'view', [userSubject('bob')]));
    await must('POST', `/apis/${RBAC}/v1/namespaces/dev/rolebindings`, binding('RoleBinding', 'carol-admin', 'ClusterRole', 'admin', [userSubject('carol')]));
    await must('POST', `/apis/${RBAC}/v1/clusterrolebindings`, binding('ClusterRoleBinding', 'dave-view', 'ClusterRole', 'view', [userSubject('dave')]));
    await must('POST', `/apis/${RBAC}/v1/namespaces/dev/rolebindings`, binding('RoleBinding', 'carl-edit', 'ClusterRole', 'edit', [{ kind: 'Group', apiGroup: RBAC, name: 'dev-editors' }]));
    await must('POST', '/api/v1/namespaces/dev/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'gridder' } });
    await must('POST', `/apis/${RBAC}/v1/namespaces/dev/rolebindings`, binding('RoleBinding', 'gridder-view', 'ClusterRole', 'view', [{ kind: 'ServiceAccount', name: 'gridder', namespace: 'dev' }]));
    const tr = await must('POST', '/api/v1/namespaces/dev/serviceaccounts/gridder/token', { apiVersion: `${AUTHN}/v1`, kind: 'TokenRequest', spec: {} });
    who['gridder'] = { token: (tr.json['status'] as { token: string }).token };
    const b64 = (v: string) => Buffer.from(v).toString('base64');
    await must('POST', '/api/v1/namespaces/orch-system/secrets', {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'bootstrap-token-grid01' },
      type: 'bootstrap.orch.io/token',
      data: { 'token-id': b64('grid01'), 'token-secret': b64('0123456789abcdef'), 'usage-bootstrap-authentication': b64('true') },
    });
    await must('POST', `/apis/${RBAC}/v1/clusterroles`, {
      apiVersion: `${RBAC}/v1`,
      kind: 'ClusterRole',
      metadata: { name: 'ops-role' },
      rules: [
        { verbs: ['get', 'list'], apiGroups: [''], resources: ['nodes'] },
        { verbs: ['get'], nonResourceURLs: ['/metrics'] },
      ],
    });
    await must('POST', `/apis/${RBAC}/v1/clusterrolebindings`, binding('ClusterRoleBinding', 'ops', 'ClusterRole', 'ops-role', [{ kind: 'Group', apiGroup: RBAC, name: 'ops' }]));
    // The bindings reach the authorizer through its watch: wait until the last one is seen.
    await eventually(async () => (await s.request('GET', '/metrics', who['frank']!)).status === 200, 'bindings to reach the authorizer', 5000);
  });

  after(async () => {
    await s?.stop();
  });

  for (const [name, expected] of GRID) {
    GRID_REQUESTS.forEach((req, i) => {
      const allowed = expected[i] === 'T';
      it(`${allowed ? 'allows' : 'forbids'} ${name}: ${req.method} ${req.path}${req.headers ? ' (impersonating)' : ''}`, async () => {
        const id = who[name]!;
        const r = await s.request(req.method, req.path, { ...id, headers: { ...id.headers, ...req.headers } }, req.body);
        assert.notEqual(r.status, 401, r.text);
        assert.equal(!forbiddenByAuthz(r), allowed, `${r.status} ${r.text}`);
      });
    });
  }

  it('answers 401 for an unknown bearer token even though anonymous requests are allowed, without echoing it', async () => {
    const secret = 'unknown-token-zzzzzzzzzzzz';
    const r = await s.request('GET', '/healthz', { token: secret });
    assert.equal(r.status, 401);
    assert.equal(r.json['message'], 'Unauthorized');
    assert.ok(!r.text.includes(secret));
  });

  it('rejects a client certificate from an unknown CA with 401', async () => {
    const { createCA, issueCert } = await import('../testing/pki.js');
    const stranger = await issueCert(await createCA('stranger'), 'mallory', { orgs: ['system:masters'] });
    const r = await s.request('GET', '/api/v1/namespaces', { cert: stranger });
    assert.equal(r.status, 401);
  });

  it('tells who is asking (SelfSubjectReview in v1beta1 and v1alpha1, not yet v1)', async () => {
    const v1 = await s.request('POST', `/apis/${AUTHN}/v1/selfsubjectreviews`, who['static']!, { apiVersion: `${AUTHN}/v1`, kind: 'SelfSubjectReview' });
    assert.equal(v1.status, 404);
    for (const v of ['v1beta1', 'v1alpha1']) {
      const r = await s.request('POST', `/apis/${AUTHN}/${v}/selfsubjectreviews`, who['static']!, { apiVersion: `${AUTHN}/${v}`, kind: 'SelfSubjectReview' });
      assert.equal(r.status, 201, r.text);
      assert.equal(r.json['apiVersion'], `${AUTHN}/${v}`);
      assert.deepEqual((r.json['status'] as Record<string, unknown>)['userInfo'], { username: 'static-user', uid: 'uid-42', groups: ['qa', 'testers', 'system:authenticated'] });
    }
  });

  it('answers access reviews with the server authorizer', async () => {
    const r1 = await s.request('POST', `/apis/${AUTHZ}/v1/selfsubjectaccessreviews`, who['bob']!, ssar({ verb: 'list', resource: 'pods', namespace: 'dev' }));
    assert.equal((r1.json['status'] as Record<string, unknown>)['allowed'], true);
    const r2 = await s.request('POST', `/apis/${AUTHZ}/v1/selfsubjectaccessreviews`, who['bob']!, ssar({ verb: 'delete', resource: 'pods', namespace: 'dev' }));
    assert.equal((r2.json['status'] as Record<string, unknown>)['allowed'], false);
    const sar = { apiVersion: `${AUTHZ}/v1`, kind: 'SubjectAccessReview', spec: { user: 'alice', groups: ['system:authenticated'], resourceAttributes: { namespace: 'dev', verb: 'create', resource: 'pods' } } };
    const r3 = await s.request('POST', `/apis/${AUTHZ}/v1/subjectaccessreviews`, s.admin, sar);
    assert.equal((r3.json['status'] as Record<string, unknown>)['allowed'], true);
    assert.match(String((r3.json['status'] as Record<string, unknown>)['reason']), /RoleBinding "alice-edit\/dev"/);
    const r4 = await s.request('POST', `/apis/${AUTHZ}/v1/subjectaccessreviews`, who['bob']!, sar);
    assert.ok(forbiddenByAuthz(r4), r4.text);
    const bad = await s.request('POST', `/apis/${AUTHZ}/v1/selfsubjectaccessreviews`, who['bob']!, { apiVersion: `${AUTHZ}/v1`, kind: 'SelfSubjectAccessReview', spec: {} });
    assert.equal(bad.status, 422, bad.text);
    const rules = await s.request('POST', `/apis/${AUTHZ}/v1/selfsubjectrulesreviews`, who['bob']!, { apiVersion: `${AUTHZ}/v1`, kind: 'SelfSubjectRulesReview', spec: { namespace: 'dev' } });
    const status = rules.json['status'] as { resourceRules: { resources: string[] }[]; nonResourceRules: { nonResourceURLs: string[] }[] };
    assert.ok(status.resourceRules.some((r) => r.resources.includes('pods/log')));
    assert.ok(status.nonResourceRules.some((r) => r.nonResourceURLs.includes('/healthz')));
  });

  it('impersonates users, groups and extras when allowed, and refuses otherwise', async () => {
    const headers = { 'Impersonate-User': 'jane', 'Impersonate-Group': 'team-a', 'Impersonate-Extra-Scopes': 'read' };
    const r = await s.request('POST', `/apis/${AUTHN}/v1beta1/selfsubjectreviews`, { ...s.admin, headers }, { apiVersion: `${AUTHN}/v1beta1`, kind: 'SelfSubjectReview' });
    assert.deepEqual((r.json['status'] as Record<string, unknown>)['userInfo'], { username: 'jane', groups: ['team-a', 'system:authenticated'], extra: { scopes: ['read'] } });
    const denied = await s.request('GET', '/version', { ...who['alice']!, headers: { 'Impersonate-User': 'carol' } });
    assert.equal(denied.status, 403);
    assert.equal(denied.json['message'], 'users "carol" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope');
    const sa = await s.request('GET', '/api/v1/namespaces/dev/pods', { ...who['alice']!, headers: { 'Impersonate-User': 'system:serviceaccount:dev:builder' } });
    assert.ok(forbiddenByAuthz(sa), 'the service account itself may not list pods');
    assert.match(String(sa.json['message']), /User "system:serviceaccount:dev:builder" cannot list/);
    const noUser = await s.request('GET', '/version', { ...s.admin, headers: { 'Impersonate-Group': 'x' } });
    assert.equal(noUser.status, 400);
  });

  it('prevents privilege escalation through roles and bindings', async () => {
    const role = (name: string, rules: unknown[]) => ({ apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: { name }, rules });
    const ok = await s.request('POST', `/apis/${RBAC}/v1/namespaces/dev/roles`, who['carol']!, role('pod-reader', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]));
    assert.equal(ok.status, 201, ok.text);
    const tooMuch = await s.request('POST', `/apis/${RBAC}/v1/namespaces/dev/roles`, who['carol']!, role('node-reader', [{ verbs: ['get'], apiGroups: [''], resources: ['nodes'] }]));
    assert.equal(tooMuch.status, 403, tooMuch.text);
    assert.match(String(tooMuch.json['message']), /^roles\.rbac\.authorization\.orch\.io "node-reader" is forbidden: user "carol" \(groups=\["system:authenticated"\]\) is attempting to grant RBAC permissions not currently held:\n\{APIGroups:\[""\], Resources:\["nodes"\], Verbs:\["get"\]\}/);
    const bindAdmin = await s.request('POST', `/apis/${RBAC}/v1/namespaces/dev/rolebindings`, who['carol']!, binding('RoleBinding', 'carol-root', 'ClusterRole', 'cluster-admin', [userSubject('carol')]));
    assert.equal(bindAdmin.status, 403, bindAdmin.text);
    const bindView = await s.request('POST', `/apis/${RBAC}/v1/namespaces/dev/rolebindings`, who['carol']!, binding('RoleBinding', 'eve-view', 'ClusterRole', 'view', [userSubject('eve')]));
    assert.equal(bindView.status, 201, bindView.text);
    // With `escalate` on roles a user may grant what it does not hold.
    await s.request('POST', `/apis/${RBAC}/v1/namespaces/dev/roles`, s.admin, role('escalator', [{ verbs: ['create', 'escalate'], apiGroups: [RBAC], resources: ['roles'] }]));
    await s.request('POST', `/apis/${RBAC}/v1/namespaces/dev/rolebindings`, s.admin, binding('RoleBinding', 'frank-escalator', 'Role', 'escalator', [userSubject('frank')]));
    await eventually(async () => {
      const r = await s.request('POST', `/apis/${RBAC}/v1/namespaces/dev/roles`, who['frank']!, role('anything', [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]));
      return r.status === 201;
    }, 'escalate to be honoured', 5000);
  });

  it('aggregates labeled cluster roles into view', async () => {
    await must('POST', `/apis/${RBAC}/v1/clusterroles`, {
      apiVersion: `${RBAC}/v1`,
      kind: 'ClusterRole',
      metadata: { name: 'widgets-view', labels: { [`${RBAC}/aggregate-to-view`]: 'true' } },
      rules: [{ verbs: ['get'], apiGroups: ['example.com'], resources: ['widgets'] }],
    });
    await eventually(async () => {
      const r = await s.request('POST', `/apis/${AUTHZ}/v1/selfsubjectaccessreviews`, who['bob']!, ssar({ verb: 'get', group: 'example.com', resource: 'widgets', namespace: 'dev' }));
      return (r.json['status'] as Record<string, unknown> | undefined)?.['allowed'] === true;
    }, 'aggregated rule', 5000);
    const view = await must('GET', `/apis/${RBAC}/v1/clusterroles/view`);
    assert.ok((view.json['rules'] as { resources?: string[] }[]).some((r) => r.resources?.includes('widgets')));
  });

  it('authenticates bootstrap tokens and rejects expired, unusable and wrong ones', async () => {
    const b64 = (v: string) => Buffer.from(v).toString('base64');
    const secret = (id: string, tokenSecret: string, extra: Record<string, string> = {}) => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: `bootstrap-token-${id}` },
      type: 'bootstrap.orch.io/token',
      data: Object.fromEntries(Object.entries({ 'token-id': id, 'token-secret': tokenSecret, 'usage-bootstrap-authentication': 'true', ...extra }).map(([k, v]) => [k, b64(v)])),
    });
    await must('POST', '/api/v1/namespaces/orch-system/secrets', secret('abcdef', '0123456789abcdef', { 'auth-extra-groups': 'system:bootstrappers:worker' }));
    await must('POST', '/api/v1/namespaces/orch-system/secrets', secret('expire', '0123456789abcdef', { expiration: '2020-01-01T00:00:00Z' }));
    await must('POST', '/api/v1/namespaces/orch-system/secrets', secret('nouse1', '0123456789abcdef', { 'usage-bootstrap-authentication': 'false' }));
    const whoami = (token: string) => s.request('POST', `/apis/${AUTHN}/v1beta1/selfsubjectreviews`, { token }, { apiVersion: `${AUTHN}/v1beta1`, kind: 'SelfSubjectReview' });
    const ok = await whoami('abcdef.0123456789abcdef');
    assert.equal(ok.status, 201, ok.text);
    assert.deepEqual((ok.json['status'] as Record<string, unknown>)['userInfo'], {
      username: 'system:bootstrap:abcdef',
      groups: ['system:bootstrappers', 'system:bootstrappers:worker', 'system:authenticated'],
    });
    for (const bad of ['expire.0123456789abcdef', 'nouse1.0123456789abcdef', 'abcdef.0123456789abcdee', 'zzzzzz.0123456789abcdef']) {
      const r = await whoami(bad);
      assert.equal(r.status, 401, bad);
      assert.ok(!r.text.includes(bad));
    }
  });

  describe('service account tokens', () => {
    let token = '';
    const tokenRequest = (spec: Record<string, unknown>) =>
      s.request('POST', '/api/v1/namespaces/dev/serviceaccounts/builder/token', s.admin, { apiVersion: `${AUTHN}/v1`, kind: 'TokenRequest', spec });
    const whoami = (t: string) => s.request('POST', `/apis/${AUTHN}/v1beta1/selfsubjectreviews`, { token: t }, { apiVersion: `${AUTHN}/v1beta1`, kind: 'SelfSubjectReview' });

    it('issues bound tokens through TokenRequest, one hour by default', async () => {
      const r = await tokenRequest({});
      assert.equal(r.status, 201, r.text);
      const status = r.json['status'] as { token: string; expirationTimestamp: string };
      token = status.token;
      const lifetime = Date.parse(status.expirationTimestamp) - Date.now();
      assert.ok(lifetime > 3500_000 && lifetime <= 3600_000, String(lifetime));
      assert.equal((r.json['spec'] as Record<string, unknown>)['expirationSeconds'], 3600);
      const me = await whoami(token);
      assert.deepEqual((me.json['status'] as Record<string, unknown>)['userInfo'], {
        username: 'system:serviceaccount:dev:builder',
        uid: ((await must('GET', '/api/v1/namespaces/dev/serviceaccounts/builder')).json['metadata'] as Record<string, string>)['uid'],
        groups: ['system:serviceaccounts', 'system:serviceaccounts:dev', 'system:authenticated'],
      });
      const short = await tokenRequest({ expirationSeconds: 60 });
      assert.equal(short.status, 422, short.text);
    });

    it('publishes discovery documents whose keys verify the tokens', async () => {
      const disc = await s.request('GET', '/.well-known/openid-configuration', { token });
      assert.equal(disc.status, 200, disc.text);
      assert.equal(disc.json['issuer'], s.url);
      const jwks = await s.request('GET', '/openid/v1/jwks', { token });
      assert.equal(jwks.status, 200);
      const { payload } = await jwtVerify(token, createLocalJWKSet(jwks.json as unknown as JSONWebKeySet), { issuer: s.url });
      assert.equal(payload.sub, 'system:serviceaccount:dev:builder');
      const anonymous = await s.request('GET', '/openid/v1/jwks', {});
      assert.equal(anonymous.status, 403);
    });

    it('rejects tokens for another audience, expired, signed by another key, from another issuer, or malformed', async () => {
      const other = await tokenRequest({ audiences: ['https://elsewhere.example'] });
      assert.equal((await whoami((other.json['status'] as { token: string }).token)).status, 401);
      const saKey = createPrivateKey(readFileSync(join(s.dataDir, 'pki', 'sa.key'), 'utf8'));
      const jwks = (await s.request('GET', '/openid/v1/jwks', { token })).json as { keys: { kid: string; alg: string }[] };
      const { kid, alg } = jwks.keys[0]!;
      const claims = (exp: number, iss = s.url) =>
        new SignJWT({ 'orch.io': { namespace: 'dev', serviceaccount: { name: 'builder', uid: 'x' } } })
          .setProtectedHeader({ alg, kid })
          .setIssuer(iss)
          .setSubject('system:serviceaccount:dev:builder')
          .setAudience(s.url)
          .setIssuedAt(exp - 3600)
          .setExpirationTime(exp);
      const now = Math.floor(Date.now() / 1000);
      const expired = await claims(now - 600).sign(saKey);
      const strangerKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
      const foreign = await claims(now + 600).sign(strangerKey);
      const otherIssuer = await claims(now + 600, 'https://issuer.example').sign(saKey);
      for (const [what, t] of Object.entries({ expired, foreign, otherIssuer, malformed: 'abc.def.ghi', truncated: token.slice(0, -5) })) {
        const r = await whoami(t);
        assert.equal(r.status, 401, what);
        assert.deepEqual(r.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 }, what);
      }
    });

    it('invalidates tokens bound to a deleted pod, and every token of a deleted account', async () => {
      const created = await must('POST', '/api/v1/namespaces/dev/pods', { ...pod('bound'), spec: { serviceAccountName: 'builder', containers: [{ name: 'c', image: 'busybox' }] } });
      const uid = (created.json['metadata'] as Record<string, string>)['uid'];
      const r = await tokenRequest({ boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'bound', uid } });
      assert.equal(r.status, 201, r.text);
      const bound = (r.json['status'] as { token: string }).token;
      const me = await whoami(bound);
      assert.deepEqual(((me.json['status'] as Record<string, unknown>)['userInfo'] as Record<string, unknown>)['extra'], {
        'authentication.orch.io/pod-name': ['bound'],
        'authentication.orch.io/pod-uid': [uid],
      });
      await must('DELETE', '/api/v1/namespaces/dev/pods/bound?gracePeriodSeconds=0');
      await eventually(async () => (await whoami(bound)).status === 401, 'bound token to be rejected', 5000);
      assert.equal((await whoami(token)).status, 201);
      await must('DELETE', '/api/v1/namespaces/dev/serviceaccounts/builder');
      await eventually(async () => (await whoami(token)).status === 401, 'account token to be rejected', 5000);
    });

    it('reviews tokens for other components (TokenReview v1; v1beta1 was removed in 1.22)', async () => {
      const removed = await s.request('POST', `/apis/${AUTHN}/v1beta1/tokenreviews`, s.admin, { apiVersion: `${AUTHN}/v1beta1`, kind: 'TokenReview', spec: { token: STATIC_TOKEN } });
      assert.equal(removed.status, 404);
      const good = await s.request('POST', `/apis/${AUTHN}/v1/tokenreviews`, s.admin, { apiVersion: `${AUTHN}/v1`, kind: 'TokenReview', spec: { token: STATIC_TOKEN } });
      assert.equal(good.status, 201, good.text);
      const st = good.json['status'] as Record<string, unknown>;
      assert.equal(st['authenticated'], true);
      assert.equal((st['user'] as Record<string, unknown>)['username'], 'static-user');
      const bad = await s.request('POST', `/apis/${AUTHN}/v1/tokenreviews`, s.admin, { apiVersion: `${AUTHN}/v1`, kind: 'TokenReview', spec: { token: 'nope' } });
      assert.notEqual((bad.json['status'] as Record<string, unknown>)['authenticated'], true);
      const denied = await s.request('POST', `/apis/${AUTHN}/v1/tokenreviews`, who['bob']!, { apiVersion: `${AUTHN}/v1`, kind: 'TokenReview', spec: { token: STATIC_TOKEN } });
      assert.ok(forbiddenByAuthz(denied));
    });

    it('vouches for static and bootstrap tokens to the server\'s own audiences only (TokenReview)', async () => {
      // The server's audiences default to its service account issuer.
      const issuer = String((await must('GET', '/.well-known/openid-configuration')).json['issuer']);
      for (const token of [STATIC_TOKEN, 'grid01.0123456789abcdef']) {
        const review = async (audiences?: string[]): Promise<Record<string, unknown>> => {
          const r = await s.request('POST', `/apis/${AUTHN}/v1/tokenreviews`, s.admin, { apiVersion: `${AUTHN}/v1`, kind: 'TokenReview', spec: { token, ...(audiences ? { audiences } : {}) } });
          assert.equal(r.status, 201, r.text);
          return r.json['status'] as Record<string, unknown>;
        };
        assert.deepEqual(await review(['https://vault.example.com']), { user: {}, error: 'invalid bearer token' }, token);
        const own = await review([issuer]);
        assert.equal(own['authenticated'], true, token);
        assert.deepEqual(own['audiences'], [issuer]);
        assert.deepEqual((await review(['https://vault.example.com', issuer]))['audiences'], [issuer]);
        assert.deepEqual((await review())['audiences'], [issuer]);
      }
    });
  });

  it('fills legacy service account token Secrets, whose tokens work until the Secret goes', async () => {
    await must('POST', '/api/v1/namespaces/prod/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'legacy' } });
    await must('POST', '/api/v1/namespaces/prod/secrets', {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'legacy-token', annotations: { 'orch.io/service-account.name': 'legacy' } },
      type: 'orch.io/service-account-token',
    });
    let token = '';
    await eventually(async () => {
      const secret = await must('GET', '/api/v1/namespaces/prod/secrets/legacy-token');
      const data = (secret.json['data'] ?? {}) as Record<string, string>;
      token = data['token'] ? Buffer.from(data['token'], 'base64').toString('utf8') : '';
      return token !== '' && Buffer.from(data['namespace'] ?? '', 'base64').toString() === 'prod' && !!data['ca.crt'];
    }, 'the token controller', 5000);
    const whoami = (t: string) => s.request('POST', `/apis/${AUTHN}/v1beta1/selfsubjectreviews`, { token: t }, { apiVersion: `${AUTHN}/v1beta1`, kind: 'SelfSubjectReview' });
    const me = await whoami(token);
    assert.equal(((me.json['status'] as Record<string, unknown>)['userInfo'] as Record<string, unknown>)['username'], 'system:serviceaccount:prod:legacy');
    await must('DELETE', '/api/v1/namespaces/prod/secrets/legacy-token');
    assert.equal((await whoami(token)).status, 401);
  });

  it('limits agents to their own pods\' secrets (Node authorizer)', async () => {
    await must('POST', '/api/v1/namespaces/dev/pods', {
      ...pod('on-n1'),
      spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'busybox' }], volumes: [{ name: 'v', secret: { secretName: 'app-secret' } }] },
    });
    const n1 = await s.user('system:node:n1', 'system:nodes');
    const n2 = await s.user('system:node:n2', 'system:nodes');
    await eventually(async () => !forbiddenByAuthz(await s.request('GET', '/api/v1/namespaces/dev/secrets/app-secret', n1)), 'the pod to reach the node graph', 5000);
    assert.ok(forbiddenByAuthz(await s.request('GET', '/api/v1/namespaces/dev/secrets/app-secret', n2)));
    assert.ok(forbiddenByAuthz(await s.request('GET', '/api/v1/namespaces/dev/secrets/other', n1)));
    assert.ok(forbiddenByAuthz(await s.request('GET', '/api/v1/namespaces/dev/secrets', n1)));
    // A list pinned to the one name by a field selector is read like a get of it, as kubelets do.
    const one = await s.request('GET', '/api/v1/namespaces/dev/secrets?fieldSelector=metadata.name%3Dapp-secret', n1);
    assert.equal(one.status, 200, JSON.stringify(one.json));
    assert.ok(forbiddenByAuthz(await s.request('GET', '/api/v1/namespaces/dev/secrets?fieldSelector=metadata.name%3Dapp-secret', n2)));
    assert.ok(forbiddenByAuthz(await s.request('GET', '/api/v1/namespaces/dev/secrets?fieldSelector=metadata.name%3Dother', n1)));
    // The legacy watch path names no object: refused, as in Kubernetes.
    assert.ok(forbiddenByAuthz(await s.request('GET', '/api/v1/watch/namespaces/dev/secrets?fieldSelector=metadata.name%3Dapp-secret', n1)));
    assert.ok(!forbiddenByAuthz(await s.request('GET', '/api/v1/nodes/n1', n1)));
    assert.ok(!forbiddenByAuthz(await s.request('GET', '/api/v1/pods', n1)));
  });

  it('never writes tokens into its logs', () => {
    const all = s.logs.join('\n');
    for (const t of [STATIC_TOKEN, '0123456789abcdef']) assert.ok(!all.includes(t), 'a token appears in the logs');
  });
});
