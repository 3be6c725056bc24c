// componentstatuses (deprecated since 1.19, still served by 1.27): a virtual, read-only
// resource reporting the health of the control plane's parts, from the server's checks.
import { notFound } from '../apimachinery/errors.js';
import type { KubeList, KubeObject } from '../apimachinery/types.js';
import type { RESTStore, ResourceDefinition, TableConvertor } from '../rest/index.js';
import type { TablePrinting } from './handlers/response.js';

export interface ComponentCheck {
  /** `etcd-0`, `controller-manager`, ... */
  name: string;
  /** Resolves with the healthy message; throws with the error. */
  check(): Promise<string>;
}

async function status(c: ComponentCheck): Promise<KubeObject> {
  let condition: Record<string, string>;
  try {
    condition = { type: 'Healthy', status: 'True', message: await c.check() };
  } catch (e) {
    condition = { type: 'Healthy', status: 'False', error: e instanceof Error ? e.message : String(e) };
  }
  return { kind: 'ComponentStatus', apiVersion: 'v1', metadata: { name: c.name, creationTimestamp: null }, conditions: [condition] };
}

/** The columns kubectl shows for component statuses. */
const table: TableConvertor = {
  columns: [
    { name: 'Name', type: 'string', format: 'name', description: 'Name must be unique within a namespace.', priority: 0 },
    { name: 'Status', type: 'string', format: '', description: 'Status of the condition for a component.', priority: 0 },
    { name: 'Message', type: 'string', format: '', description: 'Message about the condition for a component.', priority: 0 },
    { name: 'Error', type: 'string', format: '', description: 'Condition error code for a component.', priority: 0 },
  ],
  cells(obj) {
    const conditions = (obj.conditions as Record<string, string>[] | undefined) ?? [];
    const healthy = conditions.find((c) => c.type === 'Healthy');
    const state = healthy?.status === 'True' ? 'Healthy' : 'Unhealthy';
    return [obj.metadata?.name ?? '', state, healthy?.message ?? '', healthy?.error ?? ''];
  },
};

export function componentStatusStore(definition: ResourceDefinition, components: ComponentCheck[]): RESTStore & TablePrinting {
  return {
    definition,
    tableConvertor: table,
    async get(_ctx, _ns, name) {
      const c = components.find((x) => x.name === name);
      if (!c) throw notFound({ group: '', resource: 'componentstatuses' }, name);
      return status(c);
    },
    async list(): Promise<KubeList> {
      return { kind: 'ComponentStatusList', apiVersion: 'v1', metadata: {}, items: await Promise.all(components.map(status)) };
    },
  };
}
