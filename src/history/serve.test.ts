import assert from 'node:assert/strict';
import { it } from 'node:test';
import { forbidden } from '../apimachinery/errors.js';
import type { KubeObject } from '../apimachinery/types.js';
import type { RequestContext, WriteRecord } from '../rest/index.js';
import { setFlavor } from '../naming/index.js';
import { RevisionsStore, revisionsDefinition } from './serve.js';
import { HistoryStore } from './store.js';

function write(name: string, uid: string, rv: number): WriteRecord {
  return {
    group: '',
    resource: 'secrets',
    apiVersion: 'v1',
    kind: 'Secret',
    verb: 'update',
    user: { username: 'w', groups: [] },
    object: { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: 'ns', uid, resourceVersion: String(rv) }, data: { k: String(rv) } },
  };
}

it('watches kept and new revisions live, each only where get is allowed, until aborted', async () => {
  setFlavor('orch');
  const history = new HistoryStore({ retention: { maxCount: 10 } });
  // "alice" may get the secret "open" only.
  const store = new RevisionsStore(revisionsDefinition(), history, async (user, t) => (user.username === 'alice' && t.name === 'open' ? undefined : forbidden({ group: '', resource: t.resource }, t.name, 'no')));
  history.record(write('open', 'u1', 1));
  history.record(write('closed', 'u2', 2));
  const ac = new AbortController();
  const ctx: RequestContext = { user: { username: 'alice', groups: [] }, signal: ac.signal, warnings: [] };
  const it = (await store.watch(ctx, 'ns', { fieldSelector: 'target.resource=secrets' }))[Symbol.asyncIterator]();
  const next = async (): Promise<KubeObject> => {
    const r = await it.next();
    assert.equal(r.done, false);
    return r.value.object;
  };
  assert.equal((await next()).resourceVersion, '1');
  // Live: recorded after the watch started; the closed one never reaches alice.
  const pending = next();
  history.record(write('closed', 'u2', 3));
  history.record(write('open', 'u1', 4));
  const live = await pending;
  assert.equal(live.resourceVersion, '4');
  assert.equal(live.revision, 2);
  assert.deepEqual((live.patch as unknown[]).length, 1);
  const ended = it.next();
  ac.abort();
  assert.equal((await ended).done, true);
});
