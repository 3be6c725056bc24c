// NamespaceLifecycle: no new content in a namespace that does not exist or is being
// terminated, and the namespaces the system needs cannot be deleted. Namespaces are read
// from an informer's cache; a miss (a namespace created a moment ago) and a namespace that
// was just deleted are looked up live, so the cache's lag never lets a request through
// wrongly nor refuses one wrongly.
import { forbidden, internalError, isApiError, notFound, type ApiError } from '../apimachinery/errors.js';
import type { KubeObject } from '../apimachinery/types.js';
import type { ApiClient } from '../client/types.js';
import { Informer } from '../client/informer.js';
import { group, systemNamespace } from '../naming/index.js';
import type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from './types.js';

const NAMESPACE_LIFECYCLE = 'NamespaceLifecycle';

const NAMESPACES = { group: '', version: 'v1', resource: 'namespaces' };

/** How long after a namespace DELETE its cached state is not trusted. */
const FORCE_LIVE_LOOKUP_MS = 30_000;

interface NamespaceLifecycleOptions {
  /** Start the namespace informer at once rather than on the first request. */
  startInformer?: boolean;
  /** A namespace informer shared with others (its owner stops it); one is made when absent. */
  informer?: Informer;
}

/** `default`, and the system and public namespaces of the flavor. */
export function immortalNamespaces(): Set<string> {
  return new Set(['default', systemNamespace('system'), systemNamespace('public')]);
}

function isNamespaceKind(attrs: AdmissionAttributes): boolean {
  return attrs.kind.group === '' && attrs.kind.kind === 'Namespace';
}

/** Access reviews answer questions about a namespace; refusing them would leak its state. */
function isAccessReview(attrs: AdmissionAttributes): boolean {
  return attrs.resource.group === group('authorization') && attrs.resource.resource === 'localsubjectaccessreviews';
}

/** The name admission errors speak of: the request's, or the object's (generateName before a name exists). */
function resourceName(attrs: AdmissionAttributes): string {
  if (attrs.name) return attrs.name;
  const meta = attrs.object?.metadata;
  return meta?.name || meta?.generateName || 'Unknown';
}

function terminating(attrs: AdmissionAttributes): ApiError {
  const err = forbidden(
    { group: attrs.resource.group, resource: attrs.resource.resource },
    resourceName(attrs),
    `unable to create new content in namespace ${attrs.namespace} because it is being terminated`,
  );
  err.status.details = {
    ...err.status.details,
    causes: [{ reason: 'NamespaceTerminating', message: `namespace ${attrs.namespace} is being terminated`, field: 'metadata.namespace' }],
  };
  return err;
}

function phaseOf(ns: KubeObject): string | undefined {
  const status = ns.status as { phase?: unknown } | undefined;
  return typeof status?.phase === 'string' ? status.phase : undefined;
}

export class NamespaceLifecycle implements AdmissionPlugin {
  readonly name = NAMESPACE_LIFECYCLE;
  private readonly informer: Informer;
  private readonly ownsInformer: boolean;
  private started = false;
  private readonly forceLiveLookup = new Map<string, number>();

  constructor(
    private readonly client: ApiClient,
    opts: NamespaceLifecycleOptions = {},
  ) {
    this.ownsInformer = !opts.informer;
    this.informer = opts.informer ?? new Informer(client, NAMESPACES);
    if (opts.startInformer) this.start();
  }

  handles(operation: AdmissionOperation): boolean {
    return operation === 'CREATE' || operation === 'UPDATE' || operation === 'DELETE';
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.informer.start();
  }

  async stop(): Promise<void> {
    if (this.ownsInformer) await this.informer.stop();
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    this.start();
    if (attrs.operation === 'DELETE' && isNamespaceKind(attrs) && immortalNamespaces().has(attrs.name)) {
      throw forbidden({ group: attrs.resource.group, resource: attrs.resource.resource }, attrs.name, 'this namespace may not be deleted');
    }
    if (attrs.namespace === '' && !isNamespaceKind(attrs)) return;
    if (isNamespaceKind(attrs)) {
      // The cache may not show the deletion yet: read the next requests' namespace live.
      if (attrs.operation === 'DELETE') this.forceLiveLookup.set(attrs.name, Date.now() + FORCE_LIVE_LOOKUP_MS);
      return;
    }
    if (attrs.operation === 'DELETE' || isAccessReview(attrs)) return;

    const namespace = await this.lookup(attrs.namespace);
    if (attrs.operation === 'CREATE' && phaseOf(namespace) === 'Terminating') throw terminating(attrs);
  }

  /** The namespace from the cache, or live when the cache misses it or may be stale. */
  private async lookup(name: string): Promise<Readonly<KubeObject>> {
    // Only its phase is read: the cached object itself, not a copy.
    const cached = this.informer.hasSynced() ? this.informer.get('', name) : undefined;
    const until = this.forceLiveLookup.get(name);
    let forceLive = false;
    if (until !== undefined) {
      if (until < Date.now()) this.forceLiveLookup.delete(name);
      else forceLive = cached !== undefined && phaseOf(cached) !== 'Terminating';
    }
    if (cached && !forceLive) return cached;
    try {
      return await this.client.get(NAMESPACES, '', name);
    } catch (err) {
      if (isApiError(err) && err.code === 404) throw notFound({ group: '', resource: 'namespaces' }, name);
      throw internalError(err);
    }
  }
}
