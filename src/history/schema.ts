// The OpenAPI schema of a Revision, published like a custom resource's (the kind is the
// product's own, outside the catalog of Kubernetes types).
import type { JSONSchemaProps } from '../apimachinery/jsonschema.js';

const str = (description: string): JSONSchemaProps => ({ type: 'string', description });

export function revisionSchema(): JSONSchemaProps {
  return {
    type: 'object',
    description: 'One revision of an object: the object as a write left it, who wrote it, and the JSON Patch from the revision before.',
    properties: {
      apiVersion: str('APIVersion defines the versioned schema of this representation of an object.'),
      kind: str('Kind is a string value representing the REST resource this object represents.'),
      metadata: { type: 'object' },
      target: {
        type: 'object',
        description: 'The object this revision is of.',
        properties: {
          apiVersion: str('The apiVersion of the object as written.'),
          kind: str('The kind of the object.'),
          group: str('The API group of the object\'s resource ("" for the core group).'),
          resource: str('The resource (plural) of the object.'),
          namespace: str('The namespace of the object; absent when cluster-scoped.'),
          name: str('The name of the object.'),
          uid: str('The uid of the object.'),
        },
      },
      revision: { type: 'integer', format: 'int64', description: 'The ordinal of this revision among the object\'s revisions, from 1.' },
      resourceVersion: str('The object\'s resourceVersion after this write.'),
      timestamp: { type: 'string', format: 'date-time', description: 'When the write was made.' },
      operation: str('Create, Update, Patch, Apply, Delete, UpdateStatus, PatchStatus or ApplyStatus.'),
      subresource: str('The subresource written through; absent for the object itself.'),
      user: {
        type: 'object',
        description: 'The authenticated user of the write.',
        properties: { username: str('The user\'s name.'), groups: { type: 'array', items: { type: 'string' } } },
      },
      fieldManager: str('The field manager of the write; absent when none.'),
      object: { type: 'object', description: 'The object as stored after the write (for a delete: as it was).', 'x-kubernetes-preserve-unknown-fields': true },
      patch: {
        type: 'array',
        description: 'The RFC 6902 JSON Patch from the previous revision\'s object to this one.',
        items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      },
    },
  };
}
