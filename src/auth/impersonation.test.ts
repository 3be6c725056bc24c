import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { UserInfo } from '../apimachinery/types.js';
import { impersonate, splitServiceAccountUsername } from './impersonation.js';
import type { AuthorizationAttributes, Authorizer } from './types.js';

const caller: UserInfo = { username: 'op', groups: ['system:authenticated'] };

function recording(allow: (a: AuthorizationAttributes) => boolean): Authorizer & { seen: AuthorizationAttributes[] } {
  const seen: AuthorizationAttributes[] = [];
  return {
    seen,
    authorize: async (a) => {
      seen.push(a);
      return allow(a) ? { decision: 'Allow', reason: '' } : { decision: 'NoOpinion', reason: '' };
    },
  };
}

describe('impersonation', () => {
  it('treats __proto__, constructor and prototype extra keys as any other key', async () => {
    const authz = recording(() => true);
    const headers = { 'impersonate-user': 'jane', 'impersonate-extra-__proto__': ['x', 'y'], 'impersonate-extra-constructor': 'c', 'impersonate-extra-prototype': 'p', 'impersonate-extra-%5F%5Fproto%5F%5F': 'z' };
    const user = await impersonate(headers, caller, authz);
    assert.equal(({} as Record<string, unknown>)['x'], undefined);
    assert.equal(Object.getPrototypeOf({}), Object.prototype);
    assert.equal(Object.getPrototypeOf(user.extra), Object.prototype);
    assert.deepEqual(Object.entries(user.extra ?? {}), [
      ['__proto__', ['x', 'y', 'z']],
      ['constructor', ['c']],
      ['prototype', ['p']],
    ]);
    const extras = authz.seen.filter((a) => a.resource === 'userextras').map((a) => `${a.subresource}=${a.name}`);
    assert.deepEqual(extras, ['__proto__=x', '__proto__=y', '__proto__=z', 'constructor=c', 'prototype=p']);
  });

  it('keeps repeated group and extra values apart when the server passes them apart', async () => {
    const user = await impersonate({ 'impersonate-user': 'jane', 'impersonate-group': ['a, b', 'c'], 'impersonate-extra-scopes': ['read, write', 'x'] }, caller, recording(() => true));
    assert.deepEqual(user.groups, ['a, b', 'c', 'system:authenticated']);
    assert.deepEqual(user.extra, { scopes: ['read, write', 'x'] });
  });

  it('passes the caller through without impersonation headers', async () => {
    assert.equal(await impersonate({ accept: 'x' }, caller, recording(() => false)), caller);
  });

  it('checks every requested value with the verb impersonate', async () => {
    const authz = recording(() => true);
    const user = await impersonate(
      { 'impersonate-user': 'jane', 'impersonate-group': ['a', 'b'], 'impersonate-extra-scopes': 'read, write', 'impersonate-extra-acme.com%2fteam': 'x', 'impersonate-uid': 'u-1' },
      caller,
      authz,
    );
    assert.deepEqual(user, { username: 'jane', uid: 'u-1', groups: ['a', 'b', 'system:authenticated'], extra: { scopes: ['read', 'write'], 'acme.com/team': ['x'] } });
    const checks = authz.seen.map((a) => `${a.verb} ${a.apiGroup}/${a.resource}${a.subresource ? `/${a.subresource}` : ''} ${a.name}`);
    assert.deepEqual(checks.sort(), [
      'impersonate /groups a',
      'impersonate /groups b',
      'impersonate /users jane',
      'impersonate authentication.orch.io/uids u-1',
      'impersonate authentication.orch.io/userextras/acme.com/team x',
      'impersonate authentication.orch.io/userextras/scopes read',
      'impersonate authentication.orch.io/userextras/scopes write',
    ]);
  });

  it('impersonates service accounts with their groups, checked in their namespace', async () => {
    const authz = recording(() => true);
    const user = await impersonate({ 'impersonate-user': 'system:serviceaccount:ns1:robot' }, caller, authz);
    assert.deepEqual(user.groups, ['system:serviceaccounts', 'system:serviceaccounts:ns1', 'system:authenticated']);
    assert.equal(authz.seen[0]!.resource, 'serviceaccounts');
    assert.equal(authz.seen[0]!.namespace, 'ns1');
    assert.equal(authz.seen[0]!.name, 'robot');
  });

  it('respects resource names: one refused value refuses the request', async () => {
    const authz = recording((a) => a.resource === 'users' || a.name === 'a');
    await assert.rejects(impersonate({ 'impersonate-user': 'jane', 'impersonate-group': ['a', 'b'] }, caller, authz), (e: Error) => {
      assert.equal(e.message, 'groups "b" is forbidden: User "op" cannot impersonate resource "groups" in API group "" at the cluster scope');
      return true;
    });
  });

  it('keeps anonymous unauthenticated and needs a user for groups, extras and uid', async () => {
    const anon = await impersonate({ 'impersonate-user': 'system:anonymous' }, caller, recording(() => true));
    assert.deepEqual(anon.groups, ['system:unauthenticated']);
    await assert.rejects(impersonate({ 'impersonate-group': 'a' }, caller, recording(() => true)), (e: Error & { status?: { code: number } }) => e.status?.code === 400 && /without impersonating a user/.test(e.message));
  });

  it('splits service account names', () => {
    assert.deepEqual(splitServiceAccountUsername('system:serviceaccount:a:b'), { namespace: 'a', name: 'b' });
    assert.equal(splitServiceAccountUsername('system:serviceaccount:a'), undefined);
    assert.equal(splitServiceAccountUsername('alice'), undefined);
  });
});
