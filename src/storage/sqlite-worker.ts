// The SQLite backend's worker thread: owns the connection, so fsync never blocks the server's
// event loop. Requests that arrive while a commit is in progress queue up and are committed
// together in the next transaction (group commit).

import { parentPort } from 'node:worker_threads';
import { SqliteEngine } from './sqlite-engine.js';
import type { FromWorker, SqliteRequest, ToWorker } from './sqlite-protocol.js';
import { packList } from './sqlite-wire.js';
import type { ListResult } from './interface.js';

const port = parentPort;
if (port === null) throw new Error('sqlite-worker must run in a worker thread');

let engine: SqliteEngine | undefined;
let pending: { id: number; req: SqliteRequest }[] = [];
let scheduled = false;

function send(msg: FromWorker): void {
  port?.postMessage(msg);
}

function flush(): void {
  scheduled = false;
  const batch = pending;
  pending = [];
  if (engine === undefined || batch.length === 0) return;
  const { replies, events } = engine.runBatch(batch);
  // List answers travel packed, their values in one transferred buffer.
  const lists = new Set(batch.filter(({ req }) => req.op === 'list').map(({ id }) => id));
  const transfer: ArrayBuffer[] = [];
  for (const reply of replies) {
    if (!reply.ok || !lists.has(reply.id)) continue;
    const packed = packList(reply.result as ListResult);
    transfer.push(...packed.values);
    reply.result = packed;
  }
  port?.postMessage({ type: 'batch', replies, events } satisfies FromWorker, transfer);
}

port.on('message', (msg: ToWorker) => {
  switch (msg.type) {
    case 'open':
      try {
        engine = new SqliteEngine(msg.file, msg.busyTimeoutMs, msg.verify);
        send({ type: 'opened', revision: engine.revision, compacted: engine.compactedRevision });
      } catch (err) {
        send({ type: 'open-failed', message: err instanceof Error ? err.message : String(err) });
      }
      return;
    case 'batch':
      for (const r of msg.requests) pending.push(r);
      // Every message already queued is delivered before the check phase runs the flush.
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
      return;
    case 'close':
      flush();
      engine?.close();
      engine = undefined;
      send({ type: 'closed' });
      port?.close();
      return;
  }
});
