// Binding a pod to a node: `pods/x/binding` and the core `bindings` resource. A binding
// sets `spec.nodeName` of an unbound pod and marks it scheduled; it is written straight to
// storage because a pod's update rules forbid changing the node (the scheduler's write).
import { ApiError, badRequest, conflict, notFound, notSupportedField, requiredField, type FieldError } from '../apimachinery/errors.js';
import type { KubeObject } from '../apimachinery/types.js';
import { isPlainObject } from '../apimachinery/types.js';
import type { Storage } from '../storage/interface.js';
import { encodeForStorage, jsonCodec, type ObjectCodec } from '../codec/storage.js';
import { isStorageConflict, isStorageNotFound } from './errors.js';
import { objectKey } from './keys.js';
import type { CreateOptions, RESTStore, RequestContext, ResourceDefinition, ResourceTable, SubresourceDefinition, SubresourceStore } from '../rest/index.js';
import { serveResourceHandler, serveSubresourceHandler } from './subresources.js';
import { rfc3339 } from '../apimachinery/time.js';

export interface PodBinderOptions {
  storage: Storage;
  /** The codec pods are stored with (the same as their Store's). */
  codec?: ObjectCodec;
  /** The pods definition (its storage location and key layout). */
  pods: ResourceDefinition;
  now?: () => Date;
}

const MAX_ATTEMPTS = 16;


function record(value: unknown): Record<string, unknown> {
  return isPlainObject(value) ? (value as Record<string, unknown>) : {};
}

/** A field problem of a Binding; Kubernetes returns these as a plain (500, Unknown) error. */
function validateBinding(binding: KubeObject): FieldError[] {
  const target = record(binding.target);
  const errs: FieldError[] = [];
  const kind = typeof target.kind === 'string' ? target.kind : '';
  if (kind !== '' && kind !== 'Node') errs.push(notSupportedField('target.kind', kind, ['Node', '<empty>']));
  if (typeof target.name !== 'string' || target.name === '') errs.push(requiredField('target.name'));
  return errs;
}

function aggregate(errs: FieldError[]): ApiError {
  const rendered = errs.map((e) => `${e.field}: ${e.detail}`);
  return new ApiError(500, 'Unknown', rendered.length === 1 ? rendered[0] : `[${rendered.join(', ')}]`);
}

/** The PodScheduled condition set to True now, replacing any earlier one. */
function markScheduled(pod: KubeObject, now: Date): void {
  const status = record(pod.status);
  pod.status = status;
  const conditions = Array.isArray(status.conditions) ? (status.conditions as unknown[]) : [];
  const scheduled = { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: rfc3339(now) };
  const i = conditions.findIndex((c) => record(c).type === 'PodScheduled');
  if (i < 0) conditions.push(scheduled);
  else {
    // Kubernetes keeps the transition time when the status does not change.
    const old = record(conditions[i]);
    if (old.status === 'True' && typeof old.lastTransitionTime === 'string') scheduled.lastTransitionTime = old.lastTransitionTime;
    conditions[i] = scheduled;
  }
  status.conditions = conditions;
}

export class PodBinder {
  private readonly storage: Storage;
  private readonly codec: ObjectCodec;
  private readonly pods: ResourceDefinition;
  private readonly now: () => Date;

  constructor(opts: PodBinderOptions) {
    if (!opts.pods.storage) throw new Error('pods: a binder needs the stored pods definition');
    this.storage = opts.storage;
    this.codec = opts.codec ?? jsonCodec;
    this.pods = opts.pods;
    this.now = opts.now ?? (() => new Date());
  }

  /**
   * Binds pod `name` as `binding` asks: validation, admission (`opts.validate`), then the
   * write. Answers the Success Status a binding create returns.
   */
  async bind(namespace: string, name: string, binding: KubeObject, opts: CreateOptions): Promise<KubeObject> {
    const meta = binding.metadata ?? {};
    if (meta.namespace && namespace && meta.namespace !== namespace) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    if ((meta.name ?? '') !== name) throw badRequest('name in URL does not match name in Binding object');
    const errs = validateBinding(binding);
    if (errs.length > 0) throw aggregate(errs);
    if (opts.validate) await opts.validate(binding, undefined);
    if (!name) throw badRequest('Name parameter required.');
    if (!namespace) throw badRequest('Namespace parameter required.');
    await this.assign(namespace, name, binding, opts.dryRun);
    return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };
  }

  private async assign(namespace: string, name: string, binding: KubeObject, dryRun: boolean): Promise<void> {
    if (name.includes('/') || namespace.includes('/')) throw notFound({ group: '', resource: 'pods' }, name);
    const storage = this.pods.storage as NonNullable<ResourceDefinition['storage']>;
    const key = objectKey(this.pods, storage, namespace, name);
    const node = String(record(binding.target).name);
    const wanted = binding.metadata ?? {};
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const { item } = await this.storage.get(key);
      if (!item) throw notFound({ group: '', resource: 'pods' }, name);
      const pod = this.codec.decode(item.value);
      const m = (pod.metadata ??= {});
      // The binding's uid and resourceVersion are preconditions on the pod.
      if (wanted.uid && wanted.uid !== m.uid) {
        throw conflict({ group: '', resource: 'pods' }, name, `Precondition failed: UID in precondition: ${wanted.uid}, UID in object meta: ${m.uid ?? ''}`);
      }
      if (wanted.resourceVersion && wanted.resourceVersion !== String(item.modRevision)) {
        throw conflict(
          { group: '', resource: 'pods' },
          name,
          `Precondition failed: ResourceVersion in precondition: ${wanted.resourceVersion}, ResourceVersion in object meta: ${item.modRevision}`,
        );
      }
      const spec = record(pod.spec);
      pod.spec = spec;
      const refuse = (why: string): ApiError => conflict({ group: '', resource: 'pods/binding' }, name, why);
      if (m.deletionTimestamp) throw refuse(`pod ${name} is being deleted, cannot be assigned to a host`);
      const current = typeof spec.nodeName === 'string' ? spec.nodeName : '';
      if (current !== '') throw refuse(`pod ${name} is already assigned to node ${JSON.stringify(current)}`);
      if (Array.isArray(spec.schedulingGates) && spec.schedulingGates.length > 0) throw refuse(`pod ${name} has non-empty .spec.schedulingGates`);
      spec.nodeName = node;
      const annotations = record(wanted.annotations);
      if (Object.keys(annotations).length > 0) m.annotations = { ...(m.annotations ?? {}), ...(annotations as Record<string, string>) };
      markScheduled(pod, this.now());
      if (dryRun) return;
      try {
        await this.storage.update(key, encodeForStorage(this.codec, pod), item.modRevision);
        return;
      } catch (e) {
        if (isStorageConflict(e)) continue;
        if (isStorageNotFound(e)) throw notFound({ group: '', resource: 'pods' }, name);
        throw e;
      }
    }
    throw conflict({ group: '', resource: 'pods' }, name);
  }

  /** The store of `pods/binding` (`definition`). */
  storeFor(definition: SubresourceDefinition): SubresourceStore {
    return { resource: this.pods, definition, create: (_ctx, namespace, name, obj, opts) => this.bind(namespace, name, obj, opts) };
  }
}

/** The core `bindings` resource: the pod is the one the Binding names. */
export class BindingStore implements RESTStore {
  constructor(
    readonly definition: ResourceDefinition,
    private readonly binder: PodBinder,
  ) {}

  async create(_ctx: RequestContext, namespace: string, obj: KubeObject, opts: CreateOptions): Promise<KubeObject> {
    return this.binder.bind(namespace, obj.metadata?.name ?? '', obj, opts);
  }
}

/**
 * Serves `pods/x/binding` where declared and the `bindings` resource where the definitions
 * list it, in `table`. Pass the storage and codec the pods Store was built with.
 */
export function installPodBinding(
  table: ResourceTable,
  definitions: ResourceDefinition[],
  opts: { storage: Storage; codec?: ObjectCodec; now?: () => Date },
): PodBinder | undefined {
  const binders: PodBinder[] = [];
  serveSubresourceHandler(table, 'PodBinding', (pods, definition) => {
    const binder = new PodBinder({ ...opts, pods: pods.definition });
    binders.push(binder);
    return binder.storeFor(definition);
  });
  const binder = binders[0];
  if (!binder) return undefined;
  serveResourceHandler(table, definitions, 'Bindings', (bindings) => new BindingStore(bindings, binder));
  return binder;
}
