// Autoregistration: the APIServices for the group-versions this server serves, created,
// updated and deleted to follow the resource table (kube's autoregister controller).
import { isApiError } from '../apimachinery/errors.js';
import type { KubeObject } from '../apimachinery/types.js';
import { builtinAPIServicePriority, CUSTOM_RESOURCE_PRIORITY } from '../apis/apiregistration/index.js';
import type { Informer } from '../client/informer.js';
import type { ApiClient } from '../client/types.js';
import { group as servedGroup, longDomainKey, shortWord } from '../naming/index.js';
import type { ResourceTable } from '../rest/index.js';

export const apiServicesResource = () => ({ group: servedGroup('apiregistration'), version: 'v1', resource: 'apiservices' });

/** The label autoregistered APIServices carry: `onstart` for built-in group-versions, `true` for custom resources'. */
export function automanagedLabel(): string {
  return longDomainKey('automanaged', `${shortWord()}-aggregator`);
}

/** The local APIServices the resource table calls for, by name. */
export function desiredLocalAPIServices(table: ResourceTable): Map<string, KubeObject> {
  const out = new Map<string, KubeObject>();
  const apiVersion = `${servedGroup('apiregistration')}/v1`;
  for (const store of table.all()) {
    const d = store.definition;
    // The core group's is `v1.`, as kube names it.
    const name = `${d.version}.${d.group}`;
    if (out.has(name)) continue;
    const priority = d.customResource ? CUSTOM_RESOURCE_PRIORITY : builtinAPIServicePriority(d.group, d.version);
    // kube registers no APIService for a built-in group-version missing from its table.
    if (!priority) continue;
    out.set(name, {
      apiVersion,
      kind: 'APIService',
      metadata: { name, labels: { [automanagedLabel()]: d.customResource ? 'true' : 'onstart' } },
      spec: { group: d.group, version: d.version, groupPriorityMinimum: priority.group, versionPriority: priority.version },
    });
  }
  return out;
}

function specDiffers(current: KubeObject, desired: KubeObject): boolean {
  return JSON.stringify(current.spec ?? {}) !== JSON.stringify(desired.spec);
}

/** One pass at a time; a request during a pass runs another after it. */
export class Autoregistration {
  /** The pass under way, if any. */
  pending: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  constructor(
    private readonly client: ApiClient,
    private readonly table: ResourceTable,
    private readonly apiServices: Informer,
    private readonly log: (line: string) => void,
  ) {}

  /** Creates, updates and deletes the automanaged APIServices to match the resource table. */
  run(): void {
    if (this.stopped || !this.apiServices.hasSynced()) return;
    if (this.pending) {
      this.again = true;
      return;
    }
    this.pending = (async () => {
      do {
        this.again = false;
        try {
          await this.once();
        } catch (err) {
          this.log(`autoregistration: ${err instanceof Error ? err.message : String(err)}`);
        }
      } while (this.again && !this.stopped);
    })().finally(() => {
      this.pending = undefined;
    });
  }

  stop(): void {
    this.stopped = true;
  }

  private async once(): Promise<void> {
    const desired = desiredLocalAPIServices(this.table);
    const label = automanagedLabel();
    const r = apiServicesResource();
    // Concurrently: on a fresh store these are some forty writes before the server is ready.
    await Promise.all(
      [...desired].map(async ([name, want]) => {
        const have = this.apiServices.get('', name);
        try {
          if (!have) await this.client.create(r, '', want);
          else if (have.metadata?.labels?.[label] !== undefined && specDiffers(have, want)) await this.client.update(r, '', { ...have, spec: want.spec });
        } catch (err) {
          if (!isApiError(err) || (err.code !== 409 && err.code !== 404)) throw err;
        }
      }),
    );
    for (const have of this.apiServices.list()) {
      const name = have.metadata?.name ?? '';
      if (have.metadata?.labels?.[label] === undefined || desired.has(name)) continue;
      try {
        await this.client.delete(r, '', name);
      } catch (err) {
        if (!isApiError(err) || err.code !== 404) throw err;
      }
    }
  }
}
