// Discovery documents, all computed from the resource table and recomputed when it changes:
// the legacy ones (`/api`, `/api/v1`, `/apis`, `/apis/<g>`, `/apis/<g>/<v>`) and the
// aggregated APIGroupDiscoveryList (v2beta1) that kubectl asks for first. Groups of custom
// resources are listed as kube-apiserver lists them: after the built-in groups (their
// group priority is the lowest), by name, with versions in Kubernetes' version priority
// and the first of them preferred. With the aggregation layer, groups follow their APIServices'
// priorities (groupPriorityMinimum, highest first, then by name) and group-versions served by
// other servers are listed with the resources fetched from them.
import { createHash } from 'node:crypto';
import { builtinAPIServicePriority, CUSTOM_RESOURCE_PRIORITY } from '../apis/apiregistration/index.js';
import { parseAccept } from '../codec/media-type.js';
import { discoveryGroup } from '../naming/index.js';
import type { RESTStore, ResourceDefinition, ResourceTable, SubresourceDefinition } from '../rest/index.js';
import { compareKubeAwareVersions } from '../apimachinery/versions.js';

export interface DiscoveryAnswer {
  contentType: string;
  body: unknown;
  /**
   * Headers of the answer: the aggregated document carries a strong `ETag` (upper-case hex
   * SHA-512 of its JSON) and `Cache-Control: public`, and a request whose `If-None-Match`
   * names that ETag is answered 304 (see `notModified`).
   */
  headers?: Record<string, string>;
}

/** Whether an answer with an ETag may be replaced by 304 for this `If-None-Match` value. */
export function notModified(answer: DiscoveryAnswer, ifNoneMatch: string | undefined): boolean {
  const etag = answer.headers?.ETag;
  return etag !== undefined && ifNoneMatch !== undefined && ifNoneMatch.trim() === etag;
}

/** base64 of the first 8 bytes of sha256("<group>/<version>/<kind>") of the storage version. */
export function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash('sha256').update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString('base64');
}

/** A sort comparator by Kubernetes' version priority: the preferred version first. */
export function compareVersions(a: string, b: string): number {
  return compareKubeAwareVersions(b, a);
}

/** The verbs of a custom resource in the order kube-apiserver lists them. */
const CUSTOM_RESOURCE_VERBS = ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'];
/** Verbs of the status and scale subresources, in Kubernetes' order. */
const SUBRESOURCE_VERBS = ['get', 'patch', 'update'];

function orderedVerbs(verbs: readonly string[], order: readonly string[]): string[] {
  const known = order.filter((v) => verbs.includes(v));
  return [...known, ...verbs.filter((v) => !order.includes(v))];
}

interface GroupInfo {
  name: string;
  versions: string[];
  preferred: string;
  /** Every resource of the group is a custom resource. */
  custom: boolean;
  /** The highest groupPriorityMinimum of its versions. */
  priority: number;
}

/** A group-version the aggregation layer knows of (an APIService). */
export interface AggregatedGroupVersion {
  group: string;
  version: string;
  groupPriorityMinimum: number;
  versionPriority: number;
  /** Served by another server: its APIResourceList's `resources` as fetched from it. Absent: served here. */
  remote?: { resources: Record<string, unknown>[] };
}

/** The APIServices discovery follows; `onChange` fires when their set or a remote's resources change. */
export interface DiscoverySource {
  groupVersions(): AggregatedGroupVersion[];
  onChange(listener: () => void): void;
}

interface Index {
  groups: GroupInfo[];
  byGV: Map<string, RESTStore[]>;
  remote: Map<string, Record<string, unknown>[]>;
  aggregated: Map<boolean, DiscoveryAnswer>;
}

const AGGREGATED_AS = 'APIGroupDiscoveryList';

/** A built-in group kube's priority table does not list: after the listed ones, before custom resources. */
const UNLISTED_BUILTIN_PRIORITY = { group: 1500, version: 15 };

export class Discovery {
  private cache: Index | undefined;
  private source: DiscoverySource | undefined;

  constructor(
    private readonly table: ResourceTable,
    /** `host:port` clients use to reach the server. */
    private readonly serverAddress: () => string,
    /** Whether the aggregated document is served (the AggregatedDiscoveryEndpoint gate); without it Accept falls back to the plain lists. */
    private readonly aggregatedEnabled = true,
  ) {
    table.onChange(() => {
      this.cache = undefined;
    });
  }

  /** Follows the aggregation layer's APIServices from now on. */
  setSource(source: DiscoverySource): void {
    this.source = source;
    this.cache = undefined;
    source.onChange(() => {
      this.cache = undefined;
    });
  }

  /** The subresources the table serves for `d`, in its declared order. */
  private servedSubresources(d: ResourceDefinition): SubresourceDefinition[] {
    return this.table.subresources(d, d.resource).map((s) => s.definition);
  }

  /** Whether `group/version` is served by another server. */
  isRemote(group: string, version: string): boolean {
    return this.index().remote.has(`${group}/${version}`);
  }

  private index(): Index {
    if (this.cache) return this.cache;
    const byGV = new Map<string, RESTStore[]>();
    const groups = new Map<string, GroupInfo>();
    const registered = new Map<string, AggregatedGroupVersion>();
    for (const gv of this.source?.groupVersions() ?? []) registered.set(`${gv.group}/${gv.version}`, gv);
    const remote = new Map<string, Record<string, unknown>[]>();
    for (const [key, gv] of registered) if (gv.remote) remote.set(key, gv.remote.resources);
    const versionPriority = new Map<string, number>();
    const raise = (g: GroupInfo, gv: string, p: { group: number; version: number }): void => {
      g.priority = Math.max(g.priority, p.group);
      versionPriority.set(gv, p.version);
    };
    for (const store of this.table.all()) {
      const d = store.definition;
      const gv = `${d.group}/${d.version}`;
      // A group-version an APIService sends elsewhere is not served from here.
      if (remote.has(gv)) continue;
      if (!byGV.has(gv)) byGV.set(gv, []);
      byGV.get(gv)!.push(store);
      let g = groups.get(d.group);
      if (!g) {
        g = { name: d.group, versions: [], preferred: '', custom: true, priority: 0 };
        groups.set(d.group, g);
      }
      if (!g.versions.includes(d.version)) g.versions.push(d.version);
      if (!d.customResource) g.custom = false;
      if (d.preferred) g.preferred = d.version;
    }
    for (const g of groups.values()) {
      for (const v of g.versions) {
        const gv = `${g.name}/${v}`;
        const r = registered.get(gv);
        raise(g, gv, r ? { group: r.groupPriorityMinimum, version: r.versionPriority } : g.custom ? CUSTOM_RESOURCE_PRIORITY : (builtinAPIServicePriority(g.name, v) ?? UNLISTED_BUILTIN_PRIORITY));
      }
    }
    const withRemote = new Set<GroupInfo>();
    for (const [key, r] of registered) {
      if (!r.remote) continue;
      let g = groups.get(r.group);
      if (!g) {
        g = { name: r.group, versions: [], preferred: '', custom: false, priority: 0 };
        groups.set(r.group, g);
      }
      if (!g.versions.includes(r.version)) g.versions.push(r.version);
      raise(g, key, { group: r.groupPriorityMinimum, version: r.versionPriority });
      withRemote.add(g);
    }
    for (const g of groups.values()) {
      if (withRemote.has(g)) {
        // Versions of an aggregated group go by their versionPriority, then Kubernetes' version order.
        const vp = (v: string): number => versionPriority.get(`${g.name}/${v}`) ?? 0;
        g.versions.sort((a, b) => vp(b) - vp(a) || compareVersions(a, b));
        g.preferred = g.versions[0]!;
        continue;
      }
      g.versions.sort(compareVersions);
      // A custom resource group prefers its highest-priority version, whatever its definitions say.
      if (g.custom || !g.preferred || !g.versions.includes(g.preferred)) g.preferred = g.versions[0]!;
      // The preferred version leads the list, as Kubernetes lists it.
      g.versions = [g.preferred, ...g.versions.filter((v) => v !== g.preferred)];
    }
    // Highest group priority first (custom resource groups have 1000); equal priorities go by name.
    const ordered = [...groups.values()].sort((a, b) => b.priority - a.priority || byteOrder(a.name, b.name));
    this.cache = { groups: ordered, byGV, remote, aggregated: new Map() };
    return this.cache;
  }

  /** Whether the Accept header asks for the aggregated form this server serves. */
  static wantsAggregated(accept: string | undefined): boolean {
    for (const mt of parseAccept(accept)) {
      if (mt.type !== 'application/json') continue;
      if (mt.params.as === AGGREGATED_AS && mt.params.g === discoveryGroup() && mt.params.v === 'v2beta1') return true;
      if (mt.params.as === undefined) return false;
    }
    return false;
  }

  private aggregatedContentType(): string {
    return `application/json;g=${discoveryGroup()};v=v2beta1;as=${AGGREGATED_AS}`;
  }

  /** `/api`. */
  legacyRoot(accept: string | undefined): DiscoveryAnswer {
    if (this.aggregatedEnabled && Discovery.wantsAggregated(accept)) return this.aggregatedAnswer(true);
    const core = this.index().groups.find((g) => g.name === '');
    return {
      contentType: 'application/json',
      body: {
        kind: 'APIVersions',
        versions: core ? core.versions : [],
        serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: this.serverAddress() }],
      },
    };
  }

  /** `/apis`. */
  groupList(accept: string | undefined): DiscoveryAnswer {
    if (this.aggregatedEnabled && Discovery.wantsAggregated(accept)) return this.aggregatedAnswer(false);
    return {
      contentType: 'application/json',
      body: { kind: 'APIGroupList', apiVersion: 'v1', groups: this.index().groups.filter((g) => g.name !== '').map((g) => groupDoc(g)) },
    };
  }

  /** `/apis/<group>`; undefined when the group is not served. */
  group(name: string): DiscoveryAnswer | undefined {
    const g = this.index().groups.find((x) => x.name === name && name !== '');
    if (!g) return undefined;
    return { contentType: 'application/json', body: { kind: 'APIGroup', apiVersion: 'v1', ...groupDoc(g) } };
  }

  /** `/api/v1` and `/apis/<group>/<version>`; undefined when not served. */
  resourceList(group: string, version: string): DiscoveryAnswer | undefined {
    const stores = this.index().byGV.get(`${group}/${version}`);
    if (!stores) return undefined;
    const groupVersion = group === '' ? version : `${group}/${version}`;
    const resources: Record<string, unknown>[] = [];
    for (const s of stores) resources.push(...apiResources(s.definition, this.servedSubresources(s.definition)));
    resources.sort((a, b) => String(a.name).localeCompare(String(b.name)));
    const body: Record<string, unknown> = { kind: 'APIResourceList' };
    // Kubernetes omits apiVersion on the core group's list.
    if (group !== '') body.apiVersion = 'v1';
    body.groupVersion = groupVersion;
    body.resources = resources;
    return { contentType: 'application/json', body };
  }

  /** The aggregated document with its ETag, built once per table state. */
  private aggregatedAnswer(core: boolean): DiscoveryAnswer {
    const index = this.index();
    let answer = index.aggregated.get(core);
    if (!answer) {
      const body = this.aggregated(core);
      const etag = `"${createHash('sha512').update(JSON.stringify(body)).digest('hex').toUpperCase()}"`;
      answer = { contentType: this.aggregatedContentType(), body, headers: { ETag: etag, 'Cache-Control': 'public' } };
      index.aggregated.set(core, answer);
    }
    return answer;
  }

  private aggregated(core: boolean): unknown {
    const { groups, byGV, remote } = this.index();
    const items = groups
      .filter((g) => (g.name === '') === core)
      .map((g) => {
        const metadata: Record<string, unknown> = { creationTimestamp: null };
        if (g.name) metadata.name = g.name;
        return {
          metadata,
          versions: g.versions.map((v) => ({
            version: v,
            resources: (remote.has(`${g.name}/${v}`) ? aggregatedFromLegacy(g.name, v, remote.get(`${g.name}/${v}`)!) : (byGV.get(`${g.name}/${v}`) ?? []).map((s) => aggregatedResource(s.definition, this.servedSubresources(s.definition)))).sort((a, b) =>
              byteOrder(String(a.resource), String(b.resource)),
            ),
            freshness: 'Current',
          })),
        };
      });
    return { kind: AGGREGATED_AS, apiVersion: `${discoveryGroup()}/v2beta1`, metadata: {}, items };
  }
}

function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function gvDoc(group: string, version: string): { groupVersion: string; version: string } {
  return { groupVersion: group === '' ? version : `${group}/${version}`, version };
}

function groupDoc(g: GroupInfo): Record<string, unknown> {
  return { name: g.name, versions: g.versions.map((v) => gvDoc(g.name, v)), preferredVersion: gvDoc(g.name, g.preferred) };
}

function resourceVerbs(d: ResourceDefinition): string[] {
  return d.customResource ? orderedVerbs(d.verbs, CUSTOM_RESOURCE_VERBS) : d.verbs;
}

function subresourceVerbs(d: ResourceDefinition, verbs: string[]): string[] {
  return d.customResource ? orderedVerbs(verbs, SUBRESOURCE_VERBS) : verbs;
}

function apiResources(d: ResourceDefinition, subresources: SubresourceDefinition[]): Record<string, unknown>[] {
  const main: Record<string, unknown> = { name: d.resource, singularName: d.singularName, namespaced: d.namespaced, kind: d.kind, verbs: resourceVerbs(d) };
  if (d.shortNames.length > 0) main.shortNames = d.shortNames;
  if (d.categories.length > 0) main.categories = d.categories;
  if (d.storage) {
    const kind = d.kind;
    main.storageVersionHash = storageVersionHash(d.storage.group, d.storage.version, kind);
  }
  const out = [main];
  for (const sub of subresources) {
    const r: Record<string, unknown> = { name: `${d.resource}/${sub.name}`, singularName: '', namespaced: d.namespaced };
    if (sub.group !== undefined && (sub.group !== d.group || (sub.version ?? d.version) !== d.version)) {
      r.group = sub.group;
      r.version = sub.version ?? d.version;
    }
    r.kind = sub.kind;
    r.verbs = subresourceVerbs(d, sub.verbs);
    out.push(r);
  }
  return out;
}

function aggregatedResource(d: ResourceDefinition, subresources: SubresourceDefinition[]): Record<string, unknown> {
  const r: Record<string, unknown> = {
    resource: d.resource,
    responseKind: { group: d.group, version: d.version, kind: d.kind },
    scope: d.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: d.singularName,
    verbs: resourceVerbs(d),
  };
  if (d.shortNames.length > 0) r.shortNames = d.shortNames;
  if (d.categories.length > 0) r.categories = d.categories;
  if (subresources.length > 0) {
    r.subresources = subresources.map((s) => ({
      subresource: s.name,
      responseKind: { group: s.group ?? d.group, version: s.version ?? d.version, kind: s.kind },
      verbs: subresourceVerbs(d, s.verbs),
    }));
  }
  return r;
}

/**
 * A remote group-version's legacy APIResource list in the aggregated form: `x/y` entries
 * become subresources of `x`, as kube-aggregator converts servers that serve no aggregated
 * document. Entries that are not objects or lack a name are skipped.
 */
export function aggregatedFromLegacy(group: string, version: string, resources: readonly unknown[]): Record<string, unknown>[] {
  const out = new Map<string, Record<string, unknown>>();
  const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  const kindOf = (r: Record<string, unknown>): Record<string, unknown> => ({
    group: typeof r.group === 'string' ? r.group : group,
    version: typeof r.version === 'string' ? r.version : version,
    kind: typeof r.kind === 'string' ? r.kind : '',
  });
  const items = resources.filter((r): r is Record<string, unknown> => typeof r === 'object' && r !== null && !Array.isArray(r) && typeof (r as Record<string, unknown>).name === 'string');
  for (const r of items) {
    const name = r.name as string;
    if (name.includes('/')) continue;
    const entry: Record<string, unknown> = {
      resource: name,
      responseKind: kindOf(r),
      scope: r.namespaced === true ? 'Namespaced' : 'Cluster',
      singularResource: typeof r.singularName === 'string' ? r.singularName : '',
      verbs: strings(r.verbs),
    };
    if (strings(r.shortNames).length > 0) entry.shortNames = strings(r.shortNames);
    if (strings(r.categories).length > 0) entry.categories = strings(r.categories);
    out.set(name, entry);
  }
  for (const r of items) {
    const name = r.name as string;
    const slash = name.indexOf('/');
    if (slash < 0) continue;
    const parent = out.get(name.slice(0, slash));
    if (!parent) continue;
    const subs = (parent.subresources ??= []) as Record<string, unknown>[];
    subs.push({ subresource: name.slice(slash + 1), responseKind: kindOf(r), verbs: strings(r.verbs) });
  }
  return [...out.values()];
}
