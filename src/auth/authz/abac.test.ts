import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AbacAuthorizer, parseAbacPolicies } from './abac.js';
import { nonres, res } from '../../testing/auth-attrs.js';
import { subjectAccessReviewFor } from './webhook.js';

const line = (spec: Record<string, unknown>) => JSON.stringify({ apiVersion: 'abac.authorization.kubernetes.io/v1beta1', kind: 'Policy', spec });

describe('ABAC', () => {
  const policies = parseAbacPolicies(
    [
      '# comment',
      line({ user: 'alice', namespace: '*', resource: '*', apiGroup: '*' }),
      line({ user: 'bob', namespace: 'projectCaribou', resource: 'pods', apiGroup: '', readonly: true }),
      line({ group: 'system:authenticated', nonResourcePath: '/version' }),
      line({ user: '*', nonResourcePath: '/public/*', readonly: true }),
    ].join('\n'),
  );
  const abac = new AbacAuthorizer(policies);
  const alice = { username: 'alice', groups: ['system:authenticated'] };
  const bob = { username: 'bob', groups: ['system:authenticated'] };
  const anon = { username: 'system:anonymous', groups: ['system:unauthenticated'] };
  const cases: [Parameters<typeof abac.authorize>[0], boolean][] = [
    [res(alice, 'delete', 'apps', 'deployments', 'x', 'd'), true],
    [res(bob, 'get', '', 'pods', 'projectCaribou', 'p'), true],
    [res(bob, 'create', '', 'pods', 'projectCaribou'), false],
    [res(bob, 'get', '', 'pods', 'other', 'p'), false],
    [res(bob, 'get', 'apps', 'pods', 'projectCaribou', 'p'), false],
    [nonres(bob, 'get', '/version'), true],
    [nonres(anon, 'get', '/version'), false],
    [nonres(bob, 'get', '/public/a'), true],
    [nonres(anon, 'get', '/public/a'), false],
    [nonres(bob, 'post', '/public/a'), false],
  ];
  for (const [attrs, allowed] of cases) {
    it(`${allowed ? 'allows' : 'does not allow'} ${attrs.user.username} ${attrs.verb} ${attrs.resource || attrs.path}`, async () => {
      assert.equal((await abac.authorize(attrs)).decision, allowed ? 'Allow' : 'NoOpinion');
    });
  }

  it('reads only a spec\'s own fields of the right type', async () => {
    const [p] = parseAbacPolicies('{"kind":"Policy","spec":{"__proto__":{"user":"*","namespace":"*","resource":"*","apiGroup":"*"},"constructor":"x","user":"bob","namespace":"ns","resource":"pods","apiGroup":""}}');
    assert.deepEqual(p, { user: 'bob', apiGroup: '', resource: 'pods', namespace: 'ns' });
    assert.equal((await new AbacAuthorizer([p!]).authorize(res(alice, 'get', '', 'pods', 'ns', 'p'))).decision, 'NoOpinion');
    assert.throws(() => parseAbacPolicies(line({ user: 7 })), /line 1: spec.user must be a string/);
    assert.throws(() => parseAbacPolicies(line({ user: 'u', readonly: 'false' })), /line 1: spec.readonly must be a boolean/);
    assert.equal(({} as Record<string, unknown>)['user'], undefined);
  });

  it('names the bad line of a policy file', () => {
    assert.throws(() => parseAbacPolicies('{"kind":"Policy","spec":{}}\nnot json'), /line 2/);
  });

  it('writes v1beta1 SubjectAccessReviews with the old groups field', () => {
    const review = subjectAccessReviewFor(res(bob, 'get', '', 'pods', 'ns', 'p'), 'v1beta1');
    assert.deepEqual((review['spec'] as Record<string, unknown>)['group'], ['system:authenticated']);
    assert.equal(review['apiVersion'], 'authorization.orch.io/v1beta1');
  });
});
