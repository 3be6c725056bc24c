// The Store of a served custom resource version: the generic Store, refusing creates while
// its definition is being deleted.
import { ApiError } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/types.js';
import type { CreateOptions, RequestContext, ResourceDefinition } from '../../rest/index.js';
import { GenericStore, type GenericStoreOptions } from '../store.js';

/** Whether the definition is terminating, read at each request (it changes without a rebuild). */
export interface TerminatingFlag {
  terminating: boolean;
}

export class CustomResourceStore extends GenericStore {
  constructor(
    definition: ResourceDefinition,
    opts: GenericStoreOptions,
    private readonly state: TerminatingFlag,
  ) {
    super(definition, opts);
  }

  override async create(ctx: RequestContext, namespace: string, obj: KubeObject, opts: CreateOptions): Promise<KubeObject> {
    if (this.state.terminating) {
      throw new ApiError(405, 'MethodNotAllowed', 'create not allowed while custom resource definition is terminating', {
        group: this.definition.group,
        kind: this.definition.resource,
      });
    }
    return super.create(ctx, namespace, obj, opts);
  }
}
