// The `revisions` resource: read-only, namespaced, listed across namespaces too. Every
// revision is shown only to a user who may `get` its object (asked of the server's authorizer
// with the object's own group, resource, namespace and name), so nothing is readable here that
// a `get` of the object would refuse.
import { ApiError, badRequest, notFound } from '../apimachinery/errors.js';
import type { KubeObject, UserInfo } from '../apimachinery/types.js';
import { productGroup } from '../naming/index.js';
import type { GetOptions, ListOptions, RequestContext, RESTStore, ResourceDefinition, StoreList, StoreWatchEvent } from '../rest/index.js';
import { decodeContinue, encodeContinue } from '../registry/index.js';
import { parseRevisionName, revisionObject, revisionTable, toRevision } from './revision.js';
import { parseRevisionSelector } from './selector.js';
import type { HistoryStore, ObjectHistory, StoredRevision } from './store.js';

/** The object a revision is of, as the authorizer is asked about it. */
export interface TargetRef {
  group: string;
  resource: string;
  namespace: string;
  name: string;
}

/** Answers undefined when `user` may `get` the target, else the Forbidden error a `get` of it would answer. */
export type TargetAuthorizer = (user: UserInfo, target: TargetRef) => Promise<ApiError | undefined>;

export const HISTORY_VERSION = 'v1';

/** Revisions a slow watcher may have waiting; beyond it new ones are not queued for it. */
const MAX_WATCH_QUEUE = 10_000;

/** The served definition of `revisions` (computed when the server is built). */
export function revisionsDefinition(): ResourceDefinition {
  return {
    group: productGroup('history'),
    version: HISTORY_VERSION,
    resource: 'revisions',
    kind: 'Revision',
    singularName: 'revision',
    namespaced: true,
    shortNames: ['rev'],
    categories: [],
    verbs: ['get', 'list', 'watch'],
    subresources: [],
    preferred: true,
    handler: 'Revisions',
    table: revisionTable,
  };
}

interface Entry {
  history: ObjectHistory;
  index: number;
}

function compareEntries(a: Entry, b: Entry): number {
  const ra = a.history.revisions[a.index]!.resourceVersion;
  const rb = b.history.revisions[b.index]!.resourceVersion;
  if (ra !== rb) return ra - rb;
  const ua = a.history.target.uid;
  const ub = b.history.target.uid;
  return ua < ub ? -1 : ua > ub ? 1 : 0;
}

/** The continue key of an entry: its resourceVersion (zero-padded, so keys sort as numbers) and uid. */
function entryKey(e: Entry): string {
  return `${String(e.history.revisions[e.index]!.resourceVersion).padStart(16, '0')}/${e.history.target.uid}`;
}

export class RevisionsStore implements RESTStore {
  readonly definition: ResourceDefinition;
  private readonly apiVersion: string;

  constructor(
    definition: ResourceDefinition,
    private readonly history: HistoryStore,
    private readonly authorize: TargetAuthorizer,
  ) {
    this.definition = definition;
    this.apiVersion = `${definition.group}/${definition.version}`;
  }

  private qualified() {
    return { group: this.definition.group, resource: this.definition.resource };
  }

  async get(ctx: RequestContext, namespace: string, name: string, _opts: GetOptions): Promise<KubeObject> {
    const parsed = parseRevisionName(name);
    const h = parsed ? this.history.byTargetUid(parsed.uid) : undefined;
    // A cluster-scoped object's revisions have no namespace to be read in by name: they are listed.
    if (!parsed || !h || h.target.namespace === '' || h.target.namespace !== namespace) throw notFound(this.qualified(), name);
    const index = h.revisions.findIndex((r) => r.resourceVersion === parsed.resourceVersion);
    if (index < 0) throw notFound(this.qualified(), name);
    const denied = await this.authorize(ctx.user, h.target);
    if (denied) throw denied;
    return this.build({ history: h, index });
  }

  async list(ctx: RequestContext, namespace: string, opts: ListOptions): Promise<StoreList> {
    if (opts.labelSelector) throw badRequest('revisions have no labels: a label selector is not supported');
    const selector = parseRevisionSelector(opts.fieldSelector);
    let after: string | undefined;
    if (opts.continue) {
      after = decodeContinue(opts.continue).start;
      if (!/^\d{16}\/[A-Za-z0-9][-A-Za-z0-9]{0,127}$/.test(after)) throw badRequest('invalid continue token: continue key is not valid');
    }
    const histories = this.history.select({ ...selector, namespace: namespace === '' ? undefined : namespace });
    const allowed: ObjectHistory[] = [];
    // One question per object; a namespace-wide `get` answers for all of a namespace's objects.
    const wide = new Map<string, boolean>();
    for (const h of histories) {
      const t = h.target;
      let ok = wide.get(t.namespace);
      if (ok === undefined) {
        ok = (await this.authorize(ctx.user, { ...t, name: '' })) === undefined;
        wide.set(t.namespace, ok);
      }
      if (ok || (await this.authorize(ctx.user, t)) === undefined) allowed.push(h);
    }
    const entries: Entry[] = [];
    for (const h of allowed) for (let i = 0; i < h.revisions.length; i++) entries.push({ history: h, index: i });
    entries.sort(compareEntries);
    let start = 0;
    if (after !== undefined) {
      const from = after;
      start = entries.findIndex((e) => entryKey(e) > from);
      if (start < 0) start = entries.length;
    }
    const limit = opts.limit && opts.limit > 0 ? opts.limit : entries.length;
    const page = entries.slice(start, start + limit);
    const items = page.map((e) => this.build(e));
    const metadata: KubeObject['metadata'] & Record<string, unknown> = {};
    const newest = entries.reduce((max, e) => Math.max(max, e.history.revisions[e.index]!.resourceVersion), 0);
    metadata.resourceVersion = String(newest);
    if (start + limit < entries.length) {
      metadata.continue = encodeContinue({ revision: Math.max(newest, 1), start: entryKey(page[page.length - 1]!) });
      metadata.remainingItemCount = entries.length - start - limit;
    }
    return { apiVersion: this.apiVersion, kind: 'RevisionList', metadata, items } as StoreList;
  }

  /**
   * New revisions as ADDED events (revisions never change). Without a resourceVersion (or "0")
   * the kept revisions come first; with one, the kept revisions after it. Each object's
   * revisions reach only a watcher who may get the object.
   */
  async watch(ctx: RequestContext, namespace: string, opts: ListOptions): Promise<AsyncIterable<StoreWatchEvent>> {
    if (opts.labelSelector) throw badRequest('revisions have no labels: a label selector is not supported');
    const selector = parseRevisionSelector(opts.fieldSelector);
    const rv = opts.resourceVersion ?? '';
    if (rv !== '' && !/^\d{1,16}$/.test(rv)) throw badRequest(`invalid resource version: ${rv.slice(0, 64)}`);
    const after = rv === '' ? 0 : Number(rv);
    const ns = namespace === '' ? undefined : namespace;
    const matches = (h: ObjectHistory): boolean =>
      h.target.group === selector.group &&
      h.target.resource === selector.resource &&
      (ns === undefined || h.target.namespace === ns) &&
      (selector.name === undefined || h.target.name === selector.name) &&
      (selector.uid === undefined || h.target.uid === selector.uid);
    // Subscribed before the kept revisions are read, so that nothing falls between.
    type Pending = { history: ObjectHistory; revision: StoredRevision };
    const queue: Pending[] = [];
    let overflow = false;
    let wake: (() => void) | undefined;
    const unsubscribe = this.history.subscribe((history, revision) => {
      if (!matches(history)) return;
      // A watcher this far behind ends; its client lists again, as after any ended watch.
      if (queue.length >= MAX_WATCH_QUEUE) overflow = true;
      else queue.push({ history, revision });
      wake?.();
    });
    const initial: Pending[] = [];
    for (const h of this.history.select({ ...selector, namespace: ns })) {
      for (const r of h.revisions) if (r.resourceVersion > after) initial.push({ history: h, revision: r });
    }
    initial.sort((a, b) => a.revision.resourceVersion - b.revision.resourceVersion || (a.history.target.uid < b.history.target.uid ? -1 : 1));
    const sentInitially = new Set(initial.map((p) => p.revision));
    const allowed = new Map<string, boolean>();
    const mayGet = async (h: ObjectHistory): Promise<boolean> => {
      let ok = allowed.get(h.target.uid);
      if (ok === undefined) {
        ok = (await this.authorize(ctx.user, h.target)) === undefined;
        allowed.set(h.target.uid, ok);
      }
      return ok;
    };
    const signal = ctx.signal;
    const onAbort = (): void => wake?.();
    signal.addEventListener('abort', onAbort, { once: true });
    const event = async (p: Pending): Promise<StoreWatchEvent | undefined> => {
      // Dropped by retention before it was sent: nothing to show any more.
      const index = p.history.revisions.indexOf(p.revision);
      if (index < 0 || !(await mayGet(p.history))) return undefined;
      return { type: 'ADDED', object: this.build({ history: p.history, index }) };
    };
    async function* events(): AsyncGenerator<StoreWatchEvent> {
      try {
        for (const p of initial) {
          if (signal.aborted) return;
          const e = await event(p);
          if (e) yield e;
        }
        while (!signal.aborted && !overflow) {
          const p = queue.shift();
          if (!p) {
            await new Promise<void>((resolve) => (wake = resolve));
            wake = undefined;
            continue;
          }
          if (sentInitially.has(p.revision)) continue;
          const e = await event(p);
          if (e) yield e;
        }
      } finally {
        unsubscribe();
        signal.removeEventListener('abort', onAbort);
      }
    }
    return events();
  }

  private build(e: Entry): KubeObject {
    const revs = e.history.revisions;
    const object = revisionObject(revs[e.index]!);
    const previous = e.index > 0 ? revisionObject(revs[e.index - 1]!) : undefined;
    return toRevision(this.apiVersion, e.history, e.index, object, previous);
  }
}
