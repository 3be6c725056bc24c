import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { MemoryStorage, SqliteStorage, StorageError, STORAGE_BACKEND_NAMES, createStorage, isStorageBackendName, listBackends } from './index.js';

it('creates the configured backend', async () => {
  const memory = await createStorage({ backend: 'memory' });
  assert.ok(memory instanceof MemoryStorage);
  await memory.close();
  const dataDir = mkdtempSync(join(tmpdir(), 'orch-create-'));
  try {
    const sqlite = await createStorage({ backend: 'sqlite', dataDir });
    assert.ok(sqlite instanceof SqliteStorage);
    await sqlite.close();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

it('explains the backends it cannot create', async () => {
  await assert.rejects(createStorage({ backend: 'sqlite' }), (err: unknown) => err instanceof StorageError && /data directory/.test(err.message));
  await assert.rejects(createStorage({ backend: 'etcd' }), /etcd storage backend needs at least one etcd server URL/);
  await assert.rejects(createStorage(JSON.parse('{"backend":"redis"}')), /unknown storage backend "redis"/);
});

it('knows a backend only by its own name, not by an inherited property', async () => {
  for (const name of ['toString', '__proto__', 'constructor', 'hasOwnProperty']) {
    assert.equal(isStorageBackendName(name), false, name);
    await assert.rejects(createStorage(JSON.parse(`{"backend":${JSON.stringify(name)}}`)), /unknown storage backend/);
  }
  assert.deepEqual(STORAGE_BACKEND_NAMES, ['memory', 'sqlite', 'etcd']);
  assert.equal(listBackends(), 'memory, sqlite or etcd');
});
