import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeStorageConformance } from '../testing/storage-conformance.js';
import { MemoryStorage } from './memory.js';
import { SqliteStorage } from './sqlite.js';

describeStorageConformance('memory', {
  durable: false,
  async open(opts = {}) {
    const storage = new MemoryStorage(opts);
    return { storage, dispose: () => storage.close() };
  },
});

describeStorageConformance('sqlite', {
  durable: true,
  async open(opts = {}) {
    const dataDir = mkdtempSync(join(tmpdir(), 'orch-storage-'));
    let storage = await SqliteStorage.open({ dataDir, ...opts });
    return {
      storage,
      async reopen() {
        await storage.close();
        storage = await SqliteStorage.open({ dataDir, ...opts });
        return storage;
      },
      async dispose() {
        await storage.close();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  },
});
