// componentstatuses (deprecated since 1.19, still served by 1.27): a virtual, read-only
// resource reporting the health of the control plane's parts, from the server's checks (the
// `ComponentStatuses` store its kind declares; the columns are the kind's, in `apis/core/`).
import { notFound } from '../apimachinery/errors.js';
import type { KubeList, KubeObject } from '../apimachinery/types.js';
import type { RESTStore, ResourceDefinition, ResourceTable } from '../rest/index.js';
import { serveResourceHandler } from '../registry/index.js';

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

export function componentStatusStore(definition: ResourceDefinition, components: ComponentCheck[]): RESTStore {
  return {
    definition,
    async get(_ctx, _ns, name) {
      const c = components.find((x) => x.name === name);
      if (!c) throw notFound({ group: definition.group, resource: definition.resource }, name);
      return status(c);
    },
    async list(): Promise<KubeList> {
      return { kind: 'ComponentStatusList', apiVersion: 'v1', metadata: {}, items: await Promise.all(components.map(status)) };
    },
  };
}

/** Serves the definitions declared as served by `ComponentStatuses` in `table`, reporting `components`. */
export function installComponentStatuses(table: ResourceTable, definitions: readonly ResourceDefinition[], components: ComponentCheck[]): void {
  serveResourceHandler(table, definitions, 'ComponentStatuses', (definition) => componentStatusStore(definition, components));
}
