// A GET of the most recent object is read from the watch cache on SQLite: it must still see
// every write acknowledged before it, whoever made it and under whatever prefix.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { KubeObject } from '../apimachinery/types.js';
import { SqliteStorage } from '../storage/sqlite.js';
import { TEST_GROUP, gizmoDefinition, requestContext, widgetDefinition } from '../testing/registry.js';
import type { GenericStore } from './store.js';
import { buildResourceTable } from './table.js';

const noDry = { dryRun: false };

test('a GET after an acknowledged write sees it, on SQLite, with writes of other kinds in between', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'orch-consistent-get-'));
  const storage = await SqliteStorage.open({ dataDir });
  const table = buildResourceTable([widgetDefinition(), gizmoDefinition()], storage, { waitTimeoutMs: 2000 });
  const widgets = table.lookup({ group: TEST_GROUP, version: 'v1' }, 'widgets') as GenericStore;
  const gizmos = table.lookup({ group: TEST_GROUP, version: 'v1' }, 'gizmos') as GenericStore;
  const ctx = requestContext();
  try {
    const created = await widgets.create(ctx, 'ns', { metadata: { name: 'w' }, spec: { size: 0 } } as KubeObject, noDry);
    let rv = created.metadata?.resourceVersion;
    // Several writers at once: each checks its own write, then reads the other kind's.
    await Promise.all(
      Array.from({ length: 4 }, async (_, writer) => {
        for (let i = 0; i < 15; i++) {
          const g = await gizmos.create(ctx, '', { metadata: { name: `g-${writer}-${i}` }, spec: {} } as KubeObject, noDry);
          const got = await gizmos.get(ctx, '', `g-${writer}-${i}`, {});
          assert.equal(got.metadata?.resourceVersion, g.metadata?.resourceVersion);
          const answer = await widgets.getAnswer(ctx, 'ns', 'w', {});
          assert.ok(answer.shared, 'answered from the watch cache');
        }
      }),
    );
    for (let i = 1; i <= 20; i++) {
      const updated = await widgets.update(ctx, 'ns', 'w', (cur) => ({ ...cur!, spec: { size: i } }), noDry);
      rv = updated.object.metadata?.resourceVersion;
      const got = await widgets.get(ctx, 'ns', 'w', {});
      assert.equal(got.metadata?.resourceVersion, rv);
      assert.deepEqual((got.spec as { size: number }).size, i);
    }
  } finally {
    await table.stop();
    await storage.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
