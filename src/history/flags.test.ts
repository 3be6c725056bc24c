// `--history-retention` and the library's `historyRetention`: `0` serves no history, a bad value
// refuses the start naming the flag.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { checkOptions, optionFlags } from '../lib/options.js';
import { startAuthTestServer } from '../testing/server.js';

it('turns history off with 0: nothing recorded, the group not served', async () => {
  const s = await startAuthTestServer(['--history-retention=0']);
  try {
    assert.equal((await s.request('POST', '/api/v1/namespaces/default/configmaps', s.admin, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } })).status, 201);
    const apis = await s.request('GET', '/apis', s.admin);
    assert.ok(!(apis.json.groups as { name: string }[]).some((g) => g.name === 'history.orch.io'));
    assert.equal((await s.request('GET', '/apis/history.orch.io/v1/namespaces/default/revisions?fieldSelector=target.resource%3Dconfigmaps', s.admin)).status, 404);
  } finally {
    await s.stop();
  }
});

it('refuses a bad retention at start, naming the flag', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'orch-history-flags-'));
  try {
    for (const bad of ['forever', '-5', '1h,2h', '']) {
      await assert.rejects(startAuthTestServer([`--history-retention=${bad}`], { dataDir: dir }), /--history-retention: /, bad);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

it('checks the library option and passes it as the flag', () => {
  assert.throws(() => checkOptions({ historyRetention: 'soon' }), /option "historyRetention": "soon"/);
  assert.throws(() => checkOptions({ historyRetention: 5 }), /option "historyRetention" must be a string/);
  checkOptions({ historyRetention: '24h,100' });
  assert.ok(optionFlags({ historyRetention: '24h,100' }, '/tmp/x', 'abc').includes('--history-retention=24h,100'));
});
