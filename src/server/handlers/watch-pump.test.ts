// The watch pump: events from a cursor to a response, coalesced per turn, paused by a full
// buffer, ended by the cursor, the signal or a failure.
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { test } from 'node:test';
import type { KubeObject } from '../../apimachinery/types.js';
import type { StoreWatch, StoreWatchEvent, WatchCursor } from '../../rest/index.js';
import { iteratorCursor, onShutdown, WatchPump, type WatchResponse } from './watch-pump.js';
import { watchStream } from '../../registry/watch.js';
import { MemoryStorage, createCacher } from '../../storage/index.js';

/** A cursor over a queue the test fills; `push` wakes a waiting pump. */
class QueueCursor implements WatchCursor {
  private queue: StoreWatchEvent[] = [];
  private wake: (() => void) | undefined;
  ended = false;
  closed = false;
  waits = 0;

  push(...events: StoreWatchEvent[]): void {
    this.queue.push(...events);
    this.notify();
  }

  end(): void {
    this.ended = true;
    this.notify();
  }

  poll(): StoreWatchEvent | undefined {
    return this.queue.shift();
  }

  get done(): boolean {
    return this.ended && this.queue.length === 0;
  }

  wait(wake: () => void): void {
    this.waits++;
    if (this.queue.length > 0 || this.ended) wake();
    else this.wake = wake;
  }

  close(): void {
    this.closed = true;
    this.ended = true;
    this.queue = [];
  }

  private notify(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }
}

/** A response that records its writes and reports a full buffer when told to. */
class FakeResponse extends EventEmitter {
  statusCode = 200;
  headersSent = true;
  writableEnded = false;
  writes: string[] = [];
  full = false;
  ends = 0;
  setHeader(): void {}
  getHeader(): undefined {
    return undefined;
  }
  removeHeader(): void {}
  private corked: string[] | undefined;
  /** Writes while corked count as one, as they go down together. */
  cork(): void {
    this.corked ??= [];
  }
  uncork(): void {
    if (this.corked?.length) this.writes.push(this.corked.join(''));
    this.corked = undefined;
  }
  write(chunk: Uint8Array | string): boolean {
    assert.equal(this.writableEnded, false, 'no write after the end');
    if (this.corked) this.corked.push(Buffer.from(chunk).toString());
    else this.writes.push(Buffer.from(chunk).toString());
    return !this.full;
  }
  end(): void {
    this.ends++;
    this.writableEnded = true;
  }
}

function event(n: number): StoreWatchEvent {
  return { type: 'ADDED', object: { metadata: { name: `e${n}`, resourceVersion: String(n) } } as KubeObject };
}

const frame = (ev: StoreWatchEvent): Uint8Array => Buffer.from(`${ev.object.metadata?.resourceVersion}\n`);

function pump(cursor: WatchCursor, res: FakeResponse, opts: { signal?: AbortSignal; initialized?: () => void; frame?: (ev: StoreWatchEvent) => Uint8Array } = {}): Promise<void> {
  return new Promise((resolve) => {
    new WatchPump({
      cursor,
      res: res as unknown as WatchResponse,
      signal: opts.signal ?? new AbortController().signal,
      frame: opts.frame ?? frame,
      errorFrame: (err) => Buffer.from(`ERROR ${(err as Error).message}\n`),
      initialized: opts.initialized,
      done: resolve,
    }).start();
  });
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

test('every watcher gets every event once and in order; the events that arrive in one turn go out in one write per watcher', async () => {
  const watchers = Array.from({ length: 600 }, () => ({ cursor: new QueueCursor(), res: new FakeResponse() }));
  const done = watchers.map((w) => pump(w.cursor, w.res));
  let n = 0;
  for (let burst = 0; burst < 5; burst++) {
    const events = Array.from({ length: 20 }, () => event(++n));
    for (const w of watchers) w.cursor.push(...events);
    // Slices of the fan-out run over several turns.
    for (let i = 0; i < 5; i++) await turn();
  }
  for (const w of watchers) w.cursor.end();
  await Promise.all(done);
  const expected = Array.from({ length: n }, (_, i) => `${i + 1}\n`).join('');
  for (const w of watchers) {
    assert.equal(w.res.writes.join(''), expected);
    assert.equal(w.res.writes.length, 5, 'one write per burst');
    assert.equal(w.res.ends, 1);
  }
});

test('a full buffer pauses the pump until the response drains; nothing is lost or reordered', async () => {
  const cursor = new QueueCursor();
  const res = new FakeResponse();
  const done = pump(cursor, res);
  res.full = true;
  cursor.push(event(1));
  await turn();
  assert.deepEqual(res.writes, ['1\n']);
  cursor.push(event(2), event(3));
  await turn();
  await turn();
  assert.deepEqual(res.writes, ['1\n'], 'no write while the buffer is full');
  assert.equal(cursor.waits, 1, 'the pump waits for the drain, not for events');
  res.full = false;
  res.emit('drain');
  await turn();
  assert.deepEqual(res.writes, ['1\n', '2\n3\n']);
  cursor.end();
  await done;
  assert.equal(res.ends, 1);
});

test('the signal ends the watch: the cursor is closed and the response ended once', async () => {
  const cursor = new QueueCursor();
  const res = new FakeResponse();
  const ac = new AbortController();
  let initialized = 0;
  const done = pump(cursor, res, { signal: ac.signal, initialized: () => initialized++ });
  ac.abort();
  await done;
  assert.equal(cursor.closed, true);
  assert.equal(res.ends, 1);
  assert.equal(initialized, 1);
});

test('a failure after the first byte is an ERROR event, after the events before it', async () => {
  const cursor = new QueueCursor();
  const res = new FakeResponse();
  const done = pump(cursor, res, {
    frame: (ev) => {
      if (ev.object.metadata?.name === 'e3') throw new Error('cannot encode');
      return frame(ev);
    },
  });
  cursor.push(event(1), event(2), event(3), event(4));
  await done;
  assert.deepEqual(res.writes.join(''), '1\n2\nERROR cannot encode\n');
  assert.equal(cursor.closed, true);
});

test('initialized is called once the events ready at the start are written, not before', async () => {
  const cursor = new QueueCursor();
  cursor.push(event(1), event(2));
  const res = new FakeResponse();
  let calls = 0;
  let writtenThen = '';
  const done = pump(cursor, res, {
    initialized: () => {
      calls++;
      writtenThen = res.writes.join('');
    },
  });
  await turn();
  await turn();
  assert.equal(calls, 1);
  assert.equal(writtenThen, '1\n2\n');
  cursor.push(event(3));
  cursor.end();
  await done;
  assert.equal(calls, 1);
});

test('an iterable watch is taken through a cursor: its events in order, then its failure once', async () => {
  const events: StoreWatch = (async function* () {
    yield event(1);
    await turn();
    yield event(2);
    throw new Error('gone');
  })();
  const res = new FakeResponse();
  await pump(iteratorCursor(events), res);
  assert.equal(res.writes.join(''), '1\n2\nERROR gone\n');
  assert.equal(res.ends, 1);
});

test('the watches share one listener on the shutdown signal', () => {
  const ac = new AbortController();
  let called = 0;
  const forget = Array.from({ length: 100 }, () => onShutdown(ac.signal, () => called++));
  forget[0]!();
  ac.abort();
  assert.equal(called, 99);
});

test('a client that does not read holds no more than the cache\'s buffer: its watch ends there, with what was written before in order', async () => {
  const store = new MemoryStorage();
  const cache = createCacher(store, '/registry/slow/', { watcherBufferSize: 8 });
  try {
    await cache.ready();
    const ac = new AbortController();
    const cursor = watchStream({
      cacher: cache,
      prefix: '/registry/slow/',
      start: cache.revision(),
      initial: [],
      signal: ac.signal,
      bookmarks: false,
      decode: (item) => ({ metadata: { name: item.key, resourceVersion: String(item.modRevision) } }) as KubeObject,
      toExternal: (obj) => obj,
      bookmark: (revision) => ({ metadata: { resourceVersion: String(revision) } }) as KubeObject,
    }).cursor!();
    const res = new FakeResponse();
    const done = pump(cursor, res, { signal: ac.signal });
    // The cache's watch opens (the cursor has one waiter: the pump).
    await turn();
    res.full = true;
    for (let i = 0; i < 50; i++) {
      await store.create(`/registry/slow/o${i}`, Buffer.from('{}'));
      // The pump writes the first event, then stops: the response reports a full buffer.
      await turn();
    }
    assert.deepEqual(res.writes, ['1\n']);
    assert.equal(res.ends, 0);
    res.full = false;
    res.emit('drain');
    await done;
    // Events 2.. waited in the cache's buffer; the ninth live one ended the watch.
    assert.equal(res.ends, 1);
    assert.deepEqual(res.writes, ['1\n']);
    ac.abort();
  } finally {
    await cache.stop();
    await store.close();
  }
});
