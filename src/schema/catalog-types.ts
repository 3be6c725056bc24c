// The shape of the schema catalog: facts about every built-in type of the release 1.27
// surface, generated from the upstream type definitions by tools/catalog and stored as
// data. One catalog serves validation, strict field checking, strategic merge patch,
// server-side apply, the protobuf codec and the OpenAPI documents.
//
// Group names inside the catalog are the upstream ones (`rbac.authorization.k8s.io`);
// readers map them through the naming module for the running flavor.

/** Leaf value types, after Go-to-schema mapping. */
export type ScalarType =
  | 'string'
  | 'boolean'
  | 'int32'
  | 'int64'
  | 'float64'
  /** []byte: base64 in JSON, bytes in protobuf. */
  | 'bytes'
  /** intstr.IntOrString. */
  | 'int-or-string'
  /** resource.Quantity: a string in JSON in canonical form. */
  | 'quantity'
  /** metav1.Time: RFC 3339 seconds. */
  | 'time'
  /** metav1.MicroTime: RFC 3339 with microseconds. */
  | 'micro-time'
  /** metav1.Duration: a Go duration string. */
  | 'duration'
  /** runtime.RawExtension: any JSON object, bytes in protobuf. */
  | 'raw-extension'
  /** metav1.FieldsV1: a JSON object, bytes in protobuf. */
  | 'fields-v1'
  /** apiextensions JSON: any JSON value. */
  | 'json';

export type TypeRef =
  | { scalar: ScalarType }
  /** A named struct type of the catalog, by id. */
  | { ref: string }
  /** A Go slice. */
  | { list: TypeRef }
  /** A Go map with string keys. */
  | { map: TypeRef };

export interface ProtobufField {
  /** Field number in the message. */
  number: number;
  /** Protobuf type as declared upstream: `string`, `int32`, `int64`, `bool`, `bytes`, `double`, or a message name. */
  type: string;
  /** `optional` or `repeated`, as declared. */
  label: 'optional' | 'repeated';
  /** Packed encoding for repeated scalars (proto2: only when `[packed=true]`). */
  packed?: boolean;
  /**
   * For Go maps: the protobuf map entry's key and value types (`map<string, string>`) or,
   * for maps of slices, the wrapper message (e.g. `StringList`).
   */
  mapEntry?: { key: string; value: string };
}

export interface FieldDef {
  /** JSON name. */
  name: string;
  type: TypeRef;
  /** Required in the OpenAPI sense (no `omitempty` and not marked optional, or `+required`). */
  required: boolean;
  /** `omitempty` on the JSON tag: a zero value is left out. */
  omitEmpty: boolean;
  /** A Go pointer: absent and zero value are distinct. */
  pointer?: boolean;
  /** `json:",inline"`: the referenced struct's fields appear at this level. */
  inline?: boolean;
  protobuf?: ProtobufField;
  /** `patchStrategy` tag: any of `merge`, `retainKeys`, `replace`. */
  patchStrategy?: string[];
  patchMergeKey?: string;
  listType?: 'atomic' | 'set' | 'map';
  listMapKeys?: string[];
  mapType?: 'atomic' | 'granular';
  /** Allowed values where the type declares an enum. */
  enum?: string[];
}

export interface TypeDef {
  /** OpenAPI-style id of the upstream type, e.g. `io.k8s.api.core.v1.Pod`. */
  id: string;
  /** Fields in declaration order (protobuf order is by number). */
  fields: FieldDef[];
  /** The kinds this type is served as (upstream group names). */
  kinds?: { group: string; version: string; kind: string }[];
  /** Protobuf message name, e.g. `k8s.io.api.core.v1.Pod`. */
  protobufMessage?: string;
  /** `+structType=atomic` and similar markers on the type itself. */
  structType?: 'atomic' | 'granular';
  /** The type is a Go string/int alias used as a scalar (then `scalar` is set and fields are empty). */
  scalar?: ScalarType;
}

export interface Catalog {
  /** Release of the upstream definitions, e.g. `v0.27.16`. */
  source: string;
  types: Record<string, TypeDef>;
}
