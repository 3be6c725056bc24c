// The etcd backend's worker thread: it holds the gRPC client (etcd3 over grpc-js), whose
// framing, protobuf coding and HTTP/2 bookkeeping cost a few hundred microseconds of CPU per
// call, so that this work stays off the server's event loop. Each request is still its own
// etcd call (a write is one transaction, as the backend's contract says); answers and watch
// events go back in one message per turn of this thread's loop.

import { parentPort } from 'node:worker_threads';
import { EtcdEngine } from './etcd-engine.js';
import type { EtcdFromWorker, EtcdReply, EtcdRequest, EtcdResult, EtcdToWorker } from './etcd.js';
import type { StorageEvent } from './interface.js';
import { toWireError } from './sqlite-protocol.js';
import type { ProgressReporting } from './watch-hub.js';

const port = parentPort;
if (port === null) throw new Error('etcd-worker must run in a worker thread');

let engine: EtcdEngine | undefined;
let replies: EtcdReply[] = [];
let repliesScheduled = false;

interface WatchState {
  ctl: AbortController;
  watch: AsyncIterable<StorageEvent> & ProgressReporting;
  pending: StorageEvent[];
  scheduled: boolean;
}
const watches = new Map<number, WatchState>();

function send(msg: EtcdFromWorker): void {
  port?.postMessage(msg);
}

function flushReplies(): void {
  repliesScheduled = false;
  if (replies.length === 0) return;
  const batch = replies;
  replies = [];
  send({ type: 'replies', replies: batch });
}

function reply(r: EtcdReply): void {
  replies.push(r);
  if (!repliesScheduled) {
    repliesScheduled = true;
    setImmediate(flushReplies);
  }
}

async function run(e: EtcdEngine, req: EtcdRequest): Promise<EtcdResult> {
  switch (req.op) {
    case 'revision':
      return e.revision();
    case 'get':
      return e.get(req.key, req.atRevision !== undefined ? { atRevision: req.atRevision } : undefined);
    case 'list':
      return e.list(req.prefix, req.opts);
    case 'create':
      return e.create(req.key, req.value);
    case 'update':
      return e.update(req.key, req.value, req.ifModRevision);
    case 'delete':
      return e.delete(req.key, req.ifModRevision);
    case 'compact':
      await e.compact(req.revision);
      return null;
  }
}

function flushWatch(wid: number): void {
  const w = watches.get(wid);
  if (w === undefined) return;
  w.scheduled = false;
  if (w.pending.length === 0) return;
  const events = w.pending;
  w.pending = [];
  send({ type: 'events', wid, events });
}

function startWatch(e: EtcdEngine, wid: number, prefix: string, after: number): void {
  const ctl = new AbortController();
  const state: WatchState = { ctl, watch: e.watch(prefix, after, ctl.signal), pending: [], scheduled: false };
  watches.set(wid, state);
  void (async () => {
    try {
      for await (const event of state.watch) {
        state.pending.push(event);
        if (!state.scheduled) {
          state.scheduled = true;
          setImmediate(() => flushWatch(wid));
        }
      }
      flushWatch(wid);
      if (watches.delete(wid)) send({ type: 'watch-end', wid });
    } catch (err) {
      flushWatch(wid);
      if (watches.delete(wid)) send({ type: 'watch-end', wid, error: toWireError(err) });
    }
  })();
}

port.on('message', (msg: EtcdToWorker) => {
  switch (msg.type) {
    case 'open':
      EtcdEngine.open(msg.opts).then(
        (e) => {
          engine = e;
          send({ type: 'opened' });
        },
        (err: unknown) => send({ type: 'open-failed', message: err instanceof Error ? err.message : String(err) }),
      );
      return;
    case 'batch': {
      const e = engine;
      for (const { id, req } of msg.requests) {
        if (e === undefined) {
          reply({ id, ok: false, error: { kind: 'Other', message: 'storage is closed' } });
          continue;
        }
        run(e, req).then(
          (result) => reply({ id, ok: true, result }),
          (err: unknown) => reply({ id, ok: false, error: toWireError(err) }),
        );
      }
      return;
    }
    case 'watch':
      if (engine === undefined) send({ type: 'watch-end', wid: msg.wid, error: { kind: 'Other', message: 'storage is closed' } });
      else startWatch(engine, msg.wid, msg.prefix, msg.after);
      return;
    case 'unwatch': {
      const w = watches.get(msg.wid);
      watches.delete(msg.wid);
      w?.ctl.abort();
      return;
    }
    case 'progress': {
      // The events this watch has handed over go first, so that the revision vouched for
      // arrives after every event at or below it.
      flushWatch(msg.wid);
      const w = watches.get(msg.wid);
      if (w !== undefined) send({ type: 'progress', wid: msg.wid, revision: w.watch.progressRevision() });
      return;
    }
    case 'close': {
      flushReplies();
      for (const w of watches.values()) w.ctl.abort();
      watches.clear();
      const e = engine;
      engine = undefined;
      void (e?.close() ?? Promise.resolve()).finally(() => {
        send({ type: 'closed' });
        port?.close();
      });
      return;
    }
  }
});
