// What a served resource is: its names, scope, verbs, subresources, where it is stored, and
// the kind's Strategy.
import type { JSONSchemaProps } from '../apimachinery/jsonschema.js';
import type { KubeObject } from '../apimachinery/types.js';
import type { PartUpdate, Strategy, VersionConversion } from './strategy.js';
import type { TableConvertor } from './table-convertor.js';

/**
 * A subresource as its kind declares it: what discovery and OpenAPI list (`<resource>/<name>`,
 * its kind and verbs), the kind of the bodies it reads and answers, and who serves it. The
 * resource table resolves it to a `SubresourceStore` (`subresource.ts`).
 */
export interface SubresourceDefinition {
  name: string;
  kind: string;
  /** Group and version of the subresource's kind when it differs (Scale, Eviction, TokenRequest). */
  group?: string;
  version?: string;
  verbs: string[];
  /** Other versions of the subresource's group whose objects a create also takes (Eviction: v1beta1). */
  acceptedVersions?: string[];
  /** Who serves it. */
  serving: SubresourceServing;
  /** Present when it is served by `connect` (the store answers the raw exchange). */
  connect?: ConnectServing;
}

/**
 * Who serves a subresource (Kubernetes gives each its own storage: StatusREST, ScaleREST,
 * BindingREST, ...):
 * - `status`: the object's status, written with the Strategy's status rules;
 * - `scale`: the autoscaling/v1 Scale of the object, through `Strategy.scale`;
 * - `part`: one part of the object written through the Store (`pods/ephemeralcontainers`,
 *   `namespaces/finalize`, `certificatesigningrequests/approval`): get answers the object;
 * - `handler`: a store the server provides at start under this name, as it needs other parts
 *   of the server (storage, the loopback client, credentials, node connections).
 */
export type SubresourceServing =
  | { by: 'status' }
  | { by: 'scale' }
  | { by: 'part'; part: PartUpdate }
  | { by: 'handler'; handler: SubresourceHandler };

/** The stores of virtual resources the server provides by name (see `ResourceDefinition.handler`). */
export type ResourceHandler = 'Bindings' | 'ComponentStatuses' | 'Revisions';

/** The subresource stores the server provides by name (see `SubresourceServing`). */
export type SubresourceHandler = 'PodBinding' | 'PodEviction' | 'PodConnect' | 'ServiceProxy' | 'NodeProxy' | 'ServiceAccountToken';

/** How a connect subresource is reached. */
export type ConnectServing =
  | {
      /** The HTTP methods it answers. */
      methods: readonly string[];
      /** The options object CONNECT admission sees (the connecter's options kind, read from the query and subpath). */
      admissionOptions(query: URLSearchParams, path: string): KubeObject;
      read?: undefined;
    }
  | {
      methods: readonly string[];
      /** A read with options (Kubernetes' GetterWithOptions: `log`): no CONNECT admission, and OpenAPI lists a read. */
      read: true;
      admissionOptions?: undefined;
    };

export interface ResourceDefinition {
  group: string;
  version: string;
  resource: string;
  kind: string;
  singularName: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  verbs: string[];
  subresources: SubresourceDefinition[];
  /** The preferred version of its group (discovery). */
  preferred: boolean;
  deprecated?: { since?: string; removedIn?: string; replacement?: string };
  /**
   * Where objects live: the resource and group whose key space they share, and the version
   * they are stored in. Absent for virtual resources (reviews, bindings, ...).
   */
  storage?: { group: string; resource: string; version: string };
  /** The kind's behaviour; absent for virtual resources. */
  strategy?: Strategy;
  /** A virtual resource the server serves with the store it provides under this name. */
  handler?: ResourceHandler;
  /** How a virtual resource's objects print as a Table (a stored kind's: its Strategy's). */
  table?: TableConvertor;
  /** Conversion to the storage version when this version is not it. */
  conversion?: VersionConversion;
  /** Present on versions served for a CustomResourceDefinition. */
  customResource?: CustomResourceInfo;
}

/** What the layers that treat custom resources apart read of their definition. */
export interface CustomResourceInfo {
  /** The CustomResourceDefinition's name (`<plural>.<group>`) and uid. */
  crdName: string;
  crdUID: string;
  /** This version's structural schema; absent when the version has none. */
  schema?: JSONSchemaProps;
  /** `Warning: 299` text for requests to this version when it is deprecated. */
  deprecationWarning?: string;
}
