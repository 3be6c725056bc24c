// The console's API client: every request carries the user's bearer token, so the server
// authenticates and authorizes it as the user's own; failures are the server's Status.
import { discoveryGroup, flavorOfGroup, group, metaGroup, setFlavor, type Flavor } from '../../naming/index.js';

const TOKEN_KEY = 'orch-console-token';

export type Json = Record<string, unknown>;

/** A request the server refused: its Status message and code. */
export class ApiFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly status: Json | undefined,
  ) {
    super(message);
  }
  get reason(): string {
    return typeof this.status?.reason === 'string' ? this.status.reason : '';
  }
  /** The Status's causes (an apply conflict names each field and its manager). */
  get causes(): string[] {
    const details = this.status?.details as { causes?: Array<{ message?: string; field?: string }> } | undefined;
    return (details?.causes ?? []).map((c) => (c.field ? `${c.field}: ${c.message ?? ''}` : (c.message ?? '')));
  }
}

export const session = {
  token(): string | null {
    return sessionStorage.getItem(TOKEN_KEY);
  },
  setToken(token: string): void {
    sessionStorage.setItem(TOKEN_KEY, token);
  },
  clear(): void {
    sessionStorage.removeItem(TOKEN_KEY);
  },
};

/** Called when the server answers 401: the token is gone or expired. */
let onUnauthorized: (message: string) => void = () => {};
export function setUnauthorizedHandler(fn: (message: string) => void): void {
  onUnauthorized = fn;
}

export interface RequestOptions {
  method?: string;
  body?: string;
  contentType?: string;
  accept?: string;
  signal?: AbortSignal;
}

function headers(opts: RequestOptions): Headers {
  const h = new Headers({ Accept: opts.accept ?? 'application/json' });
  const token = session.token();
  if (token) h.set('Authorization', `Bearer ${token}`);
  if (opts.contentType) h.set('Content-Type', opts.contentType);
  return h;
}

async function failure(res: Response): Promise<ApiFailure> {
  const text = await res.text().catch(() => '');
  let status: Json | undefined;
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) status = parsed as Json;
  } catch {
    // not a Status: the text itself is the message
  }
  const message = typeof status?.message === 'string' ? status.message : text.trim() || `${res.status} ${res.statusText}`;
  const f = new ApiFailure(res.status, message, status);
  if (res.status === 401) onUnauthorized(message);
  return f;
}

export async function request<T = Json>(path: string, opts: RequestOptions = {}): Promise<T> {
  const res = await fetch(path, { method: opts.method ?? 'GET', headers: headers(opts), body: opts.body, signal: opts.signal, credentials: 'omit', cache: 'no-store' });
  if (!res.ok) throw await failure(res);
  return (await res.json()) as T;
}

/**
 * Follows a watch: each JSON line of the stream is an event. Resolves when the server
 * ends the stream (its timeout) or the signal aborts it.
 */
export async function watch(path: string, accept: string, signal: AbortSignal, onEvent: (type: string, object: Json) => void): Promise<void> {
  const res = await fetch(path, { headers: headers({ accept }), signal, credentials: 'omit', cache: 'no-store' });
  if (!res.ok || !res.body) throw await failure(res);
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffered += value;
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl).trim();
        buffered = buffered.slice(nl + 1);
        if (line === '') continue;
        const event = JSON.parse(line) as { type?: string; object?: Json };
        if (event.type && event.object) onEvent(event.type, event.object);
      }
    }
  } finally {
    reader.releaseLock();
  }
}

// ---- discovery ----

export interface Resource {
  group: string;
  version: string;
  /** The plural name (`configmaps`). */
  name: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
  shortNames: string[];
  /** Subresources served (`status`, `scale`, ...). */
  subresources: string[];
}

export interface Discovered {
  flavor: Flavor;
  /** Served resources (no subresources), the preferred version of each group. */
  resources: Resource[];
  /** Which discovery answered: the aggregated document, or the legacy per-version ones. */
  source: 'aggregated' | 'legacy';
}

interface LegacyGroupList {
  groups?: Array<{ name: string; preferredVersion?: { version: string }; versions?: Array<{ version: string }> }>;
}
interface LegacyResourceList {
  resources?: Array<{ name: string; kind: string; namespaced: boolean; verbs?: string[]; shortNames?: string[] }>;
}
interface AggregatedList {
  kind?: string;
  items?: Array<{
    metadata?: { name?: string };
    versions?: Array<{
      version: string;
      resources?: Array<{ resource: string; responseKind?: { kind?: string }; scope?: string; verbs?: string[]; shortNames?: string[]; subresources?: Array<{ subresource?: string }> }>;
    }>;
  }>;
}

/** The flavor a server speaks, from the group names it serves (RBAC's group carries the product's domain). */
function detectFlavor(groupNames: string[]): Flavor {
  for (const name of groupNames) {
    const f = flavorOfGroup(name);
    if (!f) continue;
    setFlavor(f);
    if (name === group('rbac.authorization')) return f;
  }
  return 'kubernetes';
}

function aggregatedAccept(): string {
  return `application/json;g=${discoveryGroup()};v=v2beta1;as=APIGroupDiscoveryList,application/json`;
}

function fromAggregated(doc: AggregatedList, core: boolean): Resource[] {
  const out: Resource[] = [];
  for (const g of doc.items ?? []) {
    const groupName = core ? '' : (g.metadata?.name ?? '');
    // The first version listed is the preferred one.
    const v = g.versions?.[0];
    if (!v) continue;
    for (const r of v.resources ?? []) {
      out.push({
        group: groupName,
        version: v.version,
        name: r.resource,
        kind: r.responseKind?.kind ?? '',
        namespaced: r.scope === 'Namespaced',
        verbs: r.verbs ?? [],
        shortNames: r.shortNames ?? [],
        subresources: (r.subresources ?? []).map((sr) => sr.subresource ?? ''),
      });
    }
  }
  return out;
}

/** Discovery in the form the server offers: aggregated when it answers so, else the legacy documents. */
export async function discover(preferLegacy = false): Promise<Discovered> {
  const legacyGroups = await request<LegacyGroupList>('/apis');
  const groups = legacyGroups.groups ?? [];
  const flavor = detectFlavor(groups.map((g) => g.name));
  setFlavor(flavor);
  if (!preferLegacy) {
    const [core, apis] = await Promise.all([request<AggregatedList>('/api', { accept: aggregatedAccept() }), request<AggregatedList>('/apis', { accept: aggregatedAccept() })]);
    if (core.kind === 'APIGroupDiscoveryList' && apis.kind === 'APIGroupDiscoveryList') {
      return { flavor, resources: [...fromAggregated(core, true), ...fromAggregated(apis, false)], source: 'aggregated' };
    }
  }
  const lists = await Promise.all([
    request<LegacyResourceList>('/api/v1').then((l) => ({ group: '', version: 'v1', l })),
    ...groups.map((g) => {
      const version = g.preferredVersion?.version ?? g.versions?.[0]?.version ?? 'v1';
      return request<LegacyResourceList>(`/apis/${g.name}/${version}`)
        .then((l) => ({ group: g.name, version, l }))
        .catch(() => ({ group: g.name, version, l: {} as LegacyResourceList }));
    }),
  ]);
  const resources: Resource[] = [];
  for (const { group: g, version, l } of lists) {
    const all = l.resources ?? [];
    for (const r of all) {
      if (r.name.includes('/')) continue;
      const subresources = all.filter((sr) => sr.name.startsWith(`${r.name}/`)).map((sr) => sr.name.slice(r.name.length + 1));
      resources.push({ group: g, version, name: r.name, kind: r.kind, namespaced: r.namespaced, verbs: r.verbs ?? [], shortNames: r.shortNames ?? [], subresources });
    }
  }
  return { flavor, resources, source: 'legacy' };
}

export function tableAccept(): string {
  return `application/json;as=Table;v=v1;g=${metaGroup()},application/json`;
}

export function metadataListAccept(): string {
  return `application/json;as=PartialObjectMetadataList;v=v1;g=${metaGroup()},application/json`;
}

/** The collection path of a resource, in a namespace or across all ('' namespace). */
export function collectionPath(r: Pick<Resource, 'group' | 'version' | 'name' | 'namespaced'>, namespace: string): string {
  const base = r.group === '' ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`;
  return r.namespaced && namespace !== '' ? `${base}/namespaces/${encodeURIComponent(namespace)}/${r.name}` : `${base}/${r.name}`;
}

export function objectPath(r: Pick<Resource, 'group' | 'version' | 'name' | 'namespaced'>, namespace: string, name: string): string {
  return `${collectionPath(r, r.namespaced ? namespace : '')}/${encodeURIComponent(name)}`;
}

/** The history API, when the server serves it: the group and version that hold `revisions`. */
export function historyResource(d: Discovered): Resource | undefined {
  return d.resources.find((r) => r.name === 'revisions' && r.kind === 'Revision' && r.group.startsWith('history.'));
}
