// The service account controller: a `default` ServiceAccount in every active namespace,
// recreated when deleted (pods that name no account run as it).
import type { KubeObject } from '../apimachinery/types.js';
import { PerNamespaceObjectController, type PerNamespaceOptions } from './per-namespace.js';

const SERVICE_ACCOUNTS = { group: '', version: 'v1', resource: 'serviceaccounts' };
const DEFAULT_SERVICE_ACCOUNT_NAME = 'default';

export function defaultServiceAccount(): KubeObject {
  return { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: DEFAULT_SERVICE_ACCOUNT_NAME } };
}

export function startServiceAccountController(opts: PerNamespaceOptions): PerNamespaceObjectController {
  return new PerNamespaceObjectController(
    { controller: 'serviceaccount', queueName: 'serviceaccount', resource: SERVICE_ACCOUNTS, name: DEFAULT_SERVICE_ACCOUNT_NAME, desired: defaultServiceAccount },
    opts,
  );
}
