import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { TokenFileAuthenticator, parseCsvLine, parseTokenFile } from './token-file.js';
import { bootstrapIdentity } from './bootstrap-token.js';
import { oidcIdentity, parseRequiredClaims, validateOidcOptions, type OidcOptions } from './oidc.js';
import { BearerTokenAuthenticator, EXTRA_SPACE_WARNING, UnionAuthenticator, bearerToken, parseBearer } from './union.js';
import { secretEquals } from './secure-compare.js';

describe('static token file', () => {
  it('parses CSV with quoted group lists', () => {
    assert.deepEqual(parseCsvLine('t,u,1,"a,b"'), ['t', 'u', '1', 'a,b']);
    assert.deepEqual(parseCsvLine('t,"say ""hi""",1'), ['t', 'say "hi"', '1']);
    assert.throws(() => parseCsvLine('t,"open'), /unterminated/);
  });

  it('maps tokens to users and rejects short lines without showing the token', async () => {
    const auth = new TokenFileAuthenticator(parseTokenFile('tok-a,alice,1,"dev, ops"\n\ntok-b,bob,2\n'));
    assert.deepEqual((await auth.authenticateToken('tok-a'))?.user, { username: 'alice', uid: '1', groups: ['dev', 'ops'] });
    assert.deepEqual((await auth.authenticateToken('tok-b'))?.user, { username: 'bob', uid: '2', groups: [] });
    assert.equal(await auth.authenticateToken('tok-c'), null);
    assert.throws(() => parseTokenFile('secret-token,alice\n'), (e: Error) => /line 1: must have at least 3 columns/.test(e.message) && !e.message.includes('secret-token'));
  });

  it('compares secrets in constant time whatever their lengths', () => {
    assert.equal(secretEquals('abc', 'abc'), true);
    assert.equal(secretEquals('abc', 'abcd'), false);
  });
});

describe('bearer tokens and the union', () => {
  it('reads Authorization: Bearer case-insensitively', () => {
    assert.equal(bearerToken({ authorization: 'Bearer abc' }), 'abc');
    assert.equal(bearerToken({ authorization: ' bEaReR abc \t' }), 'abc');
    assert.equal(bearerToken({ authorization: ['Bearer first', 'Bearer second'] }), 'first');
    assert.equal(bearerToken({ authorization: 'Basic abc' }), undefined);
    assert.equal(bearerToken({}), undefined);
  });

  it('splits the header as kube-apiserver does: at single spaces, into at most three parts', () => {
    // The token is the second part: what follows another space is not part of it.
    assert.deepEqual(parseBearer({ authorization: 'Bearer a b' }), { token: 'a' });
    assert.deepEqual(parseBearer({ authorization: 'Bearer a\tb' }), { token: 'a\tb' });
    // An empty second part presents nothing (the request goes on as anonymous), with a
    // warning when a token follows the extra space.
    assert.deepEqual(parseBearer({ authorization: 'Bearer  abc' }), { warning: EXTRA_SPACE_WARNING });
    assert.deepEqual(parseBearer({ authorization: 'Bearer' }), {});
    assert.deepEqual(parseBearer({ authorization: 'Bearer ' }), {});
    assert.deepEqual(parseBearer({ authorization: 'Bearer\tabc' }), {});
    assert.deepEqual(parseBearer({ authorization: 'Bearer: abc' }), {});
    assert.deepEqual(parseBearer({ authorization: '\u00a0Bearer abc\u0085' }), { token: 'abc' });
  });

  it('answers 401 for Bearer with two words, and anonymous with a warning for an extra space', async () => {
    const union = new UnionAuthenticator([new BearerTokenAuthenticator([new TokenFileAuthenticator(parseTokenFile('good,u,1'))], () => ['api'])], true);
    await assert.rejects(union.authenticate({ headers: { authorization: 'Bearer bad good' }, clientCertificateChain: [] }), (e: Error) => e.message === 'Unauthorized');
    const first = await union.authenticate({ headers: { authorization: 'Bearer good bad' }, clientCertificateChain: [] });
    assert.equal(first?.user.username, 'u');
    const spaced = await union.authenticate({ headers: { authorization: 'Bearer  good' }, clientCertificateChain: [] });
    assert.deepEqual(spaced, { user: { username: 'system:anonymous', groups: ['system:unauthenticated'] }, warnings: [EXTRA_SPACE_WARNING] });
    assert.deepEqual(await union.authenticate({ headers: {}, clientCertificateChain: [] }), { user: { username: 'system:anonymous', groups: ['system:unauthenticated'] } });
  });

  it('fails a presented token nobody accepts even with anonymous on; the first success wins', async () => {
    const file = new TokenFileAuthenticator(parseTokenFile('good,alice,1\n'));
    const union = new UnionAuthenticator([new BearerTokenAuthenticator([file], () => ['api'])], true);
    await assert.rejects(union.authenticate({ headers: { authorization: 'Bearer bad' }, clientCertificateChain: [] }), (e: Error) => e.message === 'Unauthorized');
    const ok = await union.authenticate({ headers: { authorization: 'Bearer good' }, clientCertificateChain: [] });
    assert.deepEqual(ok?.user.groups, ['system:authenticated']);
  });
});

describe('bootstrap token secrets', () => {
  const b64 = (v: string) => Buffer.from(v).toString('base64');
  const secret = (data: Record<string, string>, type = 'bootstrap.orch.io/token') => ({
    metadata: { name: 'bootstrap-token-abcdef', namespace: 'orch-system' },
    type,
    data: Object.fromEntries(Object.entries({ 'token-id': 'abcdef', 'token-secret': '0123456789abcdef', 'usage-bootstrap-authentication': 'true', ...data }).map(([k, v]) => [k, b64(v)])),
  });
  const now = new Date('2026-01-01T00:00:00Z');

  it('grants system:bootstrap:<id> with the extra groups', () => {
    const r = bootstrapIdentity(secret({ 'auth-extra-groups': 'system:bootstrappers:a,system:bootstrappers:b' }), 'abcdef', '0123456789abcdef', now);
    assert.deepEqual(r?.user, { username: 'system:bootstrap:abcdef', groups: ['system:bootstrappers', 'system:bootstrappers:a', 'system:bootstrappers:b'] });
  });

  it('rejects wrong secrets, expired tokens, bad extra groups, other types and unusable tokens', () => {
    assert.equal(bootstrapIdentity(secret({}), 'abcdef', '0123456789abcdeX', now), null);
    assert.equal(bootstrapIdentity(secret({ expiration: '2025-12-31T23:59:59Z' }), 'abcdef', '0123456789abcdef', now), null);
    assert.notEqual(bootstrapIdentity(secret({ expiration: '2026-01-01T00:00:01Z' }), 'abcdef', '0123456789abcdef', now), null);
    assert.equal(bootstrapIdentity(secret({ expiration: 'tomorrow' }), 'abcdef', '0123456789abcdef', now), null);
    assert.equal(bootstrapIdentity(secret({ 'auth-extra-groups': 'system:masters' }), 'abcdef', '0123456789abcdef', now), null);
    assert.equal(bootstrapIdentity(secret({}, 'Opaque'), 'abcdef', '0123456789abcdef', now), null);
    assert.equal(bootstrapIdentity(secret({ 'usage-bootstrap-authentication': 'false' }), 'abcdef', '0123456789abcdef', now), null);
  });
});

describe('OIDC claims', () => {
  const base: OidcOptions = { issuerURL: 'https://issuer.example', clientID: 'c', usernameClaim: 'sub', requiredClaims: {}, signingAlgs: ['RS256'] };
  const claims = { iss: 'https://issuer.example', sub: 'u1', email: 'u1@example.com', groups: ['g1', 'g2'], hd: 'example.com' };

  // The username prefix table: default, email, explicit prefix, '-' disables.
  const table: [Partial<OidcOptions>, string][] = [
    [{}, 'https://issuer.example#u1'],
    [{ usernameClaim: 'email' }, 'u1@example.com'],
    [{ usernamePrefix: 'oidc:' }, 'oidc:u1'],
    [{ usernamePrefix: '-' }, 'u1'],
    [{ usernameClaim: 'email', usernamePrefix: 'mail:' }, 'mail:u1@example.com'],
  ];
  for (const [opts, want] of table) {
    it(`names the user ${want} with ${JSON.stringify(opts)}`, () => {
      assert.equal(oidcIdentity(claims, { ...base, ...opts }).user.username, want);
    });
  }

  it('prefixes groups, checks required claims and email verification', () => {
    assert.deepEqual(oidcIdentity(claims, { ...base, groupsClaim: 'groups', groupsPrefix: 'oidc:' }).user.groups, ['oidc:g1', 'oidc:g2']);
    assert.deepEqual(oidcIdentity({ ...claims, groups: 'solo' }, { ...base, groupsClaim: 'groups' }).user.groups, ['solo']);
    assert.throws(() => oidcIdentity({ ...claims, groups: [1] }, { ...base, groupsClaim: 'groups' }));
    assert.throws(() => oidcIdentity(claims, { ...base, requiredClaims: { hd: 'other.com' } }));
    assert.doesNotThrow(() => oidcIdentity(claims, { ...base, requiredClaims: parseRequiredClaims(['hd=example.com']) }));
    assert.throws(() => oidcIdentity({ ...claims, email_verified: false }, { ...base, usernameClaim: 'email' }), /not verified/);
    assert.throws(() => oidcIdentity({ iss: 'x' }, base), /claim sub not present/);
  });

  it('reads only the token\'s own claims, and keeps a required __proto__ or constructor claim', () => {
    // A missing claim named like an Object member is missing, not the inherited member.
    assert.deepEqual(oidcIdentity(claims, { ...base, groupsClaim: 'constructor' }).user.groups, []);
    assert.throws(() => oidcIdentity(claims, { ...base, usernameClaim: 'constructor' }), /claim constructor not present/);
    const withProto = JSON.parse('{"sub":"u1","__proto__":"p","constructor":["c"]}') as Record<string, unknown>;
    assert.equal(oidcIdentity(withProto, { ...base, usernameClaim: '__proto__', usernamePrefix: '-' }).user.username, 'p');
    assert.deepEqual(oidcIdentity(withProto, { ...base, groupsClaim: 'constructor' }).user.groups, ['c']);
    const required = parseRequiredClaims(['__proto__=p', 'constructor=x']);
    assert.deepEqual(Object.entries(required), [
      ['__proto__', 'p'],
      ['constructor', 'x'],
    ]);
    assert.throws(() => oidcIdentity(claims, { ...base, requiredClaims: parseRequiredClaims(['__proto__=p']) }), /required claim __proto__/);
    assert.doesNotThrow(() => oidcIdentity(withProto, { ...base, requiredClaims: parseRequiredClaims(['__proto__=p']) }));
    assert.equal(({} as Record<string, unknown>)['x'], undefined);
  });

  it('accepts only https issuers and needs a client id', () => {
    assert.throws(() => validateOidcOptions({ ...base, issuerURL: 'http://issuer.example' }), /https/);
    assert.throws(() => validateOidcOptions({ ...base, clientID: '' }), /oidc-client-id/);
    assert.throws(() => parseRequiredClaims(['novalue']), /key=value/);
  });
});
