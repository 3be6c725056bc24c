// What `ControllerContext.discover()` reports: the served resources in their group's
// preferred version (client-go's ServerPreferredResources), subresources left out. In the
// server it reads the resource table; outside it, the discovery endpoints.
import type { RawResponse } from '../client/http.js';
import type { ResourceDefinition, ResourceTable, RESTStore, SubresourceStore } from '../rest/index.js';
import type { DiscoveredResource } from './types.js';

export function discoverFromTable(table: ResourceTable): DiscoveredResource[] {
  return table
    .all()
    .map((s) => s.definition)
    .filter((d) => d.preferred)
    .map((d) => ({ group: d.group, version: d.version, resource: d.resource, kind: d.kind, namespaced: d.namespaced, verbs: [...d.verbs] }));
}

/** Anything that can GET a path and answer with the raw response (HttpClient can). */
export interface DiscoveryTransport {
  request(method: string, path: string): Promise<RawResponse>;
}

interface APIResourceList {
  resources?: { name: string; kind: string; namespaced: boolean; verbs?: string[] }[];
}

interface APIGroupList {
  groups?: { name: string; preferredVersion?: { version: string }; versions?: { version: string }[] }[];
}

async function getJSON<T>(t: DiscoveryTransport, path: string): Promise<T> {
  const res = await t.request('GET', path);
  if (res.statusCode !== 200) throw new Error(`discovery: GET ${path}: status ${res.statusCode}`);
  return JSON.parse(res.body.toString('utf8')) as T;
}

function resourcesOf(group: string, version: string, list: APIResourceList): DiscoveredResource[] {
  return (list.resources ?? [])
    .filter((r) => !r.name.includes('/'))
    .map((r) => ({ group, version, resource: r.name, kind: r.kind, namespaced: r.namespaced, verbs: [...(r.verbs ?? [])] }));
}

export async function discoverFromServer(t: DiscoveryTransport): Promise<DiscoveredResource[]> {
  const out = resourcesOf('', 'v1', await getJSON<APIResourceList>(t, '/api/v1'));
  const groups = await getJSON<APIGroupList>(t, '/apis');
  const lists = await Promise.all(
    (groups.groups ?? []).map(async (g) => {
      const version = g.preferredVersion?.version ?? g.versions?.[0]?.version;
      if (!version) return [];
      return resourcesOf(g.name, version, await getJSON<APIResourceList>(t, `/apis/${g.name}/${version}`));
    }),
  );
  return out.concat(...lists);
}

function definitionOf(r: DiscoveredResource): ResourceDefinition {
  return {
    group: r.group,
    version: r.version,
    resource: r.resource,
    kind: r.kind,
    singularName: r.kind.toLowerCase(),
    namespaced: r.namespaced,
    shortNames: [],
    categories: [],
    verbs: r.verbs,
    subresources: [],
    preferred: true,
  };
}

/**
 * A read-only resource table over discovery results, for code that walks `table.all()`
 * (the namespace deleter) when running outside the server. `refresh` replaces the snapshot.
 */
export class DiscoveredResourceTable implements ResourceTable {
  private stores: RESTStore[] = [];
  private readonly listeners = new Set<() => void>();

  refresh(resources: DiscoveredResource[]): void {
    this.stores = resources.map((r) => ({ definition: definitionOf(r) }));
    for (const l of this.listeners) l();
  }

  lookup(gv: { group: string; version: string }, resource: string): RESTStore | undefined {
    return this.stores.find((s) => s.definition.group === gv.group && s.definition.version === gv.version && s.definition.resource === resource);
  }

  /** Discovery is read with its subresources left out. */
  lookupSubresource(): undefined {
    return undefined;
  }

  subresources(): SubresourceStore[] {
    return [];
  }

  all(): RESTStore[] {
    return this.stores;
  }

  add(): void {
    throw new Error('a discovered resource table is read-only');
  }

  addSubresource(): void {
    throw new Error('a discovered resource table is read-only');
  }

  remove(): void {
    throw new Error('a discovered resource table is read-only');
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
