// The namespaces every server has from its first start.
import { isApiError } from '../apimachinery/errors.js';
import type { ApiClient } from '../client/types.js';
import { systemNamespace } from '../naming/index.js';
import { NAMESPACES } from './namespace/controller.js';

export function systemNamespaceNames(): string[] {
  return ['default', systemNamespace('system'), systemNamespace('public'), systemNamespace('node-lease')];
}

/** Creates `default` and the system namespaces when missing; returns the names it created. */
export async function ensureSystemNamespaces(client: ApiClient): Promise<string[]> {
  // Together: the store commits concurrent creates as one transaction.
  const made = await Promise.all(systemNamespaceNames().map((name) => ensureNamespace(client, name)));
  return systemNamespaceNames().filter((_, i) => made[i]);
}

/** Creates the namespace when missing; true when this call created it. */
async function ensureNamespace(client: ApiClient, name: string): Promise<boolean> {
  try {
    await client.get(NAMESPACES, '', name);
    return false;
  } catch (err) {
    if (!(isApiError(err) && err.code === 404)) throw err;
  }
  try {
    await client.create(NAMESPACES, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    return true;
  } catch (err) {
    // Another server process sharing the store may have created it first.
    if (!(isApiError(err) && err.code === 409)) throw err;
    return false;
  }
}
