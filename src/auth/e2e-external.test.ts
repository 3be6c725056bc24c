// End to end over HTTPS with external identity and policy sources served by the test over
// HTTPS with their own CA: an OIDC issuer, the token authentication and authorization
// webhooks, an authenticating proxy, and an ABAC policy file.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT, exportJWK, generateKeyPair, type JWK } from 'jose';
import { createCA, issueCert, type TestCert } from '../testing/pki.js';
import { json, startHttpsServer, webhookKubeconfig, type TestHttpsServer } from '../testing/https-server.js';
import { startAuthTestServer, type AuthTestServer, type Identity, type Response } from '../testing/server.js';

const AUTHN = 'authentication.orch.io';

type SigningKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

describe('external authenticators and authorizers over HTTPS', () => {
  const dir = mkdtempSync(join(tmpdir(), 'orch-auth-ext-'));
  let s: AuthTestServer;
  let ca: TestCert;
  let proxyCA: TestCert;
  let issuer: TestHttpsServer;
  let hooks: TestHttpsServer;
  let signingKey: SigningKey;
  let otherKey: SigningKey;
  const tokenReviews: Record<string, unknown>[] = [];
  let issuerHits = 0;
  const accessReviews: Record<string, unknown>[] = [];

  // SelfSubjectReview is beta in 1.27 (v1beta1), served when --runtime-config asks.
  const whoami = (id: Identity): Promise<Response> => s.request('POST', `/apis/${AUTHN}/v1beta1/selfsubjectreviews`, id, { apiVersion: `${AUTHN}/v1beta1`, kind: 'SelfSubjectReview' });
  const userInfo = (r: Response) => (r.json['status'] as Record<string, unknown> | undefined)?.['userInfo'];

  before(async () => {
    ca = await createCA('external-test-ca');
    proxyCA = await createCA('front-proxy-ca');
    const serving = await issueCert(ca, '127.0.0.1', { usage: 'server', ips: ['127.0.0.1'] });

    const keys = await generateKeyPair('RS256', { extractable: true });
    signingKey = keys.privateKey as SigningKey;
    otherKey = (await generateKeyPair('RS256', { extractable: true })).privateKey as SigningKey;
    const jwk: JWK = { ...(await exportJWK(keys.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    let issuerUrl = '';
    issuer = await startHttpsServer(serving, (req, _body, res) => {
      issuerHits++;
      if (req.url === '/.well-known/openid-configuration') json(res, 200, { issuer: issuerUrl, jwks_uri: `${issuerUrl}/keys` });
      else if (req.url === '/keys') json(res, 200, { keys: [jwk] });
      else json(res, 404, {});
    });
    issuerUrl = issuer.url;

    hooks = await startHttpsServer(serving, (req, body, res) => {
      const review = JSON.parse(body) as Record<string, unknown>;
      const spec = review['spec'] as Record<string, unknown>;
      if (req.url === '/authn') {
        tokenReviews.push(review);
        const ok = spec['token'] === 'webhook-good-token';
        json(res, 200, {
          apiVersion: review['apiVersion'],
          kind: 'TokenReview',
          status: ok ? { authenticated: true, user: { username: 'hook-user', uid: 'h-1', groups: ['hookers'], extra: { team: ['blue'] } } } : { authenticated: false, error: 'unknown token' },
        });
      } else if (req.url === '/authz') {
        accessReviews.push(review);
        const attrs = (spec['resourceAttributes'] ?? {}) as Record<string, unknown>;
        const status =
          spec['user'] === 'hook-user' && attrs['resource'] === 'configmaps' && attrs['verb'] === 'get'
            ? { allowed: true, reason: 'hook says yes' }
            : spec['user'] === 'denied-user'
              ? { allowed: false, denied: true, reason: 'hook says no' }
              : { allowed: false };
        json(res, 200, { apiVersion: review['apiVersion'], kind: 'SubjectAccessReview', status });
      } else json(res, 404, {});
    });

    const file = (name: string, text: string) => {
      const p = join(dir, name);
      writeFileSync(p, text);
      return p;
    };
    const policy = [
      { apiVersion: 'abac.authorization.kubernetes.io/v1beta1', kind: 'Policy', spec: { user: 'abac-reader', namespace: '*', resource: 'pods', apiGroup: '*', readonly: true } },
      { apiVersion: 'abac.authorization.kubernetes.io/v1beta1', kind: 'Policy', spec: { group: '*', nonResourcePath: '/abac/*', readonly: true } },
    ]
      .map((p) => JSON.stringify(p))
      .join('\n');
    s = await startAuthTestServer([
      `--runtime-config=${AUTHN}/v1beta1=true`,
      `--oidc-issuer-url=${issuer.url}`,
      '--oidc-client-id=orch-test',
      '--oidc-groups-claim=groups',
      '--oidc-groups-prefix=oidc:',
      '--oidc-required-claim=hd=example.com',
      `--oidc-ca-file=${file('oidc-ca.crt', ca.certPem)}`,
      `--authentication-token-webhook-config-file=${file('authn.kubeconfig', webhookKubeconfig(`${hooks.url}/authn`, ca))}`,
      '--authentication-token-webhook-version=v1',
      `--authorization-webhook-config-file=${file('authz.kubeconfig', webhookKubeconfig(`${hooks.url}/authz`, ca))}`,
      '--authorization-webhook-version=v1',
      '--authorization-mode=Node,RBAC,ABAC,Webhook',
      `--authorization-policy-file=${file('abac.jsonl', policy)}`,
      `--requestheader-client-ca-file=${file('proxy-ca.crt', proxyCA.certPem)}`,
      '--requestheader-username-headers=X-Remote-User',
      '--requestheader-group-headers=X-Remote-Group',
      '--requestheader-extra-headers-prefix=X-Remote-Extra-',
      '--requestheader-allowed-names=front-proxy',
    ]);
  });

  after(async () => {
    await s?.stop();
    await issuer?.close();
    await hooks?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const idToken = (claims: Record<string, unknown>, opts: { key?: SigningKey; kid?: string; aud?: string; exp?: number } = {}) =>
    new SignJWT({ hd: 'example.com', groups: ['devs', 'ops'], ...claims })
      .setProtectedHeader({ alg: 'RS256', kid: opts.kid ?? 'k1' })
      .setIssuer(issuer.url)
      .setSubject('alice-sub')
      .setAudience(opts.aud ?? 'orch-test')
      .setIssuedAt()
      .setExpirationTime(opts.exp ?? Math.floor(Date.now() / 1000) + 600)
      .sign(opts.key ?? signingKey);

  describe('OpenID Connect', () => {
    it('accepts an ID token from the issuer, prefixing names as the flags say', async () => {
      const r = await whoami({ token: await idToken({}) });
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(userInfo(r), { username: `${issuer.url}#alice-sub`, groups: ['oidc:devs', 'oidc:ops', 'system:authenticated'] });
    });

    it('never asks the issuer per request', async () => {
      const before = issuerHits;
      assert.ok(before >= 2, 'discovery and keys were fetched at start');
      for (let i = 0; i < 5; i++) assert.equal((await whoami({ token: await idToken({}) })).status, 201);
      assert.equal(issuerHits, before);
    });

    it('rejects expired tokens, other audiences, missing required claims and unknown keys with 401', async () => {
      const now = Math.floor(Date.now() / 1000);
      const bad = {
        expired: await idToken({}, { exp: now - 600 }),
        audience: await idToken({}, { aud: 'someone-else' }),
        requiredClaim: await idToken({ hd: 'evil.com' }),
        otherKey: await idToken({}, { key: otherKey }),
        unknownKid: await idToken({}, { key: otherKey, kid: 'k9' }),
      };
      for (const [what, token] of Object.entries(bad)) {
        const r = await whoami({ token });
        assert.equal(r.status, 401, what);
        assert.equal(r.json['message'], 'Unauthorized');
      }
    });
  });

  describe('token webhook', () => {
    it('authenticates through the webhook with a v1 TokenReview, and caches the answer', async () => {
      const before = tokenReviews.length;
      const r = await whoami({ token: 'webhook-good-token' });
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(userInfo(r), { username: 'hook-user', uid: 'h-1', groups: ['hookers', 'system:authenticated'], extra: { team: ['blue'] } });
      const sent = tokenReviews.at(-1)!;
      assert.equal(sent['apiVersion'], `${AUTHN}/v1`);
      assert.equal(sent['kind'], 'TokenReview');
      await whoami({ token: 'webhook-good-token' });
      assert.equal(tokenReviews.length, before + 1, 'the second request is answered from the cache');
    });

    it('answers 401 when the webhook does not authenticate', async () => {
      const r = await whoami({ token: 'webhook-bad-token' });
      assert.equal(r.status, 401);
      assert.ok(!r.text.includes('webhook-bad-token'));
      assert.ok(!r.text.includes('unknown token'));
    });
  });

  describe('authorization webhook and ABAC', () => {
    it('allows what the webhook allows, with a v1 SubjectAccessReview', async () => {
      const r = await s.request('GET', '/api/v1/namespaces/default/configmaps/x', { token: 'webhook-good-token' });
      assert.equal(r.status, 404, r.text);
      const sent = accessReviews.at(-1)!;
      assert.equal(sent['apiVersion'], 'authorization.orch.io/v1');
      assert.deepEqual(sent['spec'], {
        user: 'hook-user',
        groups: ['hookers', 'system:authenticated'],
        uid: 'h-1',
        extra: { team: ['blue'] },
        resourceAttributes: { namespace: 'default', verb: 'get', group: '', version: 'v1', resource: 'configmaps', subresource: '', name: 'x' },
      });
      const list = await s.request('GET', '/api/v1/namespaces/default/configmaps', { token: 'webhook-good-token' });
      assert.equal(list.status, 403);
    });

    it('stops at a webhook denial with its reason', async () => {
      const denied = await s.request('GET', '/api/v1/namespaces/default/configmaps/x', { headers: { 'X-Remote-User': 'denied-user' }, cert: await issueCert(proxyCA, 'front-proxy') });
      assert.equal(denied.status, 403);
      assert.equal(denied.json['message'], 'configmaps "x" is forbidden: User "denied-user" cannot get resource "configmaps" in API group "" in the namespace "default": hook says no');
    });

    it('applies ABAC policies: read-only grants, and wildcards that leave anonymous out', async () => {
      const reader = await s.user('abac-reader');
      assert.equal((await s.request('GET', '/api/v1/namespaces/default/pods', reader)).status, 200);
      assert.equal((await s.request('DELETE', '/api/v1/namespaces/default/pods/x', reader)).status, 403);
      assert.equal((await s.request('GET', '/api/v1/namespaces/default/secrets', reader)).status, 403);
      assert.notEqual((await s.request('GET', '/abac/thing', reader)).status, 403);
      assert.equal((await s.request('GET', '/abac/thing', {})).status, 403);
    });
  });

  describe('authenticating proxy', () => {
    it('trusts identity headers from an allowed proxy certificate', async () => {
      const proxy = await issueCert(proxyCA, 'front-proxy');
      const r = await whoami({ cert: proxy, headers: { 'X-Remote-User': 'pat', 'X-Remote-Group': 'g1', 'X-Remote-Extra-Acme.com%2Fproject': 'p1' } });
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(userInfo(r), { username: 'pat', groups: ['g1', 'system:authenticated'], extra: { 'acme.com/project': ['p1'] } });
    });

    it('ignores the headers without a proxy certificate, or with one of a name not allowed', async () => {
      const anonymous = await whoami({ headers: { 'X-Remote-User': 'pat' } });
      assert.equal(anonymous.status, 403);
      assert.match(String(anonymous.json['message']), /User "system:anonymous"/);
      const otherName = await whoami({ cert: await issueCert(proxyCA, 'other-proxy'), headers: { 'X-Remote-User': 'pat' } });
      assert.equal(otherName.status, 401);
      const client = await s.user('bob');
      const own = await whoami({ ...client, headers: { 'X-Remote-User': 'pat' } });
      assert.equal(own.status, 201);
      assert.equal((userInfo(own) as Record<string, unknown>)['username'], 'bob');
    });
  });

  it('never writes tokens into its logs', () => {
    const all = s.logs.join('\n');
    assert.ok(!all.includes('webhook-good-token') && !all.includes('webhook-bad-token'));
  });
});
