// The etcd watch against a scripted watch stream: which progress reports it vouches for,
// compaction, and the replay after a consumer falls behind.

import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { setImmediate as tick } from 'node:timers/promises';
import { describe, it } from 'node:test';
import type { IDuplexStream, IEvent, IWatchRequest, IWatchResponse } from 'etcd3';
import { watchEtcd, type EtcdWatchSource } from './etcd-watch.js';
import { CompactedError, type StorageEvent } from './interface.js';

class ScriptedStream extends EventEmitter {
  readonly requests: IWatchRequest[] = [];
  cancelled = false;
  write(req: IWatchRequest): void {
    this.requests.push(req);
  }
  end(): void {}
  cancel(): void {
    this.cancelled = true;
  }
  respond(res: Partial<IWatchResponse> & { revision: number }): void {
    const { revision, ...rest } = res;
    const full: IWatchResponse = {
      header: { cluster_id: '1', member_id: '1', revision: String(revision), raft_term: '2' },
      watch_id: '7',
      created: false,
      canceled: false,
      compact_revision: '0',
      cancel_reason: '',
      fragment: false,
      events: [],
      ...rest,
    };
    this.emit('data', full);
  }
  get progressRequests(): number {
    return this.requests.filter((r) => r.progress_request !== undefined).length;
  }
}

function put(revision: number): IEvent {
  const kv = {
    key: Buffer.from(`/k/${revision}`),
    create_revision: String(revision),
    mod_revision: String(revision),
    version: '1',
    value: Buffer.from('v'),
    lease: '0',
  };
  return { type: 'Put', kv, prev_kv: undefined as unknown as IEvent['prev_kv'] };
}

function scripted(bufferSize = 100) {
  const streams: ScriptedStream[] = [];
  const source: EtcdWatchSource = {
    watchClient: {
      watch: async () => {
        const stream = new ScriptedStream();
        streams.push(stream);
        return stream as unknown as IDuplexStream<IWatchRequest, IWatchResponse>;
      },
    },
    revisionOffset: 0,
    toEvent: (e) => ({
      type: 'put',
      key: e.kv.key.toString(),
      revision: Number(e.kv.mod_revision),
      item: { key: e.kv.key.toString(), value: new Uint8Array(e.kv.value), createRevision: 0, modRevision: Number(e.kv.mod_revision) },
    }),
  };
  const ctl = new AbortController();
  const watch = watchEtcd(source, { key: Buffer.from('/k/'), rangeEnd: Buffer.from('/k0') }, 10, bufferSize, ctl.signal);
  const seen: StorageEvent[] = [];
  let gate: Promise<void> = Promise.resolve();
  const consuming = (async () => {
    for await (const event of watch) {
      seen.push(event);
      await gate;
    }
  })();
  return {
    watch,
    streams,
    seen,
    consuming,
    stop: () => ctl.abort(),
    hold(): () => void {
      let release!: () => void;
      gate = new Promise((resolve) => {
        release = resolve;
      });
      return release;
    },
    async stream(n: number): Promise<ScriptedStream> {
      for (let i = 0; i < 100 && streams.length <= n; i++) await tick();
      const stream = streams[n];
      assert.ok(stream !== undefined, `watch stream ${n} was opened`);
      return stream;
    },
  };
}

describe('etcd watch', () => {
  it('opens from the revision after the one given, with previous values and progress reports', async () => {
    const w = scripted();
    const stream = await w.stream(0);
    assert.deepEqual(stream.requests[0]?.create_request, {
      key: Buffer.from('/k/'),
      range_end: Buffer.from('/k0'),
      start_revision: 11,
      prev_kv: true,
      progress_notify: true,
    });
    w.stop();
    await w.consuming;
  });

  it('vouches for requested progress only once the watch is synced and a later answer confirms it', async () => {
    const w = scripted();
    const stream = await w.stream(0);
    // Created at 15 from 11: etcd still has history to send this watch.
    stream.respond({ created: true, revision: 15 });
    await tick();
    assert.equal(w.watch.progressRevision(), 10);
    assert.equal(stream.progressRequests, 1, 'a caught-up watch asks for progress');
    stream.respond({ watch_id: '-1', revision: 15 });
    stream.respond({ watch_id: '-1', revision: 15 });
    await tick();
    assert.equal(w.watch.progressRevision(), 10, 'answers for a watch catching up are not trusted');

    stream.respond({ revision: 15, events: [put(12)] });
    for (let i = 0; i < 5 && w.seen.length < 1; i++) await tick();
    assert.deepEqual(w.seen.map((e) => e.revision), [12]);
    stream.respond({ watch_id: '-1', revision: 16 });
    await tick();
    assert.equal(w.watch.progressRevision(), 12, 'one answer alone may still precede queued events');
    stream.respond({ watch_id: '-1', revision: 17 });
    await tick();
    assert.equal(w.watch.progressRevision(), 16, 'the next answer confirms the previous one');

    // Periodic reports come in line with the watch's own events: exact at once.
    stream.respond({ revision: 30 });
    await tick();
    assert.equal(w.watch.progressRevision(), 30);
    w.stop();
    await w.consuming;
    assert.ok(stream.cancelled, 'the stream is canceled when the watch ends');
  });

  it('vouches for nothing while events are on their way to the consumer', async () => {
    const w = scripted();
    const stream = await w.stream(0);
    stream.respond({ created: true, revision: 10 });
    const release = w.hold();
    stream.respond({ revision: 12, events: [put(11), put(12)] });
    await tick();
    await tick();
    assert.equal(w.watch.progressRevision(), 0);
    release();
    for (let i = 0; i < 5 && w.seen.length < 2; i++) await tick();
    assert.equal(w.watch.progressRevision(), 12);
    w.stop();
    await w.consuming;
  });

  it('fails with Compacted in store terms when etcd cancels for compaction', async () => {
    const w = scripted();
    const stream = await w.stream(0);
    stream.respond({ created: true, revision: 40 });
    stream.respond({ canceled: true, compact_revision: '25', revision: 40 });
    const err = await w.consuming.then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof CompactedError);
    assert.deepEqual([err.requested, err.compacted], [10, 25]);
  });

  it('replays from the last delivered revision when the consumer falls behind its buffer', async () => {
    const w = scripted(2);
    const first = await w.stream(0);
    first.respond({ created: true, revision: 10 });
    const release = w.hold();
    first.respond({ revision: 11, events: [put(11)] });
    for (let i = 0; i < 5 && w.seen.length < 1; i++) await tick();
    first.respond({ revision: 12, events: [put(12)] });
    first.respond({ revision: 14, events: [put(13), put(14)] });
    assert.ok(first.cancelled, 'the stream is dropped past the buffer');
    release();
    const second = await w.stream(1);
    assert.equal(second.requests[0]?.create_request?.start_revision, 12);
    second.respond({ created: true, revision: 14 });
    second.respond({ revision: 14, events: [put(12), put(13), put(14)] });
    for (let i = 0; i < 10 && w.seen.length < 4; i++) await tick();
    assert.deepEqual(w.seen.map((e) => e.revision), [11, 12, 13, 14]);
    w.stop();
    await w.consuming;
  });
});
