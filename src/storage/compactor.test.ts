import assert from 'node:assert/strict';
import { it } from 'node:test';
import { startCompactor } from './compactor.js';
import { CompactedError } from './interface.js';
import { MemoryStorage } from './memory.js';
import { eventually } from '../testing/wait.js';

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

const compactedAt = async (storage: MemoryStorage, revision: number): Promise<boolean> =>
  storage.get('/k', { atRevision: revision }).then(
    () => false,
    (err: unknown) => err instanceof CompactedError,
  );

it('compacts to the revision the store had one history window ago', async () => {
  const storage = new MemoryStorage();
  let clock = 0;
  let ticks = 0;
  const compactor = startCompactor(storage, {
    intervalMs: 5,
    windowMs: 1000,
    now: () => {
      ticks++;
      return clock;
    },
  });
  try {
    await storage.create('/k', bytes('1'));
    await storage.update('/k', bytes('2'));
    await storage.update('/k', bytes('3')); // revision 3 is what the store holds at t=0
    await eventually(async () => ticks >= 2, 'a sample at t=0');
    clock = 600;
    await storage.update('/k', bytes('4'));
    await storage.update('/k', bytes('5'));
    const seen = ticks;
    await eventually(async () => ticks >= seen + 2, 'a sample at t=600');
    assert.equal(await compactedAt(storage, 1), false, 'nothing is older than the window yet');
    clock = 1300;
    await eventually(() => compactedAt(storage, 2), 'compaction up to revision 3');
    assert.equal(await compactedAt(storage, 3), false, 'revision 3 stays readable');
    assert.equal(await compactedAt(storage, 4), false);
    clock = 1700;
    await eventually(() => compactedAt(storage, 4), 'compaction up to revision 5');
    assert.equal(await compactedAt(storage, 5), false);
  } finally {
    compactor.stop();
    await storage.close();
  }
});

it('keeps going after a failed compaction', async () => {
  const storage = new MemoryStorage();
  await storage.create('/k', bytes('1'));
  await storage.close();
  const errors: unknown[] = [];
  const compactor = startCompactor(storage, { intervalMs: 5, windowMs: 0, onError: (err) => errors.push(err) });
  try {
    await eventually(async () => errors.length >= 2, 'two reported failures');
    assert.match(String(errors[0]), /closed/);
  } finally {
    compactor.stop();
  }
});
