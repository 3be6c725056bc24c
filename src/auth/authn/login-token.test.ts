// The console's login tokens: the minted identity, expiry on the clock, nothing else accepted.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../apimachinery/clock.js';
import { isApiError } from '../../apimachinery/errors.js';
import { LoginTokens } from './login-token.js';

describe('LoginTokens', () => {
  const admin = { username: 'admin', groups: ['system:masters', 'system:authenticated'] };

  it('authenticates a minted token as its user until it expires', async () => {
    const clock = new FakeClock(new Date('2026-01-01T00:00:00Z'));
    const tokens = new LoginTokens(clock);
    const { token, expiresAt } = tokens.mint(admin, 60_000);
    assert.match(token, /^[A-Za-z0-9_-]{43}$/, '256 bits, base64url');
    assert.equal(expiresAt.toISOString(), '2026-01-01T00:01:00.000Z');
    assert.deepEqual((await tokens.authenticateToken(token))?.user, admin);
    clock.step(59_999);
    assert.deepEqual((await tokens.authenticateToken(token))?.user, admin);
    clock.step(1);
    await assert.rejects(tokens.authenticateToken(token), (e: unknown) => isApiError(e) && e.code === 401);
    assert.equal(await tokens.authenticateToken(token), null, 'forgotten once expired');
  });

  it('knows only the tokens it minted, each different', async () => {
    const tokens = new LoginTokens(new FakeClock(new Date(0)));
    const a = tokens.mint(admin, 1000).token;
    const b = tokens.mint(admin, 1000).token;
    assert.notEqual(a, b);
    for (const t of ['', 'x', a.slice(0, -1), `${a} `, a.toUpperCase(), '__proto__']) assert.equal(await tokens.authenticateToken(t), null, t);
  });

  it('hands out copies of the identity', async () => {
    const tokens = new LoginTokens(new FakeClock(new Date(0)));
    const { token } = tokens.mint(admin, 1000);
    const first = await tokens.authenticateToken(token);
    first!.user.groups.push('tampered');
    assert.deepEqual((await tokens.authenticateToken(token))?.user.groups, admin.groups);
  });

  it('refuses a lifetime that is not positive', () => {
    const tokens = new LoginTokens(new FakeClock(new Date(0)));
    for (const ttl of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) assert.throws(() => tokens.mint(admin, ttl), /lifetime must be positive/);
  });
});
