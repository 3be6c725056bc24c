// The two system priority classes every cluster has from its start, for the pods the
// cluster cannot run without.
import { isApiError } from '../apimachinery/errors.js';
import type { KubeObject } from '../apimachinery/types.js';
import type { ApiClient } from '../client/types.js';
import { group } from '../naming/index.js';

const PRIORITY_CLASSES = () => ({ group: group('scheduling'), version: 'v1', resource: 'priorityclasses' });

export function systemPriorityClasses(): KubeObject[] {
  const pc = (name: string, value: number, description: string): KubeObject => ({
    apiVersion: `${group('scheduling')}/v1`,
    kind: 'PriorityClass',
    metadata: { name },
    value,
    description,
  });
  return [
    pc('system-node-critical', 2000001000, 'Used for system critical pods that must not be moved from their current node.'),
    pc('system-cluster-critical', 2000000000, 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.'),
  ];
}

/** Creates the system priority classes when missing; returns the names it created. A server without the scheduling group has none. */
export async function ensureSystemPriorityClasses(client: ApiClient): Promise<string[]> {
  const created: string[] = [];
  for (const pc of systemPriorityClasses()) {
    try {
      await client.create(PRIORITY_CLASSES(), '', pc);
      created.push(pc.metadata!.name!);
    } catch (err) {
      if (isApiError(err) && (err.code === 409 || err.code === 404)) continue;
      throw err;
    }
  }
  return created;
}
