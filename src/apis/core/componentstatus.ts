// ComponentStatus (deprecated since 1.19, still served by 1.27): a virtual kind reporting the
// health of the control plane's parts, served by the store the server provides, with the
// columns kubectl shows.
import type { KindSpec } from '../strategy.js';

export const componentStatuses: KindSpec = {
  handler: 'ComponentStatuses',
  table: {
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
  },
};

/** Binding: a pod's node assignment, served by the store the server provides. */
export const bindings: KindSpec = { handler: 'Bindings' };
