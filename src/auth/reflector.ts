// A small list-and-watch cache of one resource through the ApiClient: lists, then watches
// from the list's resource version, and relists when the watch fails or history expired.
// Auth keeps its own so that its decisions never wait on a storage read per request.
import type { GroupVersionResource, KubeObject } from '../apimachinery/types.js';
import type { ApiClient } from '../client/types.js';
import { abortController } from '../apimachinery/abort.js';

type ObjectKey = string;

function objectKey(obj: KubeObject): ObjectKey {
  const ns = obj.metadata?.namespace ?? '';
  return ns ? `${ns}/${obj.metadata?.name ?? ''}` : (obj.metadata?.name ?? '');
}

export class Reflector {
  private readonly items = new Map<ObjectKey, KubeObject>();
  private readonly listeners = new Set<(obj: KubeObject, type: 'upsert' | 'delete') => void>();
  private abort = new AbortController();
  private synced = false;
  private syncWaiters: (() => void)[] = [];
  private running = false;

  constructor(
    private readonly client: ApiClient,
    readonly resource: GroupVersionResource,
    private readonly retryMs = 1000,
  ) {}

  get(key: ObjectKey): KubeObject | undefined {
    return this.items.get(key);
  }

  list(): KubeObject[] {
    return [...this.items.values()];
  }

  hasSynced(): boolean {
    return this.synced;
  }

  /** Resolves after the first complete list. */
  waitForSync(): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise((resolve) => this.syncWaiters.push(resolve));
  }

  onChange(listener: (obj: KubeObject, type: 'upsert' | 'delete') => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.abort = new AbortController();
    void this.run(this.abort.signal);
  }

  stop(): void {
    this.running = false;
    abortController(this.abort);
  }

  private emit(obj: KubeObject, type: 'upsert' | 'delete'): void {
    for (const l of this.listeners) {
      try {
        l(obj, type);
      } catch {
        // A listener's failure must not stop the cache.
      }
    }
  }

  private replace(items: KubeObject[]): void {
    const fresh = new Map(items.map((o) => [objectKey(o), o]));
    for (const [k, old] of this.items) if (!fresh.has(k)) {
      this.items.delete(k);
      this.emit(old, 'delete');
    }
    for (const [k, o] of fresh) {
      this.items.set(k, o);
      this.emit(o, 'upsert');
    }
  }

  private async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        const list = await this.client.list(this.resource, '');
        this.replace(list.items);
        if (!this.synced) {
          this.synced = true;
          for (const w of this.syncWaiters.splice(0)) w();
        }
        let rv = list.metadata.resourceVersion ?? '';
        // Watch until the stream ends or fails, resuming from the last version seen.
        for (;;) {
          if (signal.aborted) return;
          let failed = false;
          for await (const ev of this.client.watch(this.resource, '', { resourceVersion: rv, allowWatchBookmarks: true }, signal)) {
            if (ev.type === 'ERROR') {
              failed = true;
              break;
            }
            const newRv = ev.object.metadata?.resourceVersion;
            if (newRv) rv = newRv;
            if (ev.type === 'BOOKMARK') continue;
            const key = objectKey(ev.object);
            if (ev.type === 'DELETED') {
              this.items.delete(key);
              this.emit(ev.object, 'delete');
            } else {
              this.items.set(key, ev.object);
              this.emit(ev.object, 'upsert');
            }
          }
          if (failed) break;
          await new Promise((r) => setTimeout(r, 100).unref());
        }
      } catch {
        // Relist after a pause; transient failures (not yet served, restart) are expected.
      }
      if (signal.aborted) return;
      await new Promise((r) => setTimeout(r, this.retryMs).unref());
    }
  }
}
