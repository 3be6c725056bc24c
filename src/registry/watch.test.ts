import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, WatchEvent } from '../apimachinery/types.js';
import { MemoryStorage } from '../storage/index.js';
import type { GenericStore } from './store.js';
import { buildResourceTable, type DefaultResourceTable } from './table.js';
import { TEST_GROUP, requestContext, widgetDefinition } from './testing.js';

let storage: MemoryStorage;
let table: DefaultResourceTable;
let widgets: GenericStore;
const ctx = requestContext();

before(() => {
  storage = new MemoryStorage();
  // Periodic bookmarks far apart, so that only the one before the timeout can show up.
  table = buildResourceTable([widgetDefinition()], storage, { waitTimeoutMs: 200, cacherOptions: { bookmarkIntervalMs: 600_000 } });
  widgets = table.lookup({ group: TEST_GROUP, version: 'v1' }, 'widgets') as GenericStore;
});

after(async () => {
  await table.stop();
  await storage.close();
});

function widget(name: string): KubeObject {
  return { apiVersion: `${TEST_GROUP}/v1`, kind: 'Widget', metadata: { name }, spec: { size: 1 } };
}

test('a watch that asked for bookmarks gets one 2 seconds before its timeout, at the newest revision', async () => {
  await widgets.create(ctx, 'mine', widget('a'), { dryRun: false });
  const rv = (await widgets.list(ctx, 'mine', {})).metadata.resourceVersion!;
  const stream = await widgets.watch(ctx, 'mine', { resourceVersion: rv, allowWatchBookmarks: true, timeoutSeconds: 2.4 });
  // A change elsewhere moves the revision without an event for this watcher.
  const other = await widgets.create(ctx, 'other', widget('b'), { dryRun: false });
  const events: WatchEvent[] = [];
  for await (const ev of stream) {
    events.push(ev);
    if (events.length === 1) break;
  }
  assert.equal(events[0]?.type, 'BOOKMARK');
  assert.equal(events[0]?.object.metadata?.resourceVersion, other.metadata?.resourceVersion);
});

test('a short watch or one without bookmarks gets no early bookmark', async () => {
  const rv = (await widgets.list(ctx, 'mine', {})).metadata.resourceVersion!;
  const quiet = await widgets.watch(ctx, 'mine', { resourceVersion: rv, allowWatchBookmarks: false, timeoutSeconds: 2.2 });
  const seen: string[] = [];
  for await (const ev of quiet) seen.push(ev.type);
  assert.deepEqual(seen, []);
});
