// The namespaces store: a namespace's deletion is two-phase. Deleting marks it Terminating
// (deletionTimestamp, status.phase) and keeps it while `spec.finalizers` lists anyone; the
// namespace controller empties it and removes its finalizer through `namespaces/x/finalize`,
// and the namespace goes once both finalizer lists are empty.
import type { FieldError } from '../apimachinery/errors.js';
import { invalid, invalidField, notFound } from '../apimachinery/errors.js';
import { isQualifiedName } from '../apimachinery/labels.js';
import type { KubeObject } from '../apimachinery/types.js';
import { namespaceFinalizer } from '../naming/index.js';
import type { DeletePlan } from './graceful.js';
import { GenericStore } from './store.js';
import type { DeleteOptions, RequestContext, UpdatedObjectInfo, UpdateOptions, UpdateResult } from '../rest/index.js';

type Spec = { finalizers?: string[]; [k: string]: unknown };
type Status = { phase?: string; [k: string]: unknown };

function specOf(obj: KubeObject): Spec {
  if (typeof obj.spec !== 'object' || obj.spec === null || Array.isArray(obj.spec)) obj.spec = {};
  return obj.spec as Spec;
}

function statusOf(obj: KubeObject): Status {
  if (typeof obj.status !== 'object' || obj.status === null || Array.isArray(obj.status)) obj.status = {};
  return obj.status as Status;
}

function specFinalizers(obj: KubeObject): string[] {
  const spec = obj.spec as Spec | undefined;
  return Array.isArray(spec?.finalizers) ? spec.finalizers : [];
}

/** `spec.finalizers` entries: the standard one, or a domain-qualified name. */
function validateSpecFinalizers(finalizers: string[]): FieldError[] {
  const errs: FieldError[] = [];
  finalizers.forEach((f, i) => {
    const path = `spec.finalizers[${i}]`;
    const msgs = isQualifiedName(f);
    for (const msg of msgs) errs.push(invalidField(path, f, msg));
    if (msgs.length === 0 && !f.includes('/') && f !== namespaceFinalizer()) {
      errs.push(invalidField(path, f, 'name is neither a standard finalizer name nor is it fully qualified'));
    }
  });
  return errs;
}

export class NamespaceStore extends GenericStore {
  protected override afterPrepareForCreate(obj: KubeObject): void {
    const spec = specOf(obj);
    const finalizers = Array.isArray(spec.finalizers) ? spec.finalizers : [];
    if (!finalizers.includes(namespaceFinalizer())) finalizers.push(namespaceFinalizer());
    spec.finalizers = finalizers;
    statusOf(obj).phase = 'Active';
  }

  protected override prepareForUpdate(obj: KubeObject, old: KubeObject, subresource?: string): void {
    // `finalize` objects are built from the current one with new spec.finalizers only; the
    // other paths may not change spec.finalizers.
    if (subresource !== 'finalize') {
      super.prepareForUpdate(obj, old, subresource);
      specOf(obj).finalizers = [...specFinalizers(old)];
    }
    if (old.metadata?.deletionTimestamp) statusOf(obj).phase = 'Terminating';
  }

  protected override readyToRemove(obj: KubeObject): boolean {
    return super.readyToRemove(obj) && specFinalizers(obj).length === 0;
  }

  override async update(
    ctx: RequestContext,
    namespace: string,
    name: string,
    objInfo: UpdatedObjectInfo,
    opts: UpdateOptions,
    subresource?: string,
  ): Promise<UpdateResult> {
    if (subresource !== 'finalize') return super.update(ctx, namespace, name, objInfo, opts, subresource);
    objInfo = this.withApply(objInfo, opts, subresource);
    return this.guaranteedUpdate(
      '',
      name,
      async (current) => {
        if (!current) throw notFound(this.qualified, name);
        const wanted = await objInfo(current);
        // finalize changes spec.finalizers and nothing else.
        const next = structuredClone(current);
        const finalizers = specFinalizers(wanted);
        const errs = validateSpecFinalizers(finalizers);
        if (errs.length > 0) throw invalid(this.groupKind, name, errs);
        specOf(next).finalizers = [...finalizers];
        const rv = wanted.metadata?.resourceVersion;
        if (next.metadata) {
          if (rv) next.metadata.resourceVersion = rv;
          else delete next.metadata.resourceVersion;
        }
        return next;
      },
      opts,
      'finalize',
    );
  }

  protected override async deleteOutcome(
    current: KubeObject,
    opts: DeleteOptions,
  ): Promise<DeletePlan> {
    const m = current.metadata ?? {};
    if (!m.deletionTimestamp) {
      if (specFinalizers(current).length === 0 && (m.finalizers ?? []).length === 0) return { kind: 'remove' };
      const next = this.markDeleting(current);
      statusOf(next).phase = 'Terminating';
      return { kind: 'update', object: next };
    }
    if (specFinalizers(current).length > 0) return { kind: 'unchanged' };
    return super.deleteOutcome(current, opts);
  }
}
