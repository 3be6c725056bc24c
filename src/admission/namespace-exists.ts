// NamespaceExists: a namespaced request names a namespace that exists, else 404 with the
// namespace's NotFound. Unlike NamespaceLifecycle it has no opinion on terminating or system
// namespaces. The lookup is live (served by the watch cache), so a namespace created a moment
// ago is never refused.
import { internalError, isApiError } from '../apimachinery/errors.js';
import type { ApiClient } from '../client/types.js';
import type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from './types.js';

export const NAMESPACES = { group: '', version: 'v1', resource: 'namespaces' };

/** Whether the request is for a namespaced object other than a Namespace itself. */
export function namespacedNonNamespace(attrs: AdmissionAttributes): boolean {
  return attrs.namespace !== '' && !(attrs.kind.group === '' && attrs.kind.kind === 'Namespace');
}

export class NamespaceExists implements AdmissionPlugin {
  readonly name = 'NamespaceExists';

  constructor(private readonly client: ApiClient) {}

  handles(operation: AdmissionOperation): boolean {
    return operation === 'CREATE' || operation === 'UPDATE' || operation === 'DELETE';
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (!namespacedNonNamespace(attrs)) return;
    try {
      await this.client.get(NAMESPACES, '', attrs.namespace);
    } catch (err) {
      // The NotFound is the answer itself: `namespaces "<name>" not found`.
      if (isApiError(err) && err.code === 404) throw err;
      throw internalError(err);
    }
  }
}
