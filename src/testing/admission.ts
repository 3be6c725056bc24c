// Test fixture: the real registry (built-in kinds, generic stores, memory storage) behind an
// in-process client that runs the admission chain built from flags, as the server wires it.
import { builtinResourceDefinitions } from '../apis/definitions.js';
import { parseFlags } from '../apimachinery/flags.js';
import type { GroupVersionResource, KubeObject } from '../apimachinery/types.js';
import { LoopbackClient } from '../server/loopback.js';
import { buildResourceTable, type DefaultResourceTable } from '../registry/index.js';
import { createStorage, type Storage } from '../storage/index.js';
import type { SignerAuthorizer } from '../admission/certificates.js';
import { admissionFlagDefinitions, buildAdmissionChain, type BuiltAdmissionChain } from '../admission/index.js';

export const admin = { username: 'admin', groups: ['system:masters', 'system:authenticated'] };

export const R = {
  namespaces: { group: '', version: 'v1', resource: 'namespaces' },
  pods: { group: '', version: 'v1', resource: 'pods' },
  serviceaccounts: { group: '', version: 'v1', resource: 'serviceaccounts' },
  nodes: { group: '', version: 'v1', resource: 'nodes' },
  pvcs: { group: '', version: 'v1', resource: 'persistentvolumeclaims' },
  pvs: { group: '', version: 'v1', resource: 'persistentvolumes' },
  limitranges: { group: '', version: 'v1', resource: 'limitranges' },
  quotas: { group: '', version: 'v1', resource: 'resourcequotas' },
  configmaps: { group: '', version: 'v1', resource: 'configmaps' },
} satisfies Record<string, GroupVersionResource>;

export interface Fixture {
  /** Writes through admission. */
  client: LoopbackClient;
  /** Writes without admission (setting the scene). */
  plain: LoopbackClient;
  chain: BuiltAdmissionChain;
  table: DefaultResourceTable;
  close(): Promise<void>;
}

export async function fixture(
  opts: { args?: string[]; signerAuthorizer?: SignerAuthorizer; namespace?: string; now?: () => Date } = {},
): Promise<Fixture> {
  const storage: Storage = await createStorage({ backend: 'memory' });
  const table = buildResourceTable(builtinResourceDefinitions({ runtimeConfig: '' }), storage, { now: opts.now });
  const plain = new LoopbackClient(table, admin);
  const chain = buildAdmissionChain(parseFlags(opts.args ?? [], admissionFlagDefinitions), {
    client: plain,
    signerAuthorizer: opts.signerAuthorizer,
  });
  const client = new LoopbackClient(table, admin, { admission: chain });
  const ns = opts.namespace ?? 'team';
  await plain.create(R.namespaces, '', { metadata: { name: ns } });
  await plain.create(R.serviceaccounts, ns, { metadata: { name: 'default' } });
  return {
    client,
    plain,
    chain,
    table,
    async close() {
      await chain.stop();
      await table.stop();
      await storage.close();
    },
  };
}

export function pod(name: string, spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, ...metadata }, spec: { containers: [{ name: 'app', image: 'nginx' }], ...spec } };
}
