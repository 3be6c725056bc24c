// The write pipeline every create, update, patch and delete shares, over HTTP and in
// process alike: the attributes admission sees, the mutating phase before the Store call,
// the validating phase as the Store's hook, and the field manager check.
import { invalid } from '../../apimachinery/errors.js';
import { apiVersionOf, type GroupVersionKind, type KubeObject, type UserInfo } from '../../apimachinery/types.js';
import type { AuditAnnotations } from '../../apimachinery/audit.js';
import type { AdmissionAttributes, AdmissionChain, AdmissionOperation } from '../../admission/types.js';
import { fieldManagerErrors, managerFromUserAgent } from '../../apply/index.js';
import { metaGroup } from '../../naming/index.js';
import type { HistoryVerb, RESTStore, RequestContext, SubresourceStore, ValidateObjectFunc } from '../../rest/index.js';

/** What a write addresses and on whose behalf. */
export interface WriteTarget {
  store: RESTStore;
  /** The namespace the Store is called with ('' for cluster-scoped resources). */
  namespace: string;
  /** The object's name; '' when not known yet (a create with a generated name). */
  name: string;
  /** The subresource written through; absent for the object itself. */
  subresource?: SubresourceStore;
  user: UserInfo;
  warnings: string[];
  dryRun: boolean;
  /** The `dryRun` values as asked, for the options admission sees. */
  dryRunValues: readonly string[];
  fieldManager?: string;
  /** The request's audit event (admission plugins annotate it). */
  audit?: AuditAnnotations;
}

/** The kind a body for the store's resource, or for its `subresource`, must be, with its group and version. */
export function expectedKind(store: RESTStore, subresource?: SubresourceStore): GroupVersionKind {
  const def = store.definition;
  const sub = subresource?.definition;
  if (sub) return { group: sub.group ?? def.group, version: sub.version ?? def.version, kind: sub.kind };
  return { group: def.group, version: def.version, kind: def.kind };
}

export function admissionAttributes(
  w: WriteTarget,
  operation: AdmissionOperation,
  name: string,
  object?: KubeObject,
  oldObject?: KubeObject,
): AdmissionAttributes {
  const def = w.store.definition;
  return {
    operation,
    object,
    oldObject,
    kind: expectedKind(w.store, w.subresource),
    resource: { group: def.group, version: def.version, resource: def.resource },
    subresource: w.subresource?.definition.name ?? '',
    namespace: w.namespace,
    name,
    user: w.user,
    dryRun: w.dryRun,
    options: admissionOptions(operation, w.dryRunValues, w.fieldManager),
    warnings: w.warnings,
    audit: w.audit,
  };
}

/** The mutating phase; the object plugins may have changed is `attrs.object`. */
export async function admit(admission: AdmissionChain | undefined, attrs: AdmissionAttributes): Promise<void> {
  if (admission) await admission.admit(attrs);
}

/**
 * The validating phase as the Store's hook: the Store calls it with the object it is about
 * to persist (and the stored one), after its own defaulting and validation.
 */
export function admissionValidator(admission: AdmissionChain | undefined, w: WriteTarget, operation: AdmissionOperation): ValidateObjectFunc | undefined {
  if (!admission) return undefined;
  return async (obj, old) => {
    const op: AdmissionOperation = operation === 'UPDATE' && old === undefined ? 'CREATE' : operation;
    const attrs = admissionAttributes(w, op, obj?.metadata?.name ?? w.name, operation === 'DELETE' ? undefined : obj, old);
    await admission.validate(attrs);
  };
}

/** The `fieldManager` of a write, checked as Kubernetes checks it (422 naming the options kind). */
export function checkedFieldManager(value: string | undefined, optionsKind: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions'): string | undefined {
  if (value === undefined) return undefined;
  const errs = fieldManagerErrors(value);
  if (errs.length > 0) throw invalid({ group: metaGroup(), kind: optionsKind }, '', errs);
  return value;
}

/** The options object admission plugins and webhooks see. */
function admissionOptions(operation: AdmissionOperation, dryRunValues: readonly string[], fieldManager: string | undefined): Record<string, unknown> {
  const kind = operation === 'CREATE' ? 'CreateOptions' : operation === 'UPDATE' ? 'UpdateOptions' : 'DeleteOptions';
  const o: Record<string, unknown> = { kind, apiVersion: `${metaGroup()}/v1` };
  if (dryRunValues.length > 0) o.dryRun = [...dryRunValues];
  if (fieldManager && operation !== 'DELETE') o.fieldManager = fieldManager;
  return o;
}

/**
 * Reports a successful write to the object history (when the server keeps one). A subresource
 * that answers another kind (scale) or a Status (binding) is followed by a read of the object
 * it wrote, from the watch cache.
 */
export async function recordWrite(
  ctx: RequestContext,
  w: WriteTarget,
  verb: HistoryVerb,
  answer: KubeObject | undefined,
  userAgent?: string,
  removedAt?: number,
): Promise<void> {
  const recorder = ctx.history;
  if (!recorder || w.dryRun || !answer) return;
  const def = w.store.definition;
  // A removal is a revision of its own: the answer has the object's last resourceVersion.
  let object = removedAt === undefined ? answer : { ...answer, metadata: { ...answer.metadata, resourceVersion: String(removedAt) } };
  if (w.subresource && (answer.kind !== def.kind || !answer.metadata?.uid)) {
    if (!w.store.get) return;
    try {
      object = await w.store.get(ctx, w.namespace, w.name, {});
    } catch {
      return;
    }
  }
  const manager = w.fieldManager ?? (userAgent ? managerFromUserAgent(userAgent) : undefined);
  recorder.record({
    group: def.group,
    resource: def.resource,
    apiVersion: apiVersionOf(def),
    kind: def.kind,
    verb,
    ...(w.subresource ? { subresource: w.subresource.definition.name } : {}),
    user: { username: w.user.username, groups: w.user.groups },
    ...(manager ? { fieldManager: manager } : {}),
    object,
  });
}
