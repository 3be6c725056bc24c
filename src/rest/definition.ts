// What a served resource is: its names, scope, verbs, subresources, where it is stored, and
// the kind's Strategy.
import type { JSONSchemaProps } from '../apimachinery/jsonschema.js';
import type { Strategy, VersionConversion } from './strategy.js';

export interface SubresourceDefinition {
  name: string;
  kind: string;
  /** Group and version of the subresource's kind when it differs (Scale, Eviction, TokenRequest). */
  group?: string;
  version?: string;
  verbs: string[];
  /** Other versions of the subresource's group whose objects a create also takes (Eviction: v1beta1). */
  acceptedVersions?: string[];
}

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
