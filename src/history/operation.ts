// How a write is named in a revision: the verb of the request, and for a status write the
// status form of it (Kubernetes' audit and managedFields speak of the same verbs).

/** The verbs a write arrives with. */
export type WriteVerb = 'create' | 'update' | 'patch' | 'apply' | 'delete';

export type RevisionOperation = 'Create' | 'Update' | 'Patch' | 'Apply' | 'Delete' | 'UpdateStatus' | 'PatchStatus' | 'ApplyStatus';

const NAMES: Record<WriteVerb, RevisionOperation> = { create: 'Create', update: 'Update', patch: 'Patch', apply: 'Apply', delete: 'Delete' };

/**
 * `Update` for a PUT of the object; `UpdateStatus` (and `PatchStatus`, `ApplyStatus`) for a
 * write of its status; other subresources keep the verb's name (the subresource says which).
 */
export function operationName(verb: WriteVerb, subresource?: string): RevisionOperation {
  if (subresource === 'status' && (verb === 'update' || verb === 'patch' || verb === 'apply')) return `${NAMES[verb]}Status` as RevisionOperation;
  return NAMES[verb];
}
