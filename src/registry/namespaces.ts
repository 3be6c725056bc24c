// The store of a kind whose Strategy sets `namespaceLifecycle` (namespaces): deletion is
// two-phase. Deleting marks it Terminating (deletionTimestamp, status.phase) and keeps it
// while `spec.finalizers` lists anyone; the namespace controller empties it and removes its
// finalizer through `namespaces/x/finalize` (a part of the object, declared by the kind), and
// the namespace goes once both finalizer lists are empty.
import type { KubeObject } from '../apimachinery/types.js';
import { namespaceFinalizer } from '../naming/index.js';
import type { DeletePlan } from './graceful.js';
import { GenericStore } from './store.js';
import type { DeleteOptions } from '../rest/index.js';

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

export class NamespaceStore extends GenericStore {
  protected override afterPrepareForCreate(obj: KubeObject): void {
    const spec = specOf(obj);
    const finalizers = Array.isArray(spec.finalizers) ? spec.finalizers : [];
    if (!finalizers.includes(namespaceFinalizer())) finalizers.push(namespaceFinalizer());
    spec.finalizers = finalizers;
    statusOf(obj).phase = 'Active';
  }

  protected override readyToRemove(obj: KubeObject): boolean {
    return super.readyToRemove(obj) && specFinalizers(obj).length === 0;
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
