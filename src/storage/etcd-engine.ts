// The etcd v3 backend's engine, which runs in the backend's worker thread (etcd-worker.ts;
// EtcdStorage in etcd.ts is what the server holds): the store is an etcd cluster, its revision is etcd's revision (less an
// optional fixed offset), and every object key lives under a key prefix so several clusters
// can share one etcd. Conditional writes are etcd transactions comparing create_revision or
// mod_revision; reads at a revision are etcd ranges at that revision; watches are etcd watches
// with prev_kv (see etcd-watch.ts).

import { Etcd3, type IEvent, type IKeyValue, type IRangeRequest, type ITxnResponse, type IWatchResponse } from 'etcd3';
import {
  CompactedError,
  ConflictError,
  KeyExistsError,
  NotFoundError,
  StorageError,
  TooLargeResourceVersionError,
  type Item,
  type ListOptions,
  type ListResult,
  type Storage,
  type StorageEvent,
} from './interface.js';
import { watchEtcd } from './etcd-watch.js';
import type { ProgressReporting } from './watch-hub.js';
import { abortController } from '../apimachinery/abort.js';

export interface EtcdStorageOptions {
  /** Client URLs of the etcd members, e.g. `http://127.0.0.1:2379` (kube-apiserver's --etcd-servers). */
  servers: string[];
  /**
   * Prepended to every key (default none: the registry's keys already begin with `/registry`).
   * Stores sharing one etcd need prefixes of which none begins another.
   */
  keyPrefix?: string;
  /** Live events a watch queues before it drops them and replays from etcd's history. */
  watchBufferSize?: number;
  /**
   * Store revision = etcd revision - revisionOffset (default 0). A non-zero offset lets a store
   * start at revision 0 on an etcd that already has history; the offset must never change
   * for the life of the data.
   */
  revisionOffset?: number;
  /** How long to wait for a connection to an etcd member (default 5 s). */
  dialTimeoutMs?: number;
  /**
   * TLS to `https` members, PEM bytes: the CA that signed the members' certificates
   * (--etcd-cafile) and the client certificate and key when etcd asks for one
   * (--etcd-certfile, --etcd-keyfile).
   */
  tls?: { ca: Uint8Array; cert?: Uint8Array; key?: Uint8Array };
}

const compactedText = 'required revision has been compacted';
const futureText = 'required revision is a future revision';

export class EtcdEngine implements Storage {
  private readonly client: Etcd3;
  private readonly prefix: Buffer;
  private readonly offset: number;
  private readonly bufferSize: number;
  /** The newest compaction this process knows of (store terms); etcd is asked when unsure. */
  private compacted = 0;
  private closed = false;
  private readonly watches = new Set<AbortController>();

  private constructor(opts: EtcdStorageOptions) {
    if (opts.servers.length === 0) throw new StorageError('the etcd storage backend needs at least one server URL');
    const tls = opts.tls;
    this.client = new Etcd3({
      hosts: opts.servers,
      dialTimeout: opts.dialTimeoutMs ?? 5000,
      // A range answer is as large as the objects it holds (a cache's first read, a page of big
      // objects): no receive limit, as etcd's own Go client has none by default. gRPC's 4 MiB
      // default would refuse a page of ten thousand 1 KB objects.
      grpcOptions: { 'grpc.max_receive_message_length': -1 },
      ...(tls !== undefined
        ? {
            credentials: {
              rootCertificate: Buffer.from(tls.ca),
              ...(tls.key !== undefined ? { privateKey: Buffer.from(tls.key) } : {}),
              ...(tls.cert !== undefined ? { certChain: Buffer.from(tls.cert) } : {}),
            },
          }
        : {}),
    });
    this.prefix = Buffer.from(opts.keyPrefix ?? '', 'utf8');
    this.offset = opts.revisionOffset ?? 0;
    this.bufferSize = opts.watchBufferSize ?? 10_000;
  }

  /** Connects and checks that etcd answers. */
  static async open(opts: EtcdStorageOptions): Promise<EtcdEngine> {
    const storage = new EtcdEngine(opts);
    try {
      await storage.revision();
    } catch (err) {
      await storage.client.close();
      throw new StorageError(`cannot reach etcd at ${opts.servers.join(',')}: ${errorText(err)}`);
    }
    return storage;
  }

  async revision(): Promise<number> {
    this.checkOpen();
    // A count-only range of one key still answers the header revision of the cluster.
    const res = await this.call(() => this.client.kv.range({ key: this.fullKey('/'), count_only: true }));
    return Number(res.header.revision) - this.offset;
  }

  async get(key: string, opts?: { atRevision?: number }): Promise<{ item?: Item; revision: number }> {
    this.checkOpen();
    const at = this.requestedRevision(opts?.atRevision);
    const res = await this.range({ key: this.fullKey(key), ...(at !== undefined ? { revision: at + this.offset } : {}) }, at);
    const kv = res.kvs[0];
    const revision = at ?? Number(res.header.revision) - this.offset;
    return kv === undefined ? { revision } : { item: this.toItem(kv), revision };
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    this.checkOpen();
    const at = this.requestedRevision(opts.atRevision);
    const { key: start, rangeEnd } = this.prefixRange(prefix);
    const asked = opts.startKey !== undefined ? this.fullKey(opts.startKey) : undefined;
    const from = asked !== undefined && Buffer.compare(asked, start) > 0 ? asked : start;
    const limit = opts.limit !== undefined && opts.limit > 0 ? Math.floor(opts.limit) : 0;
    const res = await this.range(
      {
        key: from,
        range_end: rangeEnd,
        ...(limit > 0 ? { limit } : {}),
        ...(at !== undefined ? { revision: at + this.offset } : {}),
      },
      at,
    );
    const items = res.kvs.map((kv) => this.toItem(kv));
    // etcd's count covers the whole range from the page's first key at the same revision.
    const remaining = Math.max(0, Number(res.count) - items.length);
    const revision = at ?? Number(res.header.revision) - this.offset;
    return { items, revision, more: remaining > 0, remaining };
  }

  async create(key: string, value: Uint8Array): Promise<Item> {
    this.checkOpen();
    const full = this.fullKey(key);
    const res = await this.txn(() =>
      this.client.kv.txn({
        compare: [{ key: full, target: 'Create', result: 'Equal', create_revision: 0 }],
        success: [{ request_put: { key: full, value: Buffer.from(value) } }],
        failure: [],
      }),
    );
    if (!res.succeeded) throw new KeyExistsError(key);
    const revision = Number(res.header.revision) - this.offset;
    return { key, value: value.slice(), createRevision: revision, modRevision: revision };
  }

  async update(key: string, value: Uint8Array, ifModRevision?: number): Promise<Item> {
    this.checkOpen();
    const full = this.fullKey(key);
    const res = await this.txn(() =>
      this.client.kv.txn({
        compare: [this.precondition(full, ifModRevision)],
        success: [{ request_put: { key: full, value: Buffer.from(value), prev_kv: true } }],
        failure: [{ request_range: { key: full } }],
      }),
    );
    if (!res.succeeded) throw this.preconditionFailure(key, ifModRevision, res);
    const prev = res.responses[0]?.response_put.prev_kv;
    const revision = Number(res.header.revision) - this.offset;
    const createRevision = prev !== undefined && prev !== null ? Number(prev.create_revision) - this.offset : revision;
    return { key, value: value.slice(), createRevision, modRevision: revision };
  }

  async delete(key: string, ifModRevision?: number): Promise<Item> {
    this.checkOpen();
    const full = this.fullKey(key);
    const res = await this.txn(() =>
      this.client.kv.txn({
        compare: [this.precondition(full, ifModRevision)],
        success: [{ request_delete_range: { key: full, prev_kv: true } }],
        failure: [{ request_range: { key: full } }],
      }),
    );
    if (!res.succeeded) throw this.preconditionFailure(key, ifModRevision, res);
    const prev = res.responses[0]?.response_delete_range.prev_kvs[0];
    if (prev === undefined) throw new NotFoundError(key);
    return this.toItem(prev);
  }

  watch(prefix: string, afterRevision: number, signal: AbortSignal): AsyncIterable<StorageEvent> & ProgressReporting {
    const ctl = new AbortController();
    const onAbort = (): void => abortController(ctl);
    const inner = watchEtcd(
      {
        watchClient: this.client.watchClient,
        revisionOffset: this.offset,
        toEvent: (event) => this.toEvent(event),
      },
      this.prefixRange(prefix),
      afterRevision,
      this.bufferSize,
      ctl.signal,
    );
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const storage = this;
    return {
      async *[Symbol.asyncIterator]() {
        if (storage.closed || signal.aborted) return;
        storage.watches.add(ctl);
        signal.addEventListener('abort', onAbort);
        try {
          yield* inner;
        } finally {
          signal.removeEventListener('abort', onAbort);
          storage.watches.delete(ctl);
          abortController(ctl);
        }
      },
      progressRevision: () => inner.progressRevision(),
    };
  }

  async compact(revision: number): Promise<void> {
    this.checkOpen();
    if (revision <= this.compacted) return;
    try {
      await this.client.kv.compact({ revision: revision + this.offset, physical: false });
    } catch (err) {
      const text = errorText(err);
      if (text.includes(futureText)) throw new TooLargeResourceVersionError(revision, await this.revision());
      // Someone compacted further already: nothing is left to do.
      if (!text.includes(compactedText)) throw new StorageError(`etcd compaction at ${revision} failed: ${text}`);
    }
    this.compacted = Math.max(this.compacted, revision);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const ctl of this.watches) abortController(ctl);
    this.watches.clear();
    await this.client.close();
  }

  private checkOpen(): void {
    if (this.closed) throw new StorageError('storage is closed');
  }

  /** The etcd key; the empty key (the start of a range over everything) is etcd's "\0". */
  private fullKey(key: string): Buffer {
    const full = Buffer.concat([this.prefix, Buffer.from(key, 'utf8')]);
    return full.length > 0 ? full : Buffer.from([0]);
  }

  /** The range of every key under `prefix`, as etcd spells it. */
  private prefixRange(prefix: string): { key: Buffer; rangeEnd: Buffer } {
    const key = this.fullKey(prefix);
    return { key, rangeEnd: prefixEnd(Buffer.concat([this.prefix, Buffer.from(prefix, 'utf8')])) };
  }

  private toItem(kv: IKeyValue): Item {
    return {
      key: kv.key.subarray(this.prefix.length).toString('utf8'),
      // A copy: the item must not pin the buffer the whole gRPC message was read into.
      value: new Uint8Array(kv.value),
      createRevision: Number(kv.create_revision) - this.offset,
      modRevision: Number(kv.mod_revision) - this.offset,
    };
  }

  private toEvent(event: IEvent): StorageEvent {
    const key = event.kv.key.subarray(this.prefix.length).toString('utf8');
    const revision = Number(event.kv.mod_revision) - this.offset;
    const prev = event.prev_kv !== undefined && event.prev_kv !== null ? this.toItem(event.prev_kv) : undefined;
    if (event.type === 'Delete') return prev === undefined ? { type: 'delete', key, revision } : { type: 'delete', key, revision, prev };
    const item = this.toItem(event.kv);
    return prev === undefined ? { type: 'put', key, revision, item } : { type: 'put', key, revision, item, prev };
  }

  /** The compare of a conditional write: the key exists, at the given mod revision if any. */
  private precondition(full: Buffer, ifModRevision: number | undefined) {
    return ifModRevision === undefined
      ? { key: full, target: 'Create' as const, result: 'Greater' as const, create_revision: 0 }
      : { key: full, target: 'Mod' as const, result: 'Equal' as const, mod_revision: ifModRevision + this.offset };
  }

  private preconditionFailure(key: string, ifModRevision: number | undefined, res: ITxnResponse): StorageError {
    const current = res.responses[0]?.response_range.kvs[0];
    if (current === undefined || ifModRevision === undefined) return new NotFoundError(key);
    return new ConflictError(key, ifModRevision, Number(current.mod_revision) - this.offset);
  }

  /** The revision a read asks etcd for: undefined for the current one. */
  private requestedRevision(requested: number | undefined): number | undefined {
    if (requested === undefined || requested === 0) return undefined;
    if (!Number.isSafeInteger(requested) || requested < 0) throw new CompactedError(requested, this.compacted);
    if (requested < this.compacted) throw new CompactedError(requested, this.compacted);
    return requested;
  }

  private async range(req: IRangeRequest, at: number | undefined) {
    try {
      return await this.client.kv.range(req);
    } catch (err) {
      const text = errorText(err);
      if (at !== undefined && text.includes(futureText)) throw new TooLargeResourceVersionError(at, await this.revision());
      if (at !== undefined && text.includes(compactedText)) throw new CompactedError(at, await this.compactedRevision(at));
      throw new StorageError(`etcd read failed: ${text}`);
    }
  }

  private async call<T>(op: () => Promise<T>): Promise<T> {
    try {
      return await op();
    } catch (err) {
      throw new StorageError(`etcd request failed: ${errorText(err)}`);
    }
  }

  private async txn(op: () => Promise<ITxnResponse>): Promise<ITxnResponse> {
    try {
      return await op();
    } catch (err) {
      throw new StorageError(`etcd write failed: ${errorText(err)}`);
    }
  }

  /**
   * etcd's compaction revision, which its read errors do not carry: a watch from a compacted
   * revision is canceled with it. Remembered, since compactions only move forward.
   */
  private async compactedRevision(below: number): Promise<number> {
    const stream = await this.client.watchClient.watch();
    try {
      const compacted = await new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new StorageError('etcd did not answer a watch in time')), 10_000);
        stream.on('data', (res: IWatchResponse) => {
          if (res.created && !res.canceled) return;
          clearTimeout(timer);
          resolve(Number(res.compact_revision));
        });
        stream.on('error', (err: unknown) => {
          clearTimeout(timer);
          reject(err instanceof Error ? err : new StorageError(String(err)));
        });
        stream.write({ create_request: { key: Buffer.concat([this.prefix, Buffer.from([0])]), start_revision: below + this.offset } });
      });
      this.compacted = Math.max(this.compacted, compacted - this.offset);
    } catch {
      // Report what is known.
    } finally {
      stream.cancel();
    }
    return this.compacted;
  }
}

/** The end of the key range holding every key that starts with `start`. */
export function prefixEnd(start: Buffer): Buffer {
  const end = Buffer.from(start);
  for (let i = end.length - 1; i >= 0; i--) {
    if ((end[i] as number) < 0xff) {
      end[i] = (end[i] as number) + 1;
      return end.subarray(0, i + 1);
    }
  }
  // Every byte is 0xff (or there is none): the range runs to the end of the keyspace.
  return Buffer.from([0]);
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
