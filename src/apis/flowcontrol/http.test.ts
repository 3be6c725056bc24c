// PriorityLevelConfiguration answers over HTTPS: each served version's refusal as
// kube-apiserver 1.27 words it, and nothing stored.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startAuthTestServer, type AuthTestServer } from '../../testing/server.js';

const G = 'flowcontrol.apiserver.orch.io';

describe('PriorityLevelConfiguration over HTTPS', () => {
  let s: AuthTestServer;
  before(async () => {
    s = await startAuthTestServer();
  });
  after(() => s.stop());

  const t = {
    request: async (method: string, path: string, opts: { body?: unknown } = {}) => {
      const r = await s.request(method, path, s.admin, opts.body);
      return { status: r.status, body: r.text, json: () => r.json };
    },
  };
  const create = (version: string, spec: Record<string, unknown>) =>
    t.request('POST', `/apis/${G}/${version}/prioritylevelconfigurations`, { body: { apiVersion: `${G}/${version}`, kind: 'PriorityLevelConfiguration', metadata: { name: 'bad' }, spec } });

  it('refuses bad levels with 422 and kube’s message, naming the shares as each version does', async () => {
    const v3 = await create('v1beta3', { type: 'Limited', limited: { nominalConcurrencyShares: -4, lendablePercent: 150, limitResponse: { type: 'Queue', queuing: { queues: 4, handSize: 5 } } } });
    assert.equal(v3.status, 422, v3.body);
    assert.equal(v3.json().reason, 'Invalid');
    assert.equal(
      v3.json().message,
      `PriorityLevelConfiguration.${G} "bad" is invalid: [spec.limited.nominalConcurrencyShares: Invalid value: -4: must be positive, spec.limited.limitResponse.queuing.handSize: Invalid value: 5: should not be greater than queues (4), spec.limited.lendablePercent: Invalid value: 150: must be between 0 and 100, inclusive]`,
    );
    const v2 = await create('v1beta2', { type: 'Limited', limited: { assuredConcurrencyShares: -4, limitResponse: { type: 'Reject' } } });
    assert.equal(v2.status, 422, v2.body);
    assert.equal(v2.json().message, `PriorityLevelConfiguration.${G} "bad" is invalid: spec.limited.assuredConcurrencyShares: Invalid value: -4: must be positive`);
    const missing = await create('v1beta3', { type: 'Limited', limited: { limitResponse: { type: 'Queue' } } });
    assert.equal(missing.status, 422, missing.body);
    assert.equal(missing.json().message, `PriorityLevelConfiguration.${G} "bad" is invalid: spec.limited.limitResponse.queuing: Required value: must not be empty if limited.limitResponse.type is Limited`);
    assert.equal((await t.request('GET', `/apis/${G}/v1beta3/prioritylevelconfigurations/bad`)).status, 404);
  });

  it('keeps the mandatory catch-all level as it is', async () => {
    const r = await t.request('GET', `/apis/${G}/v1beta3/prioritylevelconfigurations/catch-all`);
    assert.equal(r.status, 200, r.body);
    const changed = { ...r.json(), spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1000, limitResponse: { type: 'Reject' } } } };
    const put = await t.request('PUT', `/apis/${G}/v1beta3/prioritylevelconfigurations/catch-all`, { body: changed });
    assert.equal(put.status, 422, put.body);
    assert.match(String(put.json().message), /spec of 'catch-all' must equal the fixed value$/);
  });
});
