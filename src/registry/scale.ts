// The `scale` subresource (Kubernetes' ScaleREST): the autoscaling/v1 Scale view of an object
// whose kind says where its replicas and selector live (Strategy.scale), the checks of a
// written Scale, and the store that reads and writes replicas through the object's Store.
import type { FieldError, QualifiedResource } from '../apimachinery/errors.js';
import { conflict, invalid, invalidField, notFound } from '../apimachinery/errors.js';
import type { KubeObject, ObjectMeta } from '../apimachinery/types.js';
import type {
  GetOptions,
  RequestContext,
  ResourceDefinition,
  ScaleAccess,
  SubresourceDefinition,
  SubresourceStore,
  UpdatedObjectInfo,
  UpdateOptions,
  UpdateResult,
} from '../rest/index.js';
import type { GenericStore, WriteEndpoint } from './store.js';

/** The Scale of `external` (as answered), read through the kind's access on its storage form. */
export function scaleView(scale: ScaleAccess, external: KubeObject, internal: KubeObject): KubeObject {
  const m = external.metadata ?? {};
  const metadata: ObjectMeta = { name: m.name, uid: m.uid, resourceVersion: m.resourceVersion, creationTimestamp: m.creationTimestamp };
  if (m.namespace) metadata.namespace = m.namespace;
  const status: Record<string, unknown> = { replicas: scale.statusReplicas(internal) };
  const selector = scale.selector(internal);
  if (selector) status.selector = selector;
  return { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata, spec: { replicas: scale.specReplicas(internal) }, status };
}

/** The replica count a written Scale asks for; 422 Invalid when it is not a count. */
export function wantedReplicas(wanted: KubeObject, name: string): number {
  const spec = (wanted.spec ?? {}) as Record<string, unknown>;
  const replicas = spec.replicas ?? 0;
  const errs: FieldError[] = [];
  if (typeof replicas !== 'number' || !Number.isInteger(replicas)) errs.push(invalidField('spec.replicas', replicas, 'must be an integer'));
  else if (replicas < 0) errs.push(invalidField('spec.replicas', replicas, 'must be greater than or equal to 0'));
  if (errs.length > 0) throw invalid({ group: 'autoscaling', kind: 'Scale' }, name, errs);
  return replicas as number;
}

/** `scale`: get answers the Scale of the object; update sets the replicas the written Scale asks for. */
export class ScaleREST implements SubresourceStore {
  readonly resource: ResourceDefinition;
  private readonly scale: ScaleAccess;
  private readonly qualified: QualifiedResource;
  /** The object's own update rules, recorded in managedFields as a write through `scale`. */
  private readonly endpoint: WriteEndpoint;

  constructor(
    private readonly store: GenericStore,
    readonly definition: SubresourceDefinition,
  ) {
    this.resource = store.definition;
    const scale = store.definition.strategy?.scale;
    if (!scale) throw new Error(`${this.resource.resource}/${definition.name}: the kind declares scale but its strategy does not say where replicas live`);
    this.scale = scale;
    this.qualified = { group: this.resource.group, resource: this.resource.resource };
    this.endpoint = { ...store.objectEndpoint, subresource: definition };
  }

  /** The `autoscaling/v1` Scale view of an object (answered in the served version). */
  private async scaleOf(external: KubeObject): Promise<KubeObject> {
    return scaleView(this.scale, external, await this.store.requestToInternal(external));
  }

  async get(ctx: RequestContext, namespace: string, name: string, opts: GetOptions): Promise<KubeObject> {
    return this.scaleOf(await this.store.get(ctx, namespace, name, opts));
  }

  async update(ctx: RequestContext, namespace: string, name: string, objInfo: UpdatedObjectInfo, opts: UpdateOptions): Promise<UpdateResult> {
    // An apply merges its configuration into the Scale, not into the object.
    const applied = this.store.withApply(objInfo, opts, this.endpoint);
    const result = await this.store.guaranteedUpdate(
      namespace,
      name,
      async (current) => {
        if (!current) throw notFound(this.qualified, name);
        const wanted = await applied(await this.scaleOf(current));
        const replicas = wantedReplicas(wanted, name);
        const wantedRV = wanted.metadata?.resourceVersion;
        if (wantedRV && wantedRV !== current.metadata?.resourceVersion) throw conflict(this.qualified, name);
        const internal = await this.store.requestToInternal(current);
        this.scale.setSpecReplicas(internal, replicas);
        return internal;
      },
      opts,
      this.endpoint,
      { requester: ctx.user },
    );
    return { object: await this.scaleOf(result.object), created: false };
  }
}
