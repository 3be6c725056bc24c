// The objects of one kind in a namespace (ResourceQuotas, LimitRanges), as the admission
// plugins that consult them on every write read them: from the watch cache (a list at
// resourceVersion 0, no wait for the store's revision), and only when the cache shows none,
// a live list, remembered per namespace for a short while so that a namespace without any
// costs one live list per interval, not one per write. A live answer is used only while it
// is newer than the cache: once the cache has reached its revision, the cache's answer
// stands (a deleted object is not kept alive by an old live answer).
import type { GroupVersionResource, KubeObject } from '../apimachinery/types.js';
import type { ApiClient } from '../client/types.js';

/** How long a live answer is trusted while the cache shows nothing. */
export const LIVE_LOOKUP_TTL_MS = 30_000;
/** Namespaces whose live answer is remembered; the oldest is forgotten first. */
const LIVE_LOOKUP_ENTRIES = 1000;

interface LiveEntry {
  expires: number;
  revision: bigint;
  items: KubeObject[];
}

function revisionOf(rv: string | undefined): bigint {
  return rv && /^[0-9]+$/.test(rv) ? BigInt(rv) : 0n;
}

export interface NamespacedLookupOptions {
  ttlMs?: number;
  now?: () => number;
}

export class NamespacedLookup {
  private readonly live = new Map<string, LiveEntry>();
  /** One live list per namespace at a time; concurrent writes share it. */
  private readonly inFlight = new Map<string, Promise<LiveEntry>>();
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(
    private readonly client: ApiClient,
    private readonly resource: GroupVersionResource,
    opts: NamespacedLookupOptions = {},
  ) {
    this.ttlMs = opts.ttlMs ?? LIVE_LOOKUP_TTL_MS;
    this.now = opts.now ?? Date.now;
  }

  /** The namespace's objects; shared, so callers must not change them. */
  async list(namespace: string): Promise<KubeObject[]> {
    const cached = await this.client.list(this.resource, namespace, { resourceVersion: '0' });
    if (cached.items.length > 0) return cached.items;
    let entry = this.live.get(namespace);
    if (!entry || entry.expires <= this.now()) entry = await this.lookup(namespace);
    return entry.revision > revisionOf(cached.metadata.resourceVersion) ? entry.items : cached.items;
  }

  private lookup(namespace: string): Promise<LiveEntry> {
    let pending = this.inFlight.get(namespace);
    if (pending) return pending;
    pending = (async () => {
      try {
        const list = await this.client.list(this.resource, namespace);
        const entry = { expires: this.now() + this.ttlMs, revision: revisionOf(list.metadata.resourceVersion), items: list.items };
        this.live.delete(namespace);
        this.live.set(namespace, entry);
        if (this.live.size > LIVE_LOOKUP_ENTRIES) this.live.delete(this.live.keys().next().value!);
        return entry;
      } finally {
        this.inFlight.delete(namespace);
      }
    })();
    this.inFlight.set(namespace, pending);
    return pending;
  }
}
