import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, UserInfo } from '../../apimachinery/types.js';
import type { RESTStore, RequestContext } from '../../rest/index.js';
import type { AuthorizationAttributes } from '../types.js';
import { reviewStores } from './stores.js';

const seen: AuthorizationAttributes[] = [];
const stores = reviewStores({
  authorizer: {
    authorize: async (a) => {
      seen.push(a);
      if (a.verb === 'delete') return { decision: 'Deny', reason: 'no deleting' };
      return a.user.username === 'alice' ? { decision: 'Allow', reason: 'alice may' } : { decision: 'NoOpinion', reason: '' };
    },
  },
  rules: () => ({ resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['p'] }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/x'] }], incomplete: true, errors: ['partial'] }),
  reviewToken: async (token, audiences) => (token === 'good' ? { user: { username: 'tok', groups: ['g'] }, audiences: audiences.slice(0, 1) } : null),
  apiAudiences: () => ['https://api'],
});

function store(kind: string, version = 'v1'): RESTStore {
  const s = stores.find((x) => x.definition.kind === kind && x.definition.version === version);
  assert.ok(s, `${kind} ${version}`);
  return s;
}

const ctx = (user: UserInfo): RequestContext => ({ user, signal: new AbortController().signal, warnings: [] });
const alice: UserInfo = { username: 'alice', groups: ['system:authenticated'], extra: { scopes: ['a'] } };
const create = (kind: string, user: UserInfo, obj: KubeObject, ns = '', version = 'v1') => store(kind, version).create!(ctx(user), ns, obj, { dryRun: false });
const status = (o: KubeObject) => o['status'] as Record<string, unknown>;

describe('review APIs', () => {
  it('serves the expected group versions, create only', () => {
    const served = stores.map((s) => `${s.definition.group}/${s.definition.version}/${s.definition.resource}${s.definition.namespaced ? ' (namespaced)' : ''}`).sort();
    assert.deepEqual(served, [
      'authentication.orch.io/v1/tokenreviews',
      'authentication.orch.io/v1alpha1/selfsubjectreviews',
      'authentication.orch.io/v1beta1/selfsubjectreviews',
      'authorization.orch.io/v1/localsubjectaccessreviews (namespaced)',
      'authorization.orch.io/v1/selfsubjectaccessreviews',
      'authorization.orch.io/v1/selfsubjectrulesreviews',
      'authorization.orch.io/v1/subjectaccessreviews',
    ]);
    for (const s of stores) assert.deepEqual(s.definition.verbs, ['create']);
  });

  it('answers SelfSubjectAccessReview for the caller, with reason and denial', async () => {
    const out = await create('SelfSubjectAccessReview', alice, { spec: { resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'ns', group: '', name: 'p' } } });
    assert.deepEqual(status(out), { allowed: true, reason: 'alice may' });
    assert.equal(out.apiVersion, 'authorization.orch.io/v1');
    assert.equal(out.kind, 'SelfSubjectAccessReview');
    assert.deepEqual(seen.at(-1)!.user, alice);
    const denied = await create('SelfSubjectAccessReview', alice, { spec: { nonResourceAttributes: { verb: 'delete', path: '/x' } } });
    assert.deepEqual(status(denied), { allowed: false, denied: true, reason: 'no deleting' });
  });

  it('validates access reviews as Kubernetes does', async () => {
    await assert.rejects(create('SelfSubjectAccessReview', alice, { spec: {} }), (e: Error) => {
      assert.equal(e.message, 'SelfSubjectAccessReview.authorization.orch.io "" is invalid: spec.resourceAttributes: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified');
      return true;
    });
    await assert.rejects(create('SubjectAccessReview', alice, { spec: { resourceAttributes: { verb: 'get' } } }), /at least one of user or group must be specified/);
    await assert.rejects(create('SubjectAccessReview', alice, { metadata: { name: 'x' }, spec: { user: 'u', resourceAttributes: { verb: 'get' } } }), /metadata: Invalid value: .*must be empty/);
    await assert.rejects(create('LocalSubjectAccessReview', alice, { spec: { user: 'u', resourceAttributes: { verb: 'get', namespace: 'other' } } }, 'ns'), /spec.resourceAttributes.namespace: Invalid value: "other": must match metadata.namespace/);
    await assert.rejects(create('LocalSubjectAccessReview', alice, { spec: { user: 'u', nonResourceAttributes: { verb: 'get', path: '/' } } }, 'ns'), /disallowed on this kind of request/);
    await assert.rejects(create('LocalSubjectAccessReview', alice, { spec: { user: 'u', resourceAttributes: { verb: 'get' } } }, ''), (e: Error & { status?: { code: number } }) => e.status?.code === 400);
  });

  it('keeps __proto__, constructor and prototype keys of a SubjectAccessReview\'s extra as ordinary keys', async () => {
    const spec = JSON.parse('{"user":"alice","extra":{"__proto__":["x"],"constructor":["c"],"prototype":["p"]},"resourceAttributes":{"verb":"get","resource":"pods"}}') as Record<string, unknown>;
    const sar = await create('SubjectAccessReview', alice, { spec });
    assert.equal(status(sar)['allowed'], true);
    const extra = seen.at(-1)!.user.extra;
    assert.equal(Object.getPrototypeOf(extra), Object.prototype);
    assert.deepEqual(Object.entries(extra ?? {}), [
      ['__proto__', ['x']],
      ['constructor', ['c']],
      ['prototype', ['p']],
    ]);
    assert.equal(({} as Record<string, unknown>)['x'], undefined);
  });

  it('evaluates another user in SubjectAccessReview and LocalSubjectAccessReview', async () => {
    const sar = await create('SubjectAccessReview', { username: 'bob', groups: [] }, { spec: { user: 'alice', groups: ['x'], uid: 'u1', extra: { k: ['v'] }, resourceAttributes: { verb: 'get', resource: 'pods' } } });
    assert.equal(status(sar)['allowed'], true);
    assert.deepEqual(seen.at(-1)!.user, { username: 'alice', groups: ['x'], uid: 'u1', extra: { k: ['v'] } });
    const lsar = await create('LocalSubjectAccessReview', alice, { metadata: { namespace: 'ns' }, spec: { user: 'carol', resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'ns' } } }, 'ns');
    assert.deepEqual(status(lsar), { allowed: false });
    assert.equal(lsar.metadata?.namespace, 'ns');
  });

  it('lists rules in SelfSubjectRulesReview, marking incompleteness', async () => {
    const out = await create('SelfSubjectRulesReview', alice, { spec: { namespace: 'ns' } });
    assert.deepEqual(status(out), {
      resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['p'] }],
      nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/x'] }],
      incomplete: true,
      evaluationError: 'partial',
    });
  });

  it('reviews tokens with the server audiences by default, and reports failures without detail', async () => {
    const ok = await create('TokenReview', alice, { spec: { token: 'good' } });
    assert.deepEqual(status(ok), { authenticated: true, user: { username: 'tok', groups: ['g'] }, audiences: ['https://api'] });
    assert.equal(ok.apiVersion, 'authentication.orch.io/v1');
    const custom = await create('TokenReview', alice, { spec: { token: 'good', audiences: ['a', 'b'] } });
    assert.deepEqual(status(custom)['audiences'], ['a']);
    const bad = await create('TokenReview', alice, { spec: { token: 'bad-secret' } });
    assert.deepEqual(status(bad), { user: {}, error: 'invalid bearer token' });
    await assert.rejects(create('TokenReview', alice, { spec: {} }), (e: Error) => e.message === 'token is required for TokenReview in authentication');
  });

  it('returns the caller in SelfSubjectReview in every served version', async () => {
    for (const version of ['v1beta1', 'v1alpha1']) {
      const out = await create('SelfSubjectReview', alice, {}, '', version);
      assert.equal(out.apiVersion, `authentication.orch.io/${version}`);
      assert.deepEqual(status(out), { userInfo: { username: 'alice', groups: ['system:authenticated'], extra: { scopes: ['a'] } } });
      assert.deepEqual(out.metadata, { creationTimestamp: null });
    }
  });
});
