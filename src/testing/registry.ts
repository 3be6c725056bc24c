// Small definitions and strategies for the registry's own tests: a namespaced kind with
// status, scale and a field-selector attribute, a second version of it sharing storage, a
// cluster-scoped kind, and namespaces.
import { invalidField } from '../apimachinery/errors.js';
import type { KubeObject, UserInfo } from '../apimachinery/types.js';
import type { RequestContext, ResourceDefinition, Strategy, SubresourceDefinition } from '../rest/index.js';
import { definitionOf } from './apis.js';

type Obj = Record<string, unknown>;

function spec(obj: KubeObject): Obj {
  if (typeof obj.spec !== 'object' || obj.spec === null) obj.spec = {};
  return obj.spec as Obj;
}

export const TEST_GROUP = 'widgets.testing';

export function widgetStrategy(overrides: Partial<Strategy> = {}): Strategy {
  return {
    hasStatus: true,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    defaults(obj) {
      const s = spec(obj);
      if (s.size === undefined) s.size = 1;
    },
    prepareForCreate(obj) {
      delete obj.status;
    },
    prepareForUpdate(obj, old) {
      if (old.status === undefined) delete obj.status;
      else obj.status = structuredClone(old.status);
    },
    prepareForStatusUpdate(obj, old) {
      const status = obj.status;
      for (const k of Object.keys(obj)) if (k !== 'metadata' && k !== 'status') delete obj[k];
      for (const [k, v] of Object.entries(old)) if (k !== 'metadata' && k !== 'status') obj[k] = structuredClone(v);
      if (obj.metadata && old.metadata) {
        obj.metadata.labels = old.metadata.labels;
        obj.metadata.annotations = old.metadata.annotations;
        obj.metadata.finalizers = old.metadata.finalizers;
      }
      obj.status = status;
    },
    validate(obj) {
      const size = spec(obj).size;
      return typeof size === 'number' && size >= 0 ? [] : [invalidField('spec.size', size, 'must be greater than or equal to 0')];
    },
    validateUpdate(obj) {
      return this.validate(obj);
    },
    selectableFields(obj) {
      return { 'spec.color': String(spec(obj).color ?? '') };
    },
    fieldSelectorKeys: ['spec.color'],
    table: { columns: [], cells: () => [] },
    scale: {
      specReplicas: (obj) => Number(spec(obj).replicas ?? 0),
      setSpecReplicas: (obj, n) => {
        spec(obj).replicas = n;
      },
      statusReplicas: (obj) => Number((obj.status as Obj | undefined)?.replicas ?? 0),
      selector: (obj) => `app=${obj.metadata?.name ?? ''}`,
    },
    ...overrides,
  };
}

function definition(resource: string, kind: string, namespaced: boolean, version = 'v1', group = TEST_GROUP): ResourceDefinition {
  return {
    group,
    version,
    resource,
    kind,
    singularName: kind.toLowerCase(),
    namespaced,
    shortNames: [],
    categories: [],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [],
    preferred: version === 'v1',
  };
}

/**
 * The test kinds of TEST_GROUP stand for custom resources, which keep a generation unless
 * the strategy says otherwise.
 */
function customResource(strategy: Strategy): Strategy {
  if (strategy.tracksGeneration === undefined) strategy.tracksGeneration = true;
  return strategy;
}

/** The status and scale subresources a test kind's strategy provides for. */
function subresourcesOf(strategy: Strategy, kind: string): SubresourceDefinition[] {
  const out: SubresourceDefinition[] = [];
  if (strategy.hasStatus) out.push({ name: 'status', kind, verbs: ['get', 'patch', 'update'], serving: { by: 'status' } });
  if (strategy.scale) out.push({ name: 'scale', kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: ['get', 'patch', 'update'], serving: { by: 'scale' } });
  return out;
}

export function widgetDefinition(strategy: Strategy = widgetStrategy()): ResourceDefinition {
  return {
    ...definition('widgets', 'Widget', true),
    subresources: subresourcesOf(strategy, 'Widget'),
    storage: { group: TEST_GROUP, resource: 'widgets', version: 'v1' },
    strategy: customResource(strategy),
  };
}

/** v2 calls `spec.size` `spec.dimension`; stored as v1. */
export function widgetV2Definition(): ResourceDefinition {
  return {
    ...definition('widgets', 'Widget', true, 'v2'),
    subresources: subresourcesOf(widgetStrategy(), 'Widget'),
    storage: { group: TEST_GROUP, resource: 'widgets', version: 'v1' },
    strategy: customResource(widgetStrategy()),
    conversion: {
      toStorage(obj) {
        const s = spec(obj);
        if ('dimension' in s) {
          s.size = s.dimension;
          delete s.dimension;
        }
        return { ...obj, apiVersion: `${TEST_GROUP}/v1` };
      },
      fromStorage(obj) {
        const s = spec(obj);
        if ('size' in s) {
          s.dimension = s.size;
          delete s.size;
        }
        return { ...obj, apiVersion: `${TEST_GROUP}/v2` };
      },
    },
  };
}

/** Cluster-scoped, create-on-update, no unconditional updates, no status subresource. */
export function gizmoDefinition(): ResourceDefinition {
  const strategy = widgetStrategy({
    hasStatus: false,
    allowCreateOnUpdate: true,
    allowUnconditionalUpdate: false,
    prepareForCreate() {},
    prepareForUpdate() {},
    fieldSelectorKeys: [],
    selectableFields: () => ({}),
    scale: undefined,
  });
  return { ...definition('gizmos', 'Gizmo', false), storage: { group: TEST_GROUP, resource: 'gizmos', version: 'v1' }, strategy: customResource(strategy) };
}

/** The built-in namespaces (their lifecycle store and `finalize` come from the kind's declarations). */
export function namespaceDefinition(): ResourceDefinition {
  return definitionOf('', 'namespaces', 'v1');
}

const admin: UserInfo = { username: 'admin', groups: ['system:masters'] };

export function requestContext(signal: AbortSignal = new AbortController().signal): RequestContext {
  return { user: admin, signal, warnings: [] };
}
