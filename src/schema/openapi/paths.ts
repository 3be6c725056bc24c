// The operations of served resources, in a neutral form that the Swagger 2.0 and
// OpenAPI 3 writers both render: one entry per path and method, with its parameters,
// body and responses by catalog type id.

import type { JSONSchemaProps } from '../../apimachinery/jsonschema.js';
import { extension, protobufMediaType, toKubernetesGroup } from '../../naming/index.js';
import { typeIdForKind } from '../catalog.js';
import { customId } from './custom.js';

/** What the OpenAPI documents need to know of a served resource (a ResourceDefinition fits). */
export interface OpenApiResource {
  /** Served group name. */
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
  /**
   * The subresources served; `connect` marks those served by connect (`read` for a read with
   * options, the log), which are listed with plain-text answers.
   */
  subresources: { name: string; kind: string; group?: string; version?: string; verbs: string[]; connect?: { read?: boolean } }[];
  /** Present for a version of a CustomResourceDefinition: its structural schema, if any. */
  customResource?: { schema?: JSONSchemaProps };
}

export interface Parameter {
  name: string;
  in: 'path' | 'query';
  type: 'string' | 'boolean' | 'integer';
  required?: boolean;
  description: string;
}

export interface Operation {
  method: 'get' | 'put' | 'post' | 'delete' | 'patch';
  operationId: string;
  /** Defaults to the operation id. */
  description?: string;
  tag: string;
  action: string;
  gvk: { group: string; version: string; kind: string };
  parameters: Parameter[];
  /** Catalog id of the request body, when there is one. */
  body?: string;
  consumes: string[];
  produces: string[];
  /** Status code to catalog id of the answer, or `string` for plain text. */
  responses: Record<string, string | undefined>;
}

interface PathEntry {
  path: string;
  operations: Operation[];
}

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
const STATUS = `${META}.Status`;
const DELETE_OPTIONS = `${META}.DeleteOptions`;
const PATCH = `${META}.Patch`;

const q = (name: string, type: Parameter['type'], description: string): Parameter => ({ name, in: 'query', type, description });

const PRETTY = q('pretty', 'string', "If 'true', then the output is pretty printed.");
const DRY_RUN = q('dryRun', 'string', 'When present, indicates that modifications should not be persisted. Valid values: All.');
const FIELD_MANAGER = q('fieldManager', 'string', 'A name associated with the actor or entity that is making these changes.');
const FIELD_VALIDATION = q('fieldValidation', 'string', 'How the server handles unknown or duplicate fields in the body: Ignore, Warn (default) or Strict.');
const FORCE = q('force', 'boolean', 'Force is going to "force" Apply requests: conflicting fields are taken over.');
const LIST_PARAMS = [
  q('allowWatchBookmarks', 'boolean', 'Requests watch events with type "BOOKMARK".'),
  q('continue', 'string', 'The continue option should be set when retrieving more results from the server.'),
  q('fieldSelector', 'string', 'A selector to restrict the list of returned objects by their fields.'),
  q('labelSelector', 'string', 'A selector to restrict the list of returned objects by their labels.'),
  q('limit', 'integer', 'The maximum number of responses to return for a list call.'),
  q('resourceVersion', 'string', 'Sets a constraint on what resource versions a request may be served from.'),
  q('resourceVersionMatch', 'string', 'Determines how resourceVersion is applied to list calls.'),
  q('sendInitialEvents', 'boolean', 'Whether a watch starts with synthetic events for the current state.'),
  q('timeoutSeconds', 'integer', 'Timeout for the list/watch call.'),
  q('watch', 'boolean', 'Watch for changes to the described resources and return them as a stream of add, update, and remove notifications.'),
];
const DELETE_PARAMS = [
  DRY_RUN,
  q('gracePeriodSeconds', 'integer', 'The duration in seconds before the object should be deleted.'),
  q('orphanDependents', 'boolean', 'Deprecated: please use the PropagationPolicy.'),
  q('propagationPolicy', 'string', "Whether and how garbage collection will be performed: 'Orphan', 'Background' or 'Foreground'."),
];
const pathParam = (name: string, description: string): Parameter => ({ name, in: 'path', type: 'string', required: true, description });
const NAME = (kind: string): Parameter => pathParam('name', `name of the ${kind}`);
const NAMESPACE = pathParam('namespace', 'object name and auth scope, such as for teams and projects');
function pascal(word: string): string {
  return word ? word[0].toUpperCase() + word.slice(1) : word;
}

/**
 * A word of an operation id as Kubernetes forms it: letters, `_` and (not first) digits
 * kept, anything else dropped and the next character capitalized (`cert-manager.io` is
 * `CertManagerIo` or `certManagerIo`).
 */
export function operationIdWord(s: string, capitalizeFirst: boolean): string {
  let out = '';
  let capitalize = capitalizeFirst;
  let i = 0;
  for (const ch of s) {
    if (/\p{L}/u.test(ch) || ch === '_' || (i !== 0 && /\p{Nd}/u.test(ch))) {
      out += capitalize ? ch.toUpperCase() : ch;
      capitalize = false;
    } else {
      capitalize = true;
    }
    i += ch.length;
  }
  return out;
}

function groupBase(upstreamGroup: string): string {
  return upstreamGroup === '' ? 'core' : upstreamGroup.replace(/\.k8s\.io$/, '');
}

/** `rbac.authorization.k8s.io` + `v1` is `RbacAuthorizationV1`; the core group is `Core`. */
function groupVersionWord(upstreamGroup: string, version: string): string {
  return operationIdWord(groupBase(upstreamGroup), true) + operationIdWord(version, true);
}

function tagOf(upstreamGroup: string, version: string): string {
  return `${operationIdWord(groupBase(upstreamGroup), false)}_${operationIdWord(version, false)}`;
}

function mediaTypes(): string[] {
  return ['application/json', 'application/yaml', protobufMediaType()];
}

/** The API path prefix of a group-version: `/api/v1` or `/apis/<group>/<version>`. */
export function groupVersionPath(group: string, version: string): string {
  return group ? `/apis/${group}/${version}` : `/api/${version}`;
}

/** Paths and operations of the given resources, in path order. */
export function buildPaths(resources: readonly OpenApiResource[]): PathEntry[] {
  const byPath = new Map<string, Operation[]>();
  const add = (path: string, op: Operation): void => {
    const ops = byPath.get(path) ?? [];
    ops.push(op);
    byPath.set(path, ops);
  };
  for (const r of resources) {
    if (r.customResource) {
      for (const [path, op] of customOperations(r)) add(path, op);
      continue;
    }
    const kindId = typeIdForKind(r);
    if (!kindId) continue; // kinds outside the catalog (custom resources) are not described
    const listId = typeIdForKind({ ...r, kind: `${r.kind}List` });
    const upstreamGroup = toKubernetesGroup(r.group);
    const gv = groupVersionWord(upstreamGroup, r.version);
    const tag = tagOf(upstreamGroup, r.version);
    const gvk = { group: r.group, version: r.version, kind: r.kind };
    const prefix = groupVersionPath(r.group, r.version);
    const collection = r.namespaced ? `${prefix}/namespaces/{namespace}/${r.resource}` : `${prefix}/${r.resource}`;
    const item = `${collection}/{name}`;
    const scope = r.namespaced ? 'Namespaced' : '';
    const nsParams = r.namespaced ? [NAMESPACE] : [];
    const verbs = new Set(r.verbs);
    const base = { tag, gvk, consumes: ['*/*'], produces: mediaTypes() };
    const write = [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION];

    if (verbs.has('list')) {
      add(collection, { ...base, method: 'get', action: 'list', operationId: `list${gv}${scope}${r.kind}`, parameters: [...nsParams, PRETTY, ...LIST_PARAMS], responses: { '200': listId } });
      if (r.namespaced) {
        add(`${prefix}/${r.resource}`, { ...base, method: 'get', action: 'list', operationId: `list${gv}${r.kind}ForAllNamespaces`, parameters: [PRETTY, ...LIST_PARAMS], responses: { '200': listId } });
      }
    }
    if (verbs.has('create')) {
      add(collection, { ...base, method: 'post', action: 'post', operationId: `create${gv}${scope}${r.kind}`, parameters: [...nsParams, PRETTY, ...write], body: kindId, responses: { '200': kindId, '201': kindId, '202': kindId } });
    }
    if (verbs.has('deletecollection')) {
      add(collection, { ...base, method: 'delete', action: 'deletecollection', operationId: `delete${gv}Collection${scope}${r.kind}`, parameters: [...nsParams, PRETTY, ...DELETE_PARAMS, ...LIST_PARAMS.filter((p) => p.name !== 'watch' && p.name !== 'allowWatchBookmarks')], body: DELETE_OPTIONS, responses: { '200': STATUS } });
    }
    const itemParams = [NAME(r.kind), ...nsParams, PRETTY];
    if (verbs.has('get')) add(item, { ...base, method: 'get', action: 'get', operationId: `read${gv}${scope}${r.kind}`, parameters: itemParams, responses: { '200': kindId } });
    if (verbs.has('update')) add(item, { ...base, method: 'put', action: 'put', operationId: `replace${gv}${scope}${r.kind}`, parameters: [...itemParams, ...write], body: kindId, responses: { '200': kindId, '201': kindId } });
    if (verbs.has('patch')) add(item, { ...base, ...patchMedia(), method: 'patch', action: 'patch', operationId: `patch${gv}${scope}${r.kind}`, parameters: [...itemParams, ...write, FORCE], body: PATCH, responses: { '200': kindId, '201': kindId } });
    if (verbs.has('delete')) add(item, { ...base, method: 'delete', action: 'delete', operationId: `delete${gv}${scope}${r.kind}`, parameters: [...itemParams, ...DELETE_PARAMS], body: DELETE_OPTIONS, responses: { '200': STATUS, '202': STATUS } });

    for (const sub of r.subresources) {
      const subGvk = { group: sub.group ?? r.group, version: sub.version ?? r.version, kind: sub.kind };
      const subId = typeIdForKind(subGvk);
      const path = `${item}/${sub.name}`;
      const word = `${r.kind}${sub.name.split(/[-_]/).map(pascal).join('')}`;
      const params = [pathParam('name', `name of the ${sub.kind}`), ...nsParams, PRETTY];
      const subBase = { ...base, gvk: subGvk };
      if (sub.connect || !subId) {
        const read = sub.connect?.read === true;
        const methods = connectMethods(sub.verbs);
        for (const method of methods) {
          add(path, { ...subBase, method, action: read ? 'get' : 'connect', operationId: `${method === 'get' && read ? 'read' : `connect${pascal(method)}`}${gv}${scope}${word}`, parameters: params, produces: ['*/*'], responses: { '200': 'string' } });
        }
        continue;
      }
      const subVerbs = new Set(sub.verbs);
      if (subVerbs.has('get')) add(path, { ...subBase, method: 'get', action: 'get', operationId: `read${gv}${scope}${word}`, parameters: params, responses: { '200': subId } });
      if (subVerbs.has('create')) add(path, { ...subBase, method: 'post', action: 'post', operationId: `create${gv}${scope}${word}`, parameters: [...params, ...write], body: subId, responses: { '200': subId, '201': subId, '202': subId } });
      if (subVerbs.has('update')) add(path, { ...subBase, method: 'put', action: 'put', operationId: `replace${gv}${scope}${word}`, parameters: [...params, ...write], body: subId, responses: { '200': subId, '201': subId } });
      if (subVerbs.has('patch')) add(path, { ...subBase, ...patchMedia(), method: 'patch', action: 'patch', operationId: `patch${gv}${scope}${word}`, parameters: [...params, ...write, FORCE], body: PATCH, responses: { '200': subId, '201': subId } });
    }
  }
  return [...byPath.keys()].sort().map((path) => ({ path, operations: byPath.get(path)! }));
}

/** `a` or `an` before a kind, none before a plural-looking one (Kubernetes' article rule). */
function article(noun: string): string {
  if (!noun.endsWith('ss') && noun.endsWith('s')) return ' ';
  return /^[aeiouAEIOU]/.test(noun) ? ' an ' : ' a ';
}

const CUSTOM_MEDIA = ['application/json', 'application/yaml'];
/** Strategic merge patch is not offered for custom resources. */
const CUSTOM_PATCH_MEDIA = ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'];

/**
 * The operations of a custom resource version, as kube-apiserver's CRD OpenAPI builder lists
 * them: JSON and YAML only, no strategic merge patch, a deletecollection without a body, and
 * the status and scale subresources when declared.
 */
function customOperations(r: OpenApiResource): [string, Operation][] {
  const out: [string, Operation][] = [];
  const upstreamGroup = toKubernetesGroup(r.group);
  const gv = groupVersionWord(upstreamGroup, r.version);
  const tag = tagOf(upstreamGroup, r.version);
  const gvk = { group: r.group, version: r.version, kind: r.kind };
  const kindId = customId(r.group, r.version, r.kind);
  const listId = customId(r.group, r.version, `${r.kind}List`);
  const prefix = groupVersionPath(r.group, r.version);
  const collection = r.namespaced ? `${prefix}/namespaces/{namespace}/${r.resource}` : `${prefix}/${r.resource}`;
  const item = `${collection}/{name}`;
  const scope = r.namespaced ? 'Namespaced' : '';
  const nsParams = r.namespaced ? [NAMESPACE] : [];
  const verbs = new Set(r.verbs);
  const base = { tag, gvk, consumes: CUSTOM_MEDIA, produces: CUSTOM_MEDIA };
  const write = [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION];
  const k = r.kind;

  if (verbs.has('list')) {
    if (r.namespaced) {
      out.push([`${prefix}/${r.resource}`, { ...base, method: 'get', action: 'list', operationId: `list${gv}${k}ForAllNamespaces`, description: `list objects of kind ${k}`, parameters: [PRETTY, ...LIST_PARAMS], responses: { '200': listId } }]);
    }
    out.push([collection, { ...base, method: 'get', action: 'list', operationId: `list${gv}${scope}${k}`, description: `list objects of kind ${k}`, parameters: [...nsParams, PRETTY, ...LIST_PARAMS], responses: { '200': listId } }]);
  }
  if (verbs.has('create')) {
    out.push([collection, { ...base, method: 'post', action: 'post', operationId: `create${gv}${scope}${k}`, description: `create${article(k)}${k}`, parameters: [...nsParams, PRETTY, ...write], body: kindId, responses: { '200': kindId, '201': kindId, '202': kindId } }]);
  }
  if (verbs.has('deletecollection')) {
    out.push([collection, { ...base, method: 'delete', action: 'deletecollection', operationId: `delete${gv}Collection${scope}${k}`, description: `delete collection of ${k}`, parameters: [...nsParams, PRETTY, ...LIST_PARAMS.filter((p) => p.name !== 'watch' && p.name !== 'allowWatchBookmarks')], responses: { '200': STATUS } }]);
  }
  const itemParams = [NAME(k), ...nsParams, PRETTY];
  if (verbs.has('get')) out.push([item, { ...base, method: 'get', action: 'get', operationId: `read${gv}${scope}${k}`, description: `read the specified ${k}`, parameters: itemParams, responses: { '200': kindId } }]);
  if (verbs.has('update')) out.push([item, { ...base, method: 'put', action: 'put', operationId: `replace${gv}${scope}${k}`, description: `replace the specified ${k}`, parameters: [...itemParams, ...write], body: kindId, responses: { '200': kindId, '201': kindId } }]);
  if (verbs.has('delete')) out.push([item, { ...base, method: 'delete', action: 'delete', operationId: `delete${gv}${scope}${k}`, description: `delete${article(k)}${k}`, parameters: [...itemParams, ...DELETE_PARAMS], body: DELETE_OPTIONS, responses: { '200': STATUS, '202': STATUS } }]);
  if (verbs.has('patch')) out.push([item, { ...base, consumes: CUSTOM_PATCH_MEDIA, method: 'patch', action: 'patch', operationId: `patch${gv}${scope}${k}`, description: `partially update the specified ${k}`, parameters: [...itemParams, ...write, FORCE], body: PATCH, responses: { '200': kindId } }]);

  for (const sub of r.subresources) {
    // A custom resource's subresources are its status (its own kind) and scale (the built-in Scale).
    const subGvk = { group: sub.group ?? r.group, version: sub.version ?? r.version, kind: sub.kind };
    const own = subGvk.group === r.group && subGvk.version === r.version && subGvk.kind === r.kind;
    const id = own ? kindId : (typeIdForKind(subGvk) ?? kindId);
    const word = `${k}${pascal(sub.name)}`;
    const path = `${item}/${sub.name}`;
    const subVerbs = new Set(sub.verbs);
    if (subVerbs.has('get')) out.push([path, { ...base, method: 'get', action: 'get', operationId: `read${gv}${scope}${word}`, description: `read ${sub.name} of the specified ${k}`, parameters: itemParams, responses: { '200': id } }]);
    if (subVerbs.has('update')) out.push([path, { ...base, method: 'put', action: 'put', operationId: `replace${gv}${scope}${word}`, description: `replace ${sub.name} of the specified ${k}`, parameters: [...itemParams, ...write], body: id, responses: { '200': id, '201': id } }]);
    if (subVerbs.has('patch')) out.push([path, { ...base, consumes: CUSTOM_PATCH_MEDIA, method: 'patch', action: 'patch', operationId: `patch${gv}${scope}${word}`, description: `partially update ${sub.name} of the specified ${k}`, parameters: [...itemParams, ...write, FORCE], body: PATCH, responses: { '200': id } }]);
  }
  return out;
}

function patchMedia(): { consumes: string[] } {
  return {
    consumes: ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml'],
  };
}

function connectMethods(verbs: string[]): Operation['method'][] {
  const out: Operation['method'][] = [];
  const map: Record<string, Operation['method']> = { get: 'get', create: 'post', update: 'put', delete: 'delete', patch: 'patch' };
  for (const v of verbs) if (map[v] && !out.includes(map[v])) out.push(map[v]);
  return out;
}

/** The extension names of operations in the running flavor. */
export function operationExtensions(op: Operation): Record<string, unknown> {
  return {
    [extension('action')]: op.action,
    [extension('group-version-kind')]: { group: op.gvk.group, kind: op.gvk.kind, version: op.gvk.version },
  };
}
