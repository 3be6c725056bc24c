// OwnerReferencesPermissionEnforcement: changing an object's ownerReferences (on update)
// requires the right to delete the object, and a new `blockOwnerDeletion: true` requires
// the right to update the owner's `finalizers` subresource, since it holds back the owner's
// deletion. The rights are asked of the server's authorizers (a SubjectAccessReview).
import { deepEqual } from '../apimachinery/equality.js';
import { isPlainObject } from '../apimachinery/types.js';
import type { AccessAuthorizer, AccessDecision } from './access.js';
import type { ResourceTable } from '../rest/index.js';
import type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from './types.js';
import { admissionForbidden, type JsonMap } from './util.js';

/** Resolves an owner's kind to its resources; throws Error with the mapper's message when none. */
export type KindMapper = (group: string, version: string, kind: string) => string[];

/** Maps kinds through the served resources (subresources excluded), as a REST mapper does. */
export function resourceTableMapper(table: ResourceTable | undefined): KindMapper {
  return (g, version, kind) => {
    const found = (table?.all() ?? [])
      .map((s) => s.definition)
      .filter((d) => d.group === g && d.version === version && d.kind === kind)
      .map((d) => d.resource);
    if (found.length === 0) throw new Error(`no matches for kind ${JSON.stringify(kind)} in version ${JSON.stringify(g ? `${g}/${version}` : version)}`);
    return found;
  };
}

type OwnerRef = JsonMap;

function ownerRefs(obj: AdmissionAttributes['object']): OwnerRef[] {
  const refs = obj?.metadata?.ownerReferences;
  return Array.isArray(refs) ? (refs as unknown[]).filter(isPlainObject) : [];
}

function changesOwnerReferences(attrs: AdmissionAttributes): boolean {
  const next = ownerRefs(attrs.object);
  if (!attrs.oldObject) return next.length > 0;
  const prev = ownerRefs(attrs.oldObject);
  return prev.length !== next.length || prev.some((r, i) => !deepEqual(r, next[i]));
}

/** References newly blocking: added with `blockOwnerDeletion: true`, or switched to it (matched by uid). */
export function newBlockingRefs(next: OwnerRef[], prev: OwnerRef[] | undefined): OwnerRef[] {
  const blocking = next.filter((r) => r.blockOwnerDeletion === true);
  if (!prev) return blocking;
  const byUID = new Map<unknown, OwnerRef>();
  for (const r of prev) byUID.set(r.uid, r);
  return blocking.filter((r) => byUID.get(r.uid)?.blockOwnerDeletion !== true);
}

function parseGroupVersion(apiVersion: string): { group: string; version: string } {
  if (apiVersion === '' || apiVersion === '/') return { group: '', version: '' };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: apiVersion };
  if (parts.length === 2) return { group: parts[0]!, version: parts[1]! };
  throw new Error(`unexpected GroupVersion string: ${apiVersion}`);
}

const describe = (d: AccessDecision): string => `${d.reason}, ${d.error ?? '<nil>'}`;

export class OwnerReferencesPermissionEnforcement implements AdmissionPlugin {
  readonly name = 'OwnerReferencesPermissionEnforcement';
  readonly handles = (op: AdmissionOperation): boolean => op === 'CREATE' || op === 'UPDATE';

  constructor(
    private readonly authorize: AccessAuthorizer,
    private readonly mapKind: KindMapper,
  ) {}

  async validate(attrs: AdmissionAttributes): Promise<void> {
    // Pod status writes cannot change owner references (the status strategy keeps them).
    if (attrs.resource.group === '' && attrs.resource.resource === 'pods' && attrs.subresource === 'status') return;
    if (!attrs.object || !changesOwnerReferences(attrs)) return;

    // The creator could as well not have created it; an update needs the right to delete.
    if (attrs.operation !== 'CREATE') {
      const decision = await this.authorize(attrs.user, {
        verb: 'delete',
        namespace: attrs.namespace,
        group: attrs.resource.group,
        version: attrs.resource.version,
        resource: attrs.resource.resource,
        subresource: attrs.subresource,
        name: attrs.name,
      });
      if (!decision.allowed) throw admissionForbidden(attrs, `cannot set an ownerRef on a resource you can't delete: ${describe(decision)}`);
    }

    const blocking = newBlockingRefs(ownerRefs(attrs.object), attrs.oldObject ? ownerRefs(attrs.oldObject) : undefined);
    if (blocking.length === 0) return;
    // One question first: a user who may finalize anything needs no mapping of each owner.
    const anything = await this.authorize(attrs.user, { verb: 'update', namespace: '', group: '*', version: '*', resource: '*', subresource: 'finalizers', name: '*' });
    if (anything.allowed) return;

    for (const ref of blocking) {
      const apiVersion = typeof ref.apiVersion === 'string' ? ref.apiVersion : '';
      const kind = typeof ref.kind === 'string' ? ref.kind : '';
      let gv: { group: string; version: string };
      let resources: string[];
      try {
        gv = parseGroupVersion(apiVersion);
        resources = this.mapKind(gv.group, gv.version, kind);
      } catch (e) {
        throw admissionForbidden(
          attrs,
          `cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion ${apiVersion} Kind ${kind}: ${(e as Error).message}`,
        );
      }
      // A kind served by several resources needs the right on each of them.
      for (const resource of resources) {
        const decision = await this.authorize(attrs.user, {
          verb: 'update',
          // Owners live in the dependent's namespace (or are cluster-scoped).
          namespace: attrs.namespace,
          group: gv.group,
          version: gv.version,
          resource,
          subresource: 'finalizers',
          name: typeof ref.name === 'string' ? ref.name : '',
        });
        if (!decision.allowed) {
          throw admissionForbidden(attrs, `cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: ${describe(decision)}`);
        }
      }
    }
  }
}
