// The finalizer controller: a deleted definition first loses its custom resources (in every
// namespace, through the storage version's endpoint), waits until none is left (their own
// finalizers are honoured), then drops the cleanup finalizer so the definition goes. The
// `Terminating` condition tells where it stands.
import { deepCopy } from '../../apimachinery/copy.js';
import { isApiError } from '../../apimachinery/errors.js';
import type { GroupVersionResource, KubeObject } from '../../apimachinery/types.js';
import {
  apiextensionsGroup,
  customResourceCleanupFinalizer,
  findCondition,
  hasFinalizer,
  isConditionTrue,
  setCondition,
  storageVersionOf,
  type CRDCondition,
} from '../../apis/apiextensions/index.js';
import { canDeleteCollection } from '../../client/extended.js';
import type { ApiClient } from '../../client/types.js';
import { group } from '../../naming/index.js';
import { CRDController, type CRDControllerOptions } from './controller.js';

export interface FinalizerControllerOptions extends CRDControllerOptions {
  /** How long to wait before looking again at instances still going away. */
  instancesRemainingDelayMs?: number;
}

/** Definitions whose instances would be the built-in objects stored under the same key. */
function overlapsBuiltIn(g: string, plural: string): boolean {
  return (g === apiextensionsGroup() && plural === 'customresourcedefinitions') || (g === group('apiregistration') && plural === 'apiservices');
}

/**
 * The version whose endpoint the instances are deleted through: the storage version, or a
 * served one when the storage version is not served (every version reaches the same objects).
 */
export function deletionVersion(crd: KubeObject): string {
  const storage = storageVersionOf(crd);
  const versions = ((crd.spec as { versions?: { name?: string; served?: boolean }[] } | undefined)?.versions ?? []).filter((v) => v.served === true);
  if (storage && versions.some((v) => v.name === storage)) return storage;
  return versions[0]?.name ?? storage ?? '';
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function aggregate(errors: string[]): string {
  return errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`;
}

type Outcome = { condition: CRDCondition; error?: Error; remaining?: number };

/**
 * Deletes every instance of `r` and counts what is left. A resource that is not served (404)
 * has no instance a client could have written.
 */
export async function deleteInstances(client: ApiClient, r: GroupVersionResource): Promise<Outcome> {
  const failed = (reason: string, text: string, error: Error): Outcome => ({
    condition: { type: 'Terminating', status: 'True', reason, message: text },
    error,
  });
  let items: KubeObject[];
  try {
    items = (await client.list(r, '')).items;
  } catch (err) {
    if (isApiError(err) && err.code === 404) items = [];
    else return failed('InstanceDeletionFailed', `could not list instances: ${message(err)}`, err instanceof Error ? err : new Error(message(err)));
  }
  const namespaces = [...new Set(items.map((i) => i.metadata?.namespace ?? ''))];
  const errors: string[] = [];
  for (const ns of namespaces) {
    try {
      if (canDeleteCollection(client)) await client.deleteCollection(r, ns, { propagationPolicy: 'Background' });
      else {
        for (const item of items.filter((i) => (i.metadata?.namespace ?? '') === ns && !i.metadata?.deletionTimestamp)) {
          await client.delete(r, ns, item.metadata?.name ?? '').catch((err: unknown) => {
            if (!(isApiError(err) && err.code === 404)) throw err;
          });
        }
      }
    } catch (err) {
      if (!(isApiError(err) && err.code === 404)) errors.push(message(err));
    }
  }
  if (errors.length > 0) {
    return failed('InstanceDeletionFailed', `could not issue all deletes: ${aggregate(errors)}`, new Error(aggregate(errors)));
  }
  let remaining = 0;
  if (items.length > 0) {
    try {
      remaining = (await client.list(r, '')).items.length;
    } catch (err) {
      if (!(isApiError(err) && err.code === 404)) {
        return failed('InstanceDeletionCheck', `could not confirm zero CustomResources remaining: ${message(err)}`, err instanceof Error ? err : new Error(message(err)));
      }
    }
  }
  if (remaining > 0) {
    return { condition: { type: 'Terminating', status: 'True', reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress' }, remaining };
  }
  return { condition: { type: 'Terminating', status: 'False', reason: 'InstanceDeletionCompleted', message: 'removed all instances' } };
}

function ignorable(err: unknown): boolean {
  return isApiError(err) && (err.code === 404 || err.code === 409);
}

export class FinalizerController extends CRDController {
  constructor(private readonly options: FinalizerControllerOptions) {
    super(options, 'finalizer', 'crd_finalizer');
    const enqueue = (crd: KubeObject): void => {
      if (crd.metadata?.deletionTimestamp && hasFinalizer(crd, customResourceCleanupFinalizer())) this.enqueue(crd);
    };
    this.handle({ onAdd: enqueue, onUpdate: (_old, crd) => enqueue(crd) });
  }

  async sync(name: string): Promise<void> {
    const cached = this.informer.get('', name);
    if (!cached?.metadata?.deletionTimestamp || !hasFinalizer(cached, customResourceCleanupFinalizer())) return;
    let crd = deepCopy(cached) as KubeObject;
    const inProgress: CRDCondition = { type: 'Terminating', status: 'True', reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress' };
    const before = findCondition(crd, 'Terminating');
    if (!before || before.status !== 'True' || before.reason !== inProgress.reason || before.message !== inProgress.message) {
      setCondition(crd, inProgress);
      try {
        crd = await this.updateStatus(crd);
      } catch (err) {
        if (ignorable(err)) return;
        throw err;
      }
    }

    const spec = (crd.spec ?? {}) as { group?: string; names?: { plural?: string } };
    const g = spec.group ?? '';
    const plural = spec.names?.plural ?? '';
    if (overlapsBuiltIn(g, plural)) {
      setCondition(crd, { type: 'Terminating', status: 'False', reason: 'OverlappingBuiltInResource', message: 'instances overlap with built-in resources in storage' });
    } else if (isConditionTrue(crd, 'Established')) {
      const outcome = await deleteInstances(this.opts.client, { group: g, version: deletionVersion(crd), resource: plural });
      setCondition(crd, outcome.condition);
      if (outcome.error) {
        await this.updateStatus(crd).catch((err: unknown) => this.opts.onError?.(err));
        throw outcome.error;
      }
      if (outcome.remaining !== undefined) {
        // Instances with finalizers of their own: look again shortly.
        this.queue.addAfter(name, this.options.instancesRemainingDelayMs ?? 500);
        return;
      }
    } else {
      setCondition(crd, { type: 'Terminating', status: 'False', reason: 'NeverEstablished', message: 'resource was never established' });
    }

    const m = (crd.metadata ??= {});
    m.finalizers = (m.finalizers ?? []).filter((f) => f !== customResourceCleanupFinalizer());
    try {
      await this.updateStatus(crd);
    } catch (err) {
      if (!ignorable(err)) throw err;
    }
  }
}
