// Requests from the serving thread to a storage worker (SQLite's, etcd's): numbered, sent at
// once to an idle worker and gathered into one message per turn of the event loop while it
// works, answered by number. An answer in flight keeps the process alive; an idle store does not.
import type { Worker } from 'node:worker_threads';
import { fromWireError, type toWireError } from './sqlite-protocol.js';

type WireError = ReturnType<typeof toWireError>;

export type WorkerReply<Res> = { id: number; ok: true; result: Res } | { id: number; ok: false; error: WireError };

interface Waiter<Res> {
  resolve(result: Res): void;
  reject(err: Error): void;
}

export class WorkerRequests<Req, Res> {
  private readonly waiters = new Map<number, Waiter<Res>>();
  private outgoing: { id: number; req: Req }[] = [];
  private scheduled = false;
  private nextId = 1;

  constructor(
    private readonly worker: Worker,
    /** Posts one message of requests (not called once the worker is gone). */
    private readonly send: (requests: { id: number; req: Req }[]) => void,
  ) {}

  call(req: Req): Promise<Res> {
    const id = this.nextId++;
    return new Promise<Res>((resolve, reject) => {
      const idle = this.waiters.size === 0;
      this.waiters.set(id, { resolve, reject });
      this.worker.ref();
      this.outgoing.push({ id, req });
      if (idle) {
        this.flush();
      } else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  flush(): void {
    this.scheduled = false;
    if (this.outgoing.length === 0) return;
    const requests = this.outgoing;
    this.outgoing = [];
    this.send(requests);
  }

  settle(replies: readonly WorkerReply<Res>[]): void {
    for (const reply of replies) {
      const waiter = this.waiters.get(reply.id);
      this.waiters.delete(reply.id);
      if (reply.ok) waiter?.resolve(reply.result);
      else waiter?.reject(fromWireError(reply.error));
    }
    if (this.waiters.size === 0) this.worker.unref();
  }

  /** Every request in flight fails with `err`. */
  failAll(err: Error): void {
    for (const waiter of this.waiters.values()) waiter.reject(err);
    this.waiters.clear();
  }
}
