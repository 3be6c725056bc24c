import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { metaGroup } from '../naming/index.js';
import { builtinResourceDefinitions } from '../apis/definitions.js';
import { installComponentStatuses } from './componentstatus.js';
import { startTestServer, type TestServer } from '../testing/api-server.js';

let t: TestServer;
before(async () => {
  t = await startTestServer();
  // The built-in definitions declare which resource the component statuses serve, and its columns.
  installComponentStatuses(t.table, builtinResourceDefinitions(), [
    { name: 'good', check: async () => 'ok' },
    {
      name: 'bad',
      check: async () => {
        throw new Error('unreachable');
      },
    },
  ]);
});
after(async () => {
  await t.close();
});

it('lists component statuses with the columns kubectl prints', async () => {
  const r = await t.request('GET', '/api/v1/componentstatuses', { headers: { Accept: `application/json;as=Table;v=v1;g=${metaGroup()}` } });
  assert.equal(r.status, 200, r.body);
  const table = r.json();
  assert.deepEqual((table.columnDefinitions as { name: string }[]).map((c) => c.name), ['Name', 'Status', 'Message', 'Error']);
  assert.deepEqual((table.rows as { cells: unknown[] }[]).map((row) => row.cells), [
    ['good', 'Healthy', 'ok', ''],
    ['bad', 'Unhealthy', '', 'unreachable'],
  ]);
});

it('gets one component status, 404 for an unknown one, 405 for writes', async () => {
  const good = await t.request('GET', '/api/v1/componentstatuses/good');
  assert.deepEqual(good.json().conditions, [{ type: 'Healthy', status: 'True', message: 'ok' }]);
  assert.equal((await t.request('GET', '/api/v1/componentstatuses/none')).status, 404);
  assert.equal((await t.request('DELETE', '/api/v1/componentstatuses/good')).status, 405);
});
