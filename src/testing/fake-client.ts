// An in-memory ApiClient for unit tests: objects by resource, a resource version counter,
// watch streams from a version, and 404/409 as the real server answers them.
import { alreadyExists, conflict, notFound } from '../apimachinery/errors.js';
import type { GroupVersionResource, KubeList, KubeObject, WatchEvent } from '../apimachinery/types.js';
import type { ApiClient } from '../client/types.js';
import type { ListOptions } from '../rest/index.js';

interface Entry {
  rv: number;
  event: WatchEvent;
  resource: string;
}

export class FakeClient implements ApiClient {
  private rv = 0;
  private readonly objects = new Map<string, KubeObject>();
  private readonly history: Entry[] = [];
  private readonly waiters = new Set<() => void>();
  readonly calls: string[] = [];

  private key(r: GroupVersionResource, ns: string, name: string): string {
    return `${r.group}/${r.resource}/${ns}/${name}`;
  }

  private record(r: GroupVersionResource, type: WatchEvent['type'], obj: KubeObject): void {
    this.history.push({ rv: this.rv, event: { type, object: structuredClone(obj) }, resource: `${r.group}/${r.resource}` });
    for (const w of [...this.waiters]) w();
  }

  async get(r: GroupVersionResource, namespace: string, name: string): Promise<KubeObject> {
    const o = this.objects.get(this.key(r, namespace, name));
    if (!o) throw notFound(r, name);
    return structuredClone(o);
  }

  async list(r: GroupVersionResource, namespace: string): Promise<KubeList> {
    const prefix = `${r.group}/${r.resource}/`;
    const items = [...this.objects.entries()]
      .filter(([k, o]) => k.startsWith(prefix) && (namespace === '' || o.metadata?.namespace === namespace))
      .map(([, o]) => structuredClone(o));
    return { apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: String(this.rv) }, items };
  }

  async *watch(r: GroupVersionResource, namespace: string, opts: ListOptions, signal: AbortSignal): AsyncIterable<WatchEvent> {
    let from = Number(opts.resourceVersion ?? this.rv);
    const res = `${r.group}/${r.resource}`;
    while (!signal.aborted) {
      const next = this.history.filter((e) => e.rv > from && e.resource === res && (namespace === '' || e.event.object.metadata?.namespace === namespace));
      for (const e of next) {
        from = e.rv;
        yield structuredClone(e.event);
      }
      // Events recorded while the consumer ran are picked up before waiting again.
      if (next.length > 0) continue;
      await new Promise<void>((resolve) => {
        const done = () => {
          this.waiters.delete(done);
          signal.removeEventListener('abort', done);
          resolve();
        };
        this.waiters.add(done);
        signal.addEventListener('abort', done);
      });
    }
  }

  async create(r: GroupVersionResource, namespace: string, obj: KubeObject): Promise<KubeObject> {
    const name = obj.metadata?.name ?? '';
    const k = this.key(r, namespace, name);
    if (this.objects.has(k)) throw alreadyExists(r, name);
    this.calls.push(`create ${r.resource} ${namespace}/${name}`);
    const stored = structuredClone(obj);
    stored.metadata = { ...stored.metadata, namespace: namespace || undefined, resourceVersion: String(++this.rv), uid: `uid-${this.rv}` };
    if (!namespace) delete stored.metadata.namespace;
    this.objects.set(k, stored);
    this.record(r, 'ADDED', stored);
    return structuredClone(stored);
  }

  async update(r: GroupVersionResource, namespace: string, obj: KubeObject): Promise<KubeObject> {
    const name = obj.metadata?.name ?? '';
    const k = this.key(r, namespace, name);
    const cur = this.objects.get(k);
    if (!cur) throw notFound(r, name);
    if (obj.metadata?.resourceVersion && obj.metadata.resourceVersion !== cur.metadata?.resourceVersion) throw conflict(r, name);
    this.calls.push(`update ${r.resource} ${namespace}/${name}`);
    const stored = structuredClone(obj);
    stored.metadata = { ...stored.metadata, resourceVersion: String(++this.rv), uid: cur.metadata?.uid };
    this.objects.set(k, stored);
    this.record(r, 'MODIFIED', stored);
    return structuredClone(stored);
  }

  async patch(r: GroupVersionResource, namespace: string, name: string, mergePatch: unknown): Promise<KubeObject> {
    const cur = await this.get(r, namespace, name);
    const merged = { ...cur, ...(mergePatch as KubeObject) };
    merged.metadata = { ...cur.metadata, resourceVersion: undefined };
    return this.update(r, namespace, merged);
  }

  async delete(r: GroupVersionResource, namespace: string, name: string): Promise<KubeObject | undefined> {
    const k = this.key(r, namespace, name);
    const cur = this.objects.get(k);
    if (!cur) throw notFound(r, name);
    this.calls.push(`delete ${r.resource} ${namespace}/${name}`);
    this.objects.delete(k);
    ++this.rv;
    this.record(r, 'DELETED', { ...cur, metadata: { ...cur.metadata, resourceVersion: String(this.rv) } });
    return cur;
  }
}
