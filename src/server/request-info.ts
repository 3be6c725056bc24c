// RequestInfo: what a request addresses, read from its method, path and query alone,
// before any routing. Authorization, metrics and the handlers all read it.
//
//   /api/v1/namespaces/{ns}/{resource}/{name}/{subresource}
//   /apis/{group}/{version}/{resource}/{name}
//   /api/v1/watch/namespaces/{ns}/{resource}      (legacy watch paths)
//
// Anything else (`/api`, `/apis/{group}/{version}`, `/healthz`, ...) is a non-resource request.

import { parseFieldSelector } from '../apimachinery/fields.js';
import { parseLabelSelector } from '../apimachinery/labels.js';

export interface RequestInfo {
  isResourceRequest: boolean;
  /** The URL path, unescaped segments joined again. */
  path: string;
  /** API verb for resource requests (`list`, `watch`, ...); the lower-case method otherwise. */
  verb: string;
  apiPrefix: string;
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  /**
   * Set when the path is a namespace's own (`/namespaces/{name}`, its `status` and
   * `finalize`): `namespace` is then the object's name, not a scope.
   */
  namespaceObject?: true;
  resource: string;
  subresource: string;
  name: string;
  /** True when the request came in through a legacy `/watch/` path. */
  legacyWatch: boolean;
  /**
   * True when the path names no object. `name` may still be set from an exact
   * `metadata.name` field selector, for authorization, as Kubernetes does.
   */
  collection: boolean;
  /**
   * The decoded path segments from the resource on (`resource/name/subresource/...`), as
   * Kubernetes keeps them: a connect subresource reads its path remainder from them.
   */
  parts?: string[];
}

const specialVerbs = new Set(['proxy', 'watch']);
/** Path segments after `/namespaces/{name}/` that are subresources of the namespace itself. */
const namespaceSubresources = new Set(['status', 'finalize']);

export class RequestInfoError extends Error {}

function nonResource(method: string, path: string): RequestInfo {
  return {
    isResourceRequest: false,
    path,
    verb: method.toLowerCase(),
    apiPrefix: '',
    apiGroup: '',
    apiVersion: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
    legacyWatch: false,
    collection: false,
  };
}

function splitPath(path: string): string[] {
  // The usual path has one leading slash and no trailing one: no trimming needed.
  const trimmed = path.length > 1 && path[0] === '/' && path[1] !== '/' && !path.endsWith('/') ? path.slice(1) : path.replace(/^\/+|\/+$/g, '');
  return trimmed === '' ? [] : trimmed.split('/');
}

/** A segment without an escape decodes to itself. */
const decodeSegment = (p: string): string => (p.includes('%') ? decodeURIComponent(p) : p);

function isWatchValue(v: string | null): boolean {
  if (v === null) return false;
  const l = v.toLowerCase();
  return l !== 'false' && l !== '0';
}

/** Like a path-segment name check: no `/`, `%`, and not `.` or `..`. */
function isValidPathSegmentName(name: string): boolean {
  return name !== '' && name !== '.' && name !== '..' && !name.includes('/') && !name.includes('%');
}

/**
 * The name a `metadata.name=X` (or `==`) term of a field selector pins, read as Kubernetes
 * parses field selectors (terms sorted, values unescaped, no spaces trimmed); undefined
 * when there is none or the selector does not parse.
 */
export function exactNameFromFieldSelector(selector: string | null): string | undefined {
  if (!selector) return undefined;
  try {
    return parseFieldSelector(selector).requiresExactMatch('metadata.name');
  } catch {
    return undefined;
  }
}

/** Go's strconv.ParseInt(s, 10, 64) succeeds. */
function isInt64(s: string): boolean {
  if (!/^[+-]?[0-9]+$/.test(s)) return false;
  const n = BigInt(s);
  return n >= -(2n ** 63n) && n < 2n ** 63n;
}

/**
 * Whether the query decodes as ListOptions: its selectors parse and its integers are
 * integers. When it does not, Kubernetes names no object for the request (the list handler
 * answers the error later).
 */
function listOptionsDecode(query: URLSearchParams): boolean {
  for (const key of ['limit', 'timeoutSeconds']) {
    const v = query.get(key);
    if (v !== null && !isInt64(v)) return false;
  }
  try {
    const labels = query.get('labelSelector');
    if (labels) parseLabelSelector(labels);
    const fields = query.get('fieldSelector');
    if (fields) parseFieldSelector(fields);
  } catch {
    return false;
  }
  return true;
}

/**
 * Parses a request. Throws RequestInfoError for resource paths too short to name a
 * resource (`/api/v1/watch`), which the server answers with 404.
 */
export function parseRequestInfo(method: string, pathname: string, query: URLSearchParams, apiPrefixes = ['api', 'apis']): RequestInfo {
  let parts: string[];
  try {
    parts = splitPath(pathname).map(decodeSegment);
  } catch {
    throw new RequestInfoError('malformed path');
  }
  const path = '/' + parts.join('/');
  // `/api/v1` and `/apis/{group}` are discovery documents, not resources.
  if (parts.length < 3) return nonResource(method, path);
  const prefix = parts[0]!;
  if (!apiPrefixes.includes(prefix)) return nonResource(method, path);
  let rest = parts.slice(1);
  let apiGroup = '';
  if (prefix !== 'api') {
    if (rest.length < 3) return nonResource(method, path);
    apiGroup = rest[0]!;
    rest = rest.slice(1);
  }
  const apiVersion = rest[0]!;
  rest = rest.slice(1);
  let verb: string;
  let legacyWatch = false;
  if (specialVerbs.has(rest[0]!)) {
    if (rest.length < 2) throw new RequestInfoError('unable to determine kind and namespace from url');
    verb = rest[0]!;
    legacyWatch = verb === 'watch';
    rest = rest.slice(1);
  } else {
    verb = methodVerb(method);
  }
  let namespace = '';
  let namespaceObject = false;
  if (rest[0] === 'namespaces') {
    if (rest.length > 1) {
      namespace = rest[1]!;
      if (rest.length > 2 && !namespaceSubresources.has(rest[2]!)) rest = rest.slice(2);
      else namespaceObject = true;
    }
  }
  let resource = '';
  let name = '';
  let subresource = '';
  if (rest.length >= 3 && verb !== 'proxy') subresource = rest[2]!;
  if (rest.length >= 2) name = rest[1]!;
  if (rest.length >= 1) resource = rest[0]!;
  const collection = name === '';

  if (name === '' && verb === 'get') {
    verb = isWatchValue(query.get('watch')) ? 'watch' : 'list';
    // A list or watch pinned to one name is authorized like a get of that name (RBAC
    // resourceNames, the Node authorizer). Legacy `/watch/` paths are not, as in Kubernetes.
    const exact = exactNameFromFieldSelector(query.get('fieldSelector'));
    if (exact !== undefined && isValidPathSegmentName(exact) && listOptionsDecode(query)) name = exact;
  }
  if (name === '' && verb === 'delete') verb = 'deletecollection';
  return {
    isResourceRequest: true,
    path,
    verb,
    apiPrefix: prefix,
    apiGroup,
    apiVersion,
    namespace,
    ...(namespaceObject ? { namespaceObject: true as const } : {}),
    resource,
    subresource,
    name,
    legacyWatch,
    collection,
    parts: rest,
  };
}

function methodVerb(method: string): string {
  switch (method) {
    case 'POST':
      return 'create';
    case 'GET':
    case 'HEAD':
      return 'get';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return 'delete';
    default:
      return '';
  }
}

const LONG_RUNNING_VERBS = new Set(['watch', 'proxy']);
const LONG_RUNNING_SUBRESOURCES = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);

/**
 * kube-apiserver's long-running check: watches and the connect subresources stream for as
 * long as the client wants, so the request deadline and the in-flight limit do not apply.
 */
export function isLongRunning(info: RequestInfo): boolean {
  return info.isResourceRequest && (LONG_RUNNING_VERBS.has(info.verb) || LONG_RUNNING_SUBRESOURCES.has(info.subresource));
}

/** What authorizers and audit policies read of a request: the verb and the resource or path it addresses. */
export function requestAttributes(info: RequestInfo): Pick<RequestInfo, 'verb' | 'isResourceRequest' | 'path' | 'apiGroup' | 'apiVersion' | 'resource' | 'subresource' | 'namespace' | 'name'> {
  const { verb, isResourceRequest, path, apiGroup, apiVersion, resource, subresource, namespace, name } = info;
  return { verb, isResourceRequest, path, apiGroup, apiVersion, resource, subresource, namespace, name };
}
