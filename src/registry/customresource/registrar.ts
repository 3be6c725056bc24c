// Keeps the resource table in step with the CustomResourceDefinitions: an informer over the
// definitions adds the versions of established ones (GenericStores sharing one watch cache
// per definition), replaces them when what they serve changes, and removes them, stopping
// the watch cache so that open watches end, when a version or the definition goes.
import type { GroupVersionResource, KubeObject } from '../../apimachinery/types.js';
import { Informer } from '../../client/informer.js';
import type { ApiClient } from '../../client/types.js';
import type { ObjectCodec } from '../../codec/storage.js';
import { group } from '../../naming/index.js';
import type { ResourceDefinition, ResourceTable } from '../../rest/index.js';
import { createCacher, type Cacher, type CacherOptions, type Storage } from '../../storage/index.js';
import { resourcePrefix } from '../keys.js';
import { storesOfSubresources } from '../subresources.js';
import { readCRD } from './crd.js';
import type { ConversionWebhookTransport } from './conversion.js';
import { customResourceDefinitions } from './definitions.js';
import { CustomResourceStore, type TerminatingFlag } from './store.js';

export interface CustomResourceRegistrarOptions {
  /** Lists and watches the definitions (the in-process client in the server). */
  client: ApiClient;
  table: ResourceTable;
  storage: Storage;
  cacherOptions?: CacherOptions;
  codec?: ObjectCodec;
  waitTimeoutMs?: number;
  maxObjectSizeBytes?: number;
  now?: () => Date;
  /** How conversion webhooks are called; without it a `Webhook` conversion fails with a 500. */
  conversionTransport?: ConversionWebhookTransport;
  /** Whether `x-kubernetes-validations` rules are evaluated (the CustomResourceValidationExpressions gate; default true). */
  celValidation?: boolean;
  onError?: (err: unknown) => void;
}

/** The CustomResourceDefinition resource of the running flavor. */
export function crdResource(): GroupVersionResource {
  return { group: group('apiextensions'), version: 'v1', resource: 'customresourcedefinitions' };
}

interface Served {
  /** What the stores were built from; a change rebuilds them. */
  fingerprint: string;
  prefix: string;
  cacher: Cacher;
  definitions: ResourceDefinition[];
  flag: TerminatingFlag;
}

/** What of a definition its stores depend on (not its conditions or resource version). */
function fingerprint(crd: KubeObject): string {
  const status = (crd.status ?? {}) as Record<string, unknown>;
  return JSON.stringify([crd.metadata?.uid, crd.spec, status.acceptedNames], (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
}

export class CustomResourceRegistrar {
  private readonly informer: Informer;
  /** By definition name. */
  private readonly served = new Map<string, Served>();
  private stopped = false;

  constructor(private readonly opts: CustomResourceRegistrarOptions) {
    // Endpoints must follow a definition within about a second: no resync needed, events suffice.
    this.informer = new Informer(opts.client, crdResource(), { onError: opts.onError });
    this.informer.addEventHandler({
      onAdd: (obj) => this.sync(obj),
      onUpdate: (_old, obj) => this.sync(obj),
      onDelete: (obj) => void this.remove(obj.metadata?.name ?? ''),
    });
  }

  /** Starts following the definitions; resolves when the existing ones are served. */
  async start(): Promise<void> {
    this.informer.start();
    await this.informer.waitForSync();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.informer.stop();
    const names = [...this.served.keys()];
    await Promise.all(names.map((n) => this.remove(n)));
  }

  private sync(crd: KubeObject): void {
    if (this.stopped) return;
    const name = crd.metadata?.name ?? '';
    try {
      const view = readCRD(crd);
      if (!view.established || view.group === '' || view.names.plural === '' || view.names.kind === '') {
        void this.remove(name);
        return;
      }
      const current = this.served.get(name);
      const print = fingerprint(crd);
      if (current && current.fingerprint === print) {
        current.flag.terminating = view.terminating;
        return;
      }
      const definitions = customResourceDefinitions(crd, { transport: this.opts.conversionTransport }, this.opts.celValidation ?? true);
      const storage = definitions[0]?.storage;
      if (!storage) {
        void this.remove(name);
        return;
      }
      const prefix = resourcePrefix(storage);
      let cacher = current?.cacher;
      if (!current || current.prefix !== prefix) {
        if (current) void this.remove(name);
        cacher = createCacher(this.opts.storage, prefix, this.opts.cacherOptions);
      }
      const flag: TerminatingFlag = current?.flag ?? { terminating: false };
      flag.terminating = view.terminating;
      const storeOpts = {
        storage: this.opts.storage,
        cacher: cacher as Cacher,
        codec: this.opts.codec,
        waitTimeoutMs: this.opts.waitTimeoutMs,
        maxObjectSizeBytes: this.opts.maxObjectSizeBytes,
        now: this.opts.now,
      };
      const stale = (current?.prefix === prefix ? current.definitions : []).filter(
        (old) => !definitions.some((d) => d.version === old.version && d.resource === old.resource),
      );
      this.served.set(name, { fingerprint: print, prefix, cacher: cacher as Cacher, definitions, flag });
      for (const old of stale) this.removeStore(old, name);
      for (const def of definitions) {
        // Built-in resources answer first, as kube-apiserver's handler chain tries them first.
        const existing = this.opts.table.lookup({ group: def.group, version: def.version }, def.resource);
        if (existing && !existing.definition.customResource) continue;
        const store = new CustomResourceStore(def, storeOpts, flag);
        this.opts.table.add(store, storesOfSubresources(store));
      }
    } catch (err) {
      this.opts.onError?.(err);
    }
  }

  private async remove(name: string): Promise<void> {
    const current = this.served.get(name);
    if (!current) return;
    this.served.delete(name);
    for (const def of current.definitions) this.removeStore(def, name);
    await current.cacher.stop();
  }

  /** Removes the store of `def` when it is still the one of definition `name`. */
  private removeStore(def: ResourceDefinition, name: string): void {
    const gv = { group: def.group, version: def.version };
    const store = this.opts.table.lookup(gv, def.resource);
    if (store?.definition.customResource?.crdName === name) this.opts.table.remove(gv, def.resource);
  }
}
