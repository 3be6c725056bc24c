// NamespaceAutoProvision: a create into a namespace that does not exist creates the namespace
// first (through the privileged client), so the create proceeds. A namespace created by
// someone else at the same moment is as good as ours. Dry runs create nothing.
import { isApiError } from '../apimachinery/errors.js';
import type { ApiClient } from '../client/types.js';
import { NAMESPACES, namespacedNonNamespace } from './namespace-exists.js';
import type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from './types.js';
import { admissionForbidden, getOrUndefined } from './util.js';

export class NamespaceAutoProvision implements AdmissionPlugin {
  readonly name = 'NamespaceAutoProvision';

  constructor(private readonly client: ApiClient) {}

  handles(operation: AdmissionOperation): boolean {
    return operation === 'CREATE';
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    if (attrs.dryRun || !namespacedNonNamespace(attrs)) return;
    try {
      if (await getOrUndefined(this.client, NAMESPACES, '', attrs.namespace)) return;
      await this.client.create(NAMESPACES, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: attrs.namespace } });
    } catch (err) {
      if (isApiError(err) && err.code === 409 && err.reason === 'AlreadyExists') return;
      throw admissionForbidden(attrs, err instanceof Error ? err.message : String(err));
    }
  }
}
