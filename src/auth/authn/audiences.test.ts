import assert from 'node:assert/strict';
import { test } from 'node:test';
import { audienceAgnostic, intersectAudiences } from './audiences.js';
import type { TokenAuthenticator } from './union.js';

const API = 'https://api.example';
const known: TokenAuthenticator = {
  authenticateToken: async (token) => (token === 'good' ? { user: { username: 'u', groups: [] } } : null),
};

test('an audience-agnostic token is good for the server\'s own audiences only, and says which', async () => {
  const calls: string[][] = [];
  const counted: TokenAuthenticator = { authenticateToken: (t, a) => (calls.push(a), known.authenticateToken(t, a)) };
  const a = audienceAgnostic(counted, () => [API, 'https://other-api']);
  assert.equal(await a.authenticateToken('good', ['https://vault.example.com']), null);
  assert.deepEqual(calls, [], 'the token is not even looked at for a foreign audience');
  assert.deepEqual(await a.authenticateToken('good', ['https://vault.example.com', API]), { user: { username: 'u', groups: [] }, audiences: [API] });
  assert.equal(await a.authenticateToken('bad', [API]), null);
  // No audiences asked for, or none of its own: the delegate answers as it is.
  assert.deepEqual(await a.authenticateToken('good', []), { user: { username: 'u', groups: [] } });
  assert.deepEqual(await audienceAgnostic(known, () => []).authenticateToken('good', ['https://vault.example.com']), { user: { username: 'u', groups: [] } });
});

test('intersectAudiences keeps the requested order', () => {
  assert.deepEqual(intersectAudiences(['c', 'a', 'x', 'b'], ['a', 'b', 'c']), ['c', 'a', 'b']);
  assert.deepEqual(intersectAudiences(['__proto__', 'constructor'], ['a']), []);
});
