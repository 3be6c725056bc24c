// Keeping the bootstrap configuration (1.27's "priority-and-fairness-config-producer"): a
// missing mandatory or suggested object is created; a mandatory one is always put back to
// its bootstrap spec; a suggested one is updated only when its autoupdate annotation says
// `true`, or the annotation is absent or unreadable and the object was never changed
// (generation 1). Auto-updated objects that left the bootstrap set are deleted.
import { isApiError } from '../apimachinery/errors.js';
import type { GroupVersionResource, KubeObject } from '../apimachinery/types.js';
import type { ApiClient } from '../client/types.js';
import { autoUpdateAnnotation, FLOWCONTROL_VERSION, flowcontrolGroup, mandatoryFlowSchemas, mandatoryPriorityLevels, suggestedFlowSchemas, suggestedPriorityLevels } from './bootstrap.js';
import { parseFlowSchema, parsePriorityLevel } from './parse.js';

/** Go's strconv.ParseBool. */
export function parseGoBool(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(value)) return false;
  return undefined;
}

function annotationOf(o: KubeObject): string | undefined {
  const a = o.metadata?.annotations;
  return a && Object.prototype.hasOwnProperty.call(a, autoUpdateAnnotation()) ? a[autoUpdateAnnotation()] : undefined;
}

/** The spec as classification and queuing read it, so defaults and omitted zero values compare equal. */
function specOf(o: KubeObject): unknown {
  const p = o.kind === 'FlowSchema' ? parseFlowSchema(o) : parsePriorityLevel(o);
  return 'ok' in p ? p.ok.spec : { unreadable: o.spec };
}

function sameSpec(a: KubeObject, b: KubeObject): boolean {
  return JSON.stringify(specOf(a)) === JSON.stringify(specOf(b));
}

/**
 * What to write for one bootstrap object given the stored one: the object to update with, or
 * undefined when it is as it should be. `mandatory` objects always get the bootstrap spec.
 */
export function ensureUpdate(current: KubeObject, bootstrap: KubeObject, mandatory: boolean): KubeObject | undefined {
  const annotation = parseGoBool(annotationOf(current));
  const autoUpdate = mandatory || (annotation ?? current.metadata?.generation === 1);
  const fixAnnotation = annotation !== autoUpdate;
  const fixSpec = autoUpdate && !sameSpec(current, bootstrap);
  if (!fixAnnotation && !fixSpec) return undefined;
  const out = structuredClone(current);
  out.metadata = { ...out.metadata, annotations: { ...out.metadata?.annotations, [autoUpdateAnnotation()]: String(autoUpdate) } };
  if (fixSpec) out.spec = structuredClone(bootstrap.spec);
  return out;
}

export interface EnsureResult {
  created: string[];
  updated: string[];
  deleted: string[];
}

export function flowSchemaResource(): GroupVersionResource {
  return { group: flowcontrolGroup(), version: FLOWCONTROL_VERSION, resource: 'flowschemas' };
}

export function priorityLevelResource(): GroupVersionResource {
  return { group: flowcontrolGroup(), version: FLOWCONTROL_VERSION, resource: 'prioritylevelconfigurations' };
}

async function ensureKind(client: ApiClient, r: GroupVersionResource, mandatory: KubeObject[], suggested: KubeObject[], out: EnsureResult): Promise<void> {
  const label = (o: KubeObject): string => `${r.resource}/${o.metadata?.name ?? ''}`;
  const wanted = [...mandatory.map((o) => [o, true] as const), ...suggested.map((o) => [o, false] as const)];
  // One list instead of a read per object: this runs before the server reports ready.
  const stored = new Map((await client.list(r, '')).items.map((o) => [o.metadata?.name ?? '', o]));
  await Promise.all(
    wanted.map(async ([boot, isMandatory]) => {
      const current = stored.get(boot.metadata!.name!);
      if (!current) {
        try {
          await client.create(r, '', structuredClone(boot));
          out.created.push(label(boot));
        } catch (err) {
          // Another server created it first.
          if (!isApiError(err) || err.status.code !== 409) throw err;
        }
        return;
      }
      const update = ensureUpdate(current, boot, isMandatory);
      if (update) {
        await client.update(r, '', update);
        out.updated.push(label(boot));
      }
    }),
  );
  const names = new Set(wanted.map(([o]) => o.metadata!.name!));
  for (const [name, o] of stored) {
    if (names.has(name) || parseGoBool(annotationOf(o)) !== true) continue;
    try {
      await client.delete(r, '', name);
      out.deleted.push(label(o));
    } catch (err) {
      if (!isApiError(err) || err.status.code !== 404) throw err;
    }
  }
}

/** Creates and repairs the bootstrap configuration through `client` (a privileged one). */
export async function ensureBootstrapConfiguration(client: ApiClient): Promise<EnsureResult> {
  const out: EnsureResult = { created: [], updated: [], deleted: [] };
  // Priority levels first, so that new FlowSchemas never dangle.
  await ensureKind(client, priorityLevelResource(), mandatoryPriorityLevels(), suggestedPriorityLevels(), out);
  await ensureKind(client, flowSchemaResource(), mandatoryFlowSchemas(), suggestedFlowSchemas(), out);
  return out;
}
