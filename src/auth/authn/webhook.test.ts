import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { WebhookTokenAuthenticator } from './webhook.js';
import { WebhookAuthorizer } from '../authz/webhook.js';
import { res } from '../../testing/auth-attrs.js';

function fakeHook(answer: (body: Record<string, unknown>) => Record<string, unknown>) {
  const sent: Record<string, unknown>[] = [];
  return {
    sent,
    post: async (body: unknown) => {
      sent.push(body as Record<string, unknown>);
      return answer(body as Record<string, unknown>);
    },
  };
}

const user = { username: 'u', uid: 'id', groups: ['g'] };

describe('token webhook audiences', () => {
  it('keeps __proto__ and constructor keys of the answer\'s extra as ordinary keys', async () => {
    const answer = JSON.parse('{"status":{"authenticated":true,"user":{"username":"u","extra":{"__proto__":["x"],"constructor":["c"]}}}}') as Record<string, unknown>;
    const auth = new WebhookTokenAuthenticator(fakeHook(() => answer), 'v1', 60_000, () => ['api']);
    const r = await auth.authenticateToken('t', []);
    assert.equal(Object.getPrototypeOf(r?.user.extra), Object.prototype);
    assert.deepEqual(Object.entries(r?.user.extra ?? {}), [
      ['__proto__', ['x']],
      ['constructor', ['c']],
    ]);
    assert.equal(({} as Record<string, unknown>)['x'], undefined);
  });

  it('sends the wanted audiences and intersects them with the answer', async () => {
    const hook = fakeHook(() => ({ status: { authenticated: true, user, audiences: ['b', 'c'] } }));
    const auth = new WebhookTokenAuthenticator(hook, 'v1beta1', 60_000, () => ['api']);
    const r = await auth.authenticateToken('t', ['a', 'b']);
    assert.deepEqual(r?.audiences, ['b']);
    assert.deepEqual(hook.sent[0], { apiVersion: 'authentication.orch.io/v1beta1', kind: 'TokenReview', spec: { token: 't', audiences: ['a', 'b'] } });
  });

  it('treats an answer without audiences as valid for the server audiences only', async () => {
    const hook = fakeHook(() => ({ status: { authenticated: true, user } }));
    const auth = new WebhookTokenAuthenticator(hook, 'v1', 60_000, () => ['api']);
    assert.deepEqual((await auth.authenticateToken('t', ['api']))?.audiences, ['api']);
    assert.equal(await auth.authenticateToken('t', ['elsewhere']), null);
  });

  it('rejects answers without a username, and caches by token and audiences', async () => {
    const hook = fakeHook((b) => ({ status: (b['spec'] as { token: string }).token === 'empty' ? { authenticated: true, user: {} } : { authenticated: true, user } }));
    const auth = new WebhookTokenAuthenticator(hook, 'v1', 60_000, () => ['api']);
    assert.equal(await auth.authenticateToken('empty', ['api']), null);
    await auth.authenticateToken('t', ['api']);
    await auth.authenticateToken('t', ['api']);
    assert.equal(hook.sent.length, 2);
    const uncached = new WebhookTokenAuthenticator(hook, 'v1', 0, () => ['api']);
    await uncached.authenticateToken('t', ['api']);
    await uncached.authenticateToken('t', ['api']);
    assert.equal(hook.sent.length, 4);
  });
});

describe('authorization webhook', () => {
  it('maps allowed, denied and no opinion, caching each for its own time', async () => {
    const hook = fakeHook((b) => {
      const verb = ((b['spec'] as Record<string, unknown>)['resourceAttributes'] as Record<string, unknown>)['verb'];
      return { status: verb === 'get' ? { allowed: true } : verb === 'delete' ? { allowed: false, denied: true, reason: 'never' } : { allowed: false } };
    });
    const authz = new WebhookAuthorizer(hook, { version: 'v1', authorizedTtlMs: 60_000, unauthorizedTtlMs: 0 });
    const who = { username: 'u', groups: [] };
    assert.equal((await authz.authorize(res(who, 'get', '', 'pods', 'ns', 'p'))).decision, 'Allow');
    assert.deepEqual(await authz.authorize(res(who, 'delete', '', 'pods', 'ns', 'p')), { decision: 'Deny', reason: 'never' });
    assert.equal((await authz.authorize(res(who, 'list', '', 'pods', 'ns'))).decision, 'NoOpinion');
    await authz.authorize(res(who, 'get', '', 'pods', 'ns', 'p'));
    await authz.authorize(res(who, 'delete', '', 'pods', 'ns', 'p'));
    assert.equal(hook.sent.length, 4, 'allowed answers cached, others not (ttl 0)');
  });

  it('is no opinion when the webhook fails', async () => {
    const authz = new WebhookAuthorizer({ post: async () => Promise.reject(new Error('connection refused')) }, { version: 'v1', authorizedTtlMs: 1, unauthorizedTtlMs: 1 });
    assert.equal((await authz.authorize(res({ username: 'u', groups: [] }, 'get', '', 'pods'))).decision, 'NoOpinion');
  });
});
