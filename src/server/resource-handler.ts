// The handlers per verb for resource requests: find the Store in the resource table,
// decode the body, run mutating admission, call the Store (validating admission inside
// it), and encode the answer in the negotiated representation.
import { stringifyJson } from '../codec/json.js';
import type { AdmissionAttributes, AdmissionChain, AdmissionOperation } from '../admission/types.js';
import {
  badRequest,
  forbiddenField,
  invalid,
  invalidField,
  methodNotSupported,
  notFound,
  successStatus,
  unsupportedMediaType,
} from '../apimachinery/errors.js';
import { apiVersionOf, isPlainObject, type KubeList, type KubeObject, type UserInfo } from '../apimachinery/types.js';
import { negotiateInput, negotiateOutput, negotiatePatchType, type OutputChoice, type PatchType, type Target } from '../codec/negotiate.js';
import {
  fallbackTableConvertor,
  parseIncludeObject,
  partialObjectMetadata,
  partialObjectMetadataList,
  toTable,
} from '../codec/representation.js';
import { goJsonKind, typeMetaError } from '../codec/go-json.js';
import { decodeObjectBodyAsync } from '../codec/object-body.js';
import { decodeBody, MalformedBodyError, parseJson, type SerializerSet } from '../codec/serializer.js';
import { metaGroup } from '../naming/index.js';
import type { CreateOptions, RESTStore, RequestContext, ResourceTable, TableConvertor, UpdateOptions, ValidateObjectFunc } from '../rest/index.js';
import { checkApplyVersion, decodeApplyConfigurationAsync, fieldManagerErrors, fieldManagerForKind, parseForce, validateApplyOptions } from '../apply/index.js';
import { readBody } from './body.js';
import { genericNotFound, headerValue, methodNotAllowed, setWarnings, writeBody, type ServerRequest, type ServerResponse } from './http.js';
import {
  dryRunFromQuery,
  parseDeleteOptions,
  parseFieldValidation,
  parseGetOptions,
  parseListOptions,
  type FieldValidation,
} from './options.js';
import type { RequestInfo } from './request-info.js';
import { serveWatch } from './watch-handler.js';

/** The patch functions of the patch module, injected so that the server does not own them. */
export interface Patchers {
  json(doc: unknown, ops: unknown): unknown;
  /** The strict reading of JSON patch operations (`fieldValidation` Warn and Strict): throws 400 for wrongly typed fields, returns unknown-field messages. */
  jsonStrictErrors?(ops: unknown): string[];
  merge(doc: unknown, patch: unknown): unknown;
  /** Strategic merge patch with the kind's schema; absent until the schema is wired. */
  strategic?(doc: unknown, patch: unknown, kind: { group: string; version: string; kind: string }): unknown;
}

/**
 * Field checks of a decoded body (unknown and duplicate fields) at the requested level:
 * returns the warnings for `Warn`, throws ApiError 400 for `Strict`.
 */
export type FieldChecker = (
  body: Uint8Array,
  obj: KubeObject,
  kind: { group: string; version: string; kind: string },
  level: FieldValidation,
  contentType: string,
  /** True when `obj` is the result of applying the patch in `body`. */
  patched?: boolean,
) => string[];

export interface ResourceHandlerDeps {
  table: ResourceTable;
  serializers: SerializerSet;
  patchers: Patchers;
  admission?: AdmissionChain;
  fieldChecker?: FieldChecker;
  maxBodyBytes: number;
  /** Watches without timeoutSeconds last between this and twice this. */
  minRequestTimeoutSeconds: number;
  /** Aborts every watch when the server shuts down. */
  shutdownSignal: AbortSignal;
  /** Authorizes a further verb on the same resource (an apply that creates also needs `create`). */
  authorize?: (info: RequestInfo, user: UserInfo) => Promise<void>;
  now?: () => Date;
}

export interface ResourceRequest {
  req: ServerRequest;
  res: ServerResponse;
  info: RequestInfo;
  query: URLSearchParams;
  user: UserInfo;
  signal: AbortSignal;
  warnings: string[];
  pretty: boolean;
}

interface ResolvedStore {
  store: RESTStore;
  /** The namespace the Store is called with: '' for cluster-scoped resources and cluster-wide lists. */
  namespace: string;
}

/** The method of each verb's route at a collection, an object and a subresource path. */
const COLLECTION_ROUTES: Record<string, string> = { list: 'GET', create: 'POST', deletecollection: 'DELETE' };
const OBJECT_ROUTES: Record<string, string> = { get: 'GET', update: 'PUT', patch: 'PATCH', delete: 'DELETE' };
const SUBRESOURCE_ROUTES: Record<string, string> = { get: 'GET', create: 'POST', update: 'PUT', patch: 'PATCH' };
/** Across namespaces only lists are served; the legacy `/watch/` paths serve watches only. */
const CLUSTER_WIDE_ROUTES: Record<string, string> = { list: 'GET' };
const WATCH_ROUTES: Record<string, string> = { watch: 'GET' };

const STORE_METHODS: Record<string, keyof RESTStore> = {
  get: 'get',
  list: 'list',
  watch: 'watch',
  create: 'create',
  update: 'update',
  patch: 'update',
  delete: 'delete',
  deletecollection: 'deleteCollection',
};

/**
 * Finds the Store for the request and checks scope and verb, as Kubernetes routes requests:
 * a path no verb of the resource is served at is 404; a path served for other methods is
 * the generic 405; a route whose storage lacks the verb (a watch of a resource that is
 * only listed) is 405 naming the verb.
 */
export function resolveStore(table: ResourceTable, info: RequestInfo, method: string): ResolvedStore {
  const store = table.lookup({ group: info.apiGroup, version: info.apiVersion }, info.resource);
  if (!store) throw genericNotFound();
  const def = store.definition;
  const isNamespaceObject = def.group === '' && def.resource === 'namespaces';
  if (!def.namespaced && info.namespace !== '' && !isNamespaceObject) throw genericNotFound();
  const clusterWide = def.namespaced && info.namespace === '';
  let verbs = def.verbs;
  let routes: Record<string, string>;
  if (info.subresource) {
    const sub = def.subresources.find((s) => s.name === info.subresource);
    if (!sub || info.collection || info.legacyWatch || clusterWide) throw genericNotFound();
    verbs = sub.verbs;
    routes = SUBRESOURCE_ROUTES;
  } else if (info.legacyWatch) {
    // Watching a collection needs a list to start from.
    routes = info.collection && !verbs.includes('list') ? {} : WATCH_ROUTES;
  } else if (clusterWide) {
    routes = info.collection ? CLUSTER_WIDE_ROUTES : {};
  } else {
    routes = info.collection ? COLLECTION_ROUTES : OBJECT_ROUTES;
  }
  const methods = new Set(verbs.flatMap((v) => routes[v] ?? []));
  if (methods.size === 0) throw genericNotFound();
  if (!methods.has(method === 'HEAD' ? 'GET' : method)) throw methodNotAllowed();
  const storeMethod = STORE_METHODS[info.verb];
  if (!verbs.includes(info.verb) || !storeMethod || typeof store[storeMethod] !== 'function') {
    throw methodNotSupported({ group: def.group, resource: def.resource }, info.verb);
  }
  return { store, namespace: def.namespaced ? info.namespace : '' };
}

export class ResourceHandler {
  constructor(private readonly deps: ResourceHandlerDeps) {}

  async handle(r: ResourceRequest): Promise<void> {
    const { store, namespace } = resolveStore(this.deps.table, r.info, (r.req.method ?? 'GET').toUpperCase());
    const ctx: RequestContext = { user: r.user, signal: r.signal, warnings: r.warnings };
    switch (r.info.verb) {
      case 'get':
        return this.get(r, ctx, store, namespace);
      case 'list':
        return this.list(r, ctx, store, namespace);
      case 'watch':
        return serveWatch(r, ctx, store, namespace, this.deps);
      case 'create':
        return this.create(r, ctx, store, namespace);
      case 'update':
        return this.update(r, ctx, store, namespace);
      case 'patch':
        return this.patch(r, ctx, store, namespace);
      case 'delete':
        return this.delete(r, ctx, store, namespace);
      case 'deletecollection':
        return this.deleteCollection(r, ctx, store, namespace);
    }
  }

  private output(r: ResourceRequest, store: RESTStore, target: Target): OutputChoice {
    return negotiateOutput(headerValue(r.req, 'accept'), this.deps.serializers, target, { kind: this.expectedKind(r, store) });
  }

  private async get(r: ResourceRequest, ctx: RequestContext, store: RESTStore, ns: string): Promise<void> {
    const choice = this.output(r, store, 'object');
    const obj = await store.get!(ctx, ns, r.info.name, parseGetOptions(r.query), r.info.subresource || undefined);
    if (r.signal.aborted) return;
    this.respond(r, store, choice, 200, obj);
  }

  private async list(r: ResourceRequest, ctx: RequestContext, store: RESTStore, ns: string): Promise<void> {
    const choice = this.output(r, store, 'list');
    const list = await store.list!(ctx, ns, parseListOptions(r.query, false));
    // A client that reset its stream meanwhile gets nothing: encoding a large list for nobody is the cost.
    if (r.signal.aborted) return;
    this.respond(r, store, choice, 200, list);
  }

  /** The kind a request body must be, with its group and version. */
  private expectedKind(r: ResourceRequest, store: RESTStore): { group: string; version: string; kind: string } {
    const def = store.definition;
    if (r.info.subresource) {
      const sub = def.subresources.find((s) => s.name === r.info.subresource);
      if (sub) return { group: sub.group ?? def.group, version: sub.version ?? def.version, kind: sub.kind };
    }
    return { group: def.group, version: def.version, kind: def.kind };
  }

  /** Decodes a body into an object of the expected kind (defaulting apiVersion and kind). */
  private async decodeObject(r: ResourceRequest, store: RESTStore, optionsKind: string): Promise<KubeObject> {
    const want = this.expectedKind(r, store);
    const serializer = negotiateInput(headerValue(r.req, 'content-type'), this.deps.serializers, want);
    const body = await readBody(r.req, this.deps.maxBodyBytes);
    const obj = await decodeObjectBodyAsync(serializer, body, want);
    const wantApiVersion = apiVersionOf(want);
    const gotKind = obj.kind || want.kind;
    const gotApiVersion = obj.apiVersion || wantApiVersion;
    if (gotApiVersion !== wantApiVersion) {
      throw badRequest(`the API version in the data (${gotApiVersion}) does not match the expected API version (${wantApiVersion})`);
    }
    if (gotKind !== want.kind) {
      throw badRequest(`${gotKind} in version "${want.version}" cannot be handled as a ${want.kind}: the kind in the data does not match the resource`);
    }
    obj.apiVersion = wantApiVersion;
    obj.kind = want.kind;
    const level = parseFieldValidation(r.query, optionsKind);
    if (this.deps.fieldChecker) {
      r.warnings.push(...this.deps.fieldChecker(body, obj, want, level, headerValue(r.req, 'content-type') ?? 'application/json'));
    }
    // Kinds outside the schema catalog still need object metadata, worded as Go's decoder.
    if (obj.metadata !== undefined && !isPlainObject(obj.metadata)) {
      throw badRequest(
        `${want.kind} in version "${want.version}" cannot be handled as a ${want.kind}: json: cannot unmarshal ${goJsonKind(obj.metadata)} into Go struct field ${want.kind}.metadata of type v1.ObjectMeta`,
      );
    }
    return obj;
  }

  private checkNamespace(obj: KubeObject, ns: string, store: RESTStore): void {
    if (!store.definition.namespaced) return;
    const meta = (obj.metadata ??= {});
    if (meta.namespace && meta.namespace !== ns) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    meta.namespace = ns;
  }

  private admissionAttributes(
    r: ResourceRequest,
    store: RESTStore,
    operation: AdmissionOperation,
    ns: string,
    name: string,
    dryRun: boolean,
    object?: KubeObject,
    oldObject?: KubeObject,
  ): AdmissionAttributes {
    const def = store.definition;
    const kind = this.expectedKind(r, store);
    return {
      operation,
      object,
      oldObject,
      kind,
      resource: { group: def.group, version: def.version, resource: def.resource },
      subresource: r.info.subresource,
      namespace: ns,
      name,
      user: r.user,
      dryRun,
      options: optionsFromQuery(r.query, operation),
      warnings: r.warnings,
    };
  }

  private validator(r: ResourceRequest, store: RESTStore, operation: AdmissionOperation, ns: string, name: string, dryRun: boolean): ValidateObjectFunc | undefined {
    const chain = this.deps.admission;
    if (!chain) return undefined;
    return async (obj, old) => {
      const op: AdmissionOperation = operation === 'UPDATE' && old === undefined ? 'CREATE' : operation;
      const attrs = this.admissionAttributes(r, store, op, ns, obj?.metadata?.name ?? name, dryRun, operation === 'DELETE' ? undefined : obj, old);
      await chain.validate(attrs);
    };
  }

  private async admit(attrs: AdmissionAttributes): Promise<void> {
    if (this.deps.admission) await this.deps.admission.admit(attrs);
  }

  private async create(r: ResourceRequest, ctx: RequestContext, store: RESTStore, ns: string): Promise<void> {
    const choice = this.output(r, store, 'object');
    const dryRun = dryRunFromQuery(r.query, 'CreateOptions');
    const obj = await this.decodeObject(r, store, 'CreateOptions');
    const subName = r.info.subresource ? r.info.name : undefined;
    if (!r.info.subresource) this.checkNamespace(obj, ns, store);
    const name = subName ?? obj.metadata?.name ?? '';
    await this.admit(this.admissionAttributes(r, store, 'CREATE', ns, name, dryRun, obj));
    const created = await store.create!(
      ctx,
      ns,
      obj,
      this.writeOptions(r, store, 'CREATE', 'CreateOptions', ns, name, dryRun),
      subName,
      r.info.subresource || undefined,
    );
    this.respond(r, store, choice, 201, created);
  }

  private async update(r: ResourceRequest, ctx: RequestContext, store: RESTStore, ns: string): Promise<void> {
    const choice = this.output(r, store, 'object');
    const dryRun = dryRunFromQuery(r.query, 'UpdateOptions');
    const body = await this.decodeObject(r, store, 'UpdateOptions');
    const name = r.info.name;
    checkName(body, name, ns);
    this.checkNamespace(body, ns, store);
    const result = await store.update!(
      ctx,
      ns,
      name,
      async (current) => {
        const obj = structuredClone(body);
        await this.admit(this.admissionAttributes(r, store, current ? 'UPDATE' : 'CREATE', ns, name, dryRun, obj, current));
        return obj;
      },
      this.writeOptions(r, store, 'UPDATE', 'UpdateOptions', ns, name, dryRun),
      r.info.subresource || undefined,
    );
    this.respond(r, store, choice, result.created ? 201 : 200, result.object);
  }

  private async patch(r: ResourceRequest, ctx: RequestContext, store: RESTStore, ns: string): Promise<void> {
    const choice = this.output(r, store, 'object');
    const contentType = headerValue(r.req, 'content-type');
    const patchType = negotiatePatchType(contentType);
    const patchers = this.deps.patchers;
    const supported = [
      'application/json-patch+json',
      'application/merge-patch+json',
      ...(patchers.strategic ? ['application/strategic-merge-patch+json'] : []),
      'application/apply-patch+yaml',
    ];
    if (!supported.includes(patchType)) throw unsupportedMediaType(supported);
    const dryRun = dryRunFromQuery(r.query, 'PatchOptions');
    const level = parseFieldValidation(r.query, 'PatchOptions');
    const raw = await readBody(r.req, this.deps.maxBodyBytes);
    if (raw.byteLength === 0) throw badRequest('the request body is empty');
    if (patchType === 'application/apply-patch+yaml') return this.apply(r, ctx, store, ns, raw, dryRun, level);
    if (r.query.has('force')) {
      throw invalid({ group: metaGroup(), kind: 'PatchOptions' }, '', [forbiddenField('force', 'may not be specified for non-apply patch')]);
    }
    const name = r.info.name;
    const kind = this.expectedKind(r, store);
    const def = store.definition;
    const result = await store.update!(
      ctx,
      ns,
      name,
      async (current) => {
        // As in Kubernetes, the patch is read once the object is known to exist.
        if (!current) throw notFound({ group: def.group, resource: def.resource }, name);
        const patch = decodePatch(raw, patchType, level);
        let patched: unknown;
        let opErrors: string[] = [];
        if (patchType === 'application/json-patch+json') {
          if (level !== 'Ignore') opErrors = patchers.jsonStrictErrors?.(patch) ?? [];
          patched = patchers.json(structuredClone(current), patch);
        } else if (patchType === 'application/merge-patch+json') patched = patchers.merge(structuredClone(current), patch);
        else patched = patchers.strategic!(structuredClone(current), patch, kind);
        const obj = patchedObject(patched, level, opErrors);
        for (const w of level === 'Warn' ? opErrors : []) if (!r.warnings.includes(w)) r.warnings.push(w);
        if (this.deps.fieldChecker) {
          const warnings = this.deps.fieldChecker(raw, obj, kind, level, contentType ?? '', true);
          for (const w of warnings) if (!r.warnings.includes(w)) r.warnings.push(w);
        }
        checkName(obj, name, def.namespaced ? ns : '');
        await this.admit(this.admissionAttributes(r, store, 'UPDATE', ns, name, dryRun, obj, current));
        return obj;
      },
      this.writeOptions(r, store, 'UPDATE', 'PatchOptions', ns, name, dryRun),
      r.info.subresource || undefined,
    );
    this.respond(r, store, choice, result.created ? 201 : 200, result.object);
  }

  /**
   * Server-side apply: the configuration is merged into the live object (created when
   * missing) by the field manager, which also records ownership and refuses conflicts.
   */
  private async apply(r: ResourceRequest, ctx: RequestContext, store: RESTStore, ns: string, raw: Uint8Array, dryRun: boolean, level: FieldValidation): Promise<void> {
    const choice = this.output(r, store, 'object');
    const fieldManager = validateApplyOptions(r.query.get('fieldManager'));
    const force = parseForce(r.query.get('force'));
    const config = await decodeApplyConfigurationAsync(raw);
    const name = r.info.name;
    const kind = this.expectedKind(r, store);
    const def = store.definition;
    checkApplyVersion(config, apiVersionOf(kind), kind.kind);
    const subresource = r.info.subresource || undefined;
    const manager = fieldManagerForKind({
      ...kind,
      apiVersion: apiVersionOf(kind),
      subresource,
      hasStatus: def.strategy?.hasStatus ?? false,
      now: this.deps.now ?? (() => new Date()),
    });
    const result = await store.update!(
      ctx,
      ns,
      name,
      async (current) => {
        // Creating through apply needs the create permission besides patch.
        if (!current && this.deps.authorize) await this.deps.authorize({ ...r.info, verb: 'create' }, r.user);
        const obj = manager.apply(current, structuredClone(config), fieldManager, force);
        if (this.deps.fieldChecker) {
          const warnings = this.deps.fieldChecker(raw, obj, kind, level, 'application/apply-patch+yaml', true);
          for (const w of warnings) if (!r.warnings.includes(w)) r.warnings.push(w);
        }
        if (obj.metadata?.name === undefined) (obj.metadata ??= {}).name = name;
        checkName(obj, name, def.namespaced ? ns : '');
        await this.admit(this.admissionAttributes(r, store, current ? 'UPDATE' : 'CREATE', ns, name, dryRun, obj, current));
        return obj;
      },
      {
        dryRun,
        fieldManager,
        force,
        forceAllowCreate: !subresource,
        managedFieldsComputed: true,
        userAgent: headerValue(r.req, 'user-agent'),
        validate: this.validator(r, store, 'UPDATE', ns, name, dryRun),
      },
      subresource,
    );
    this.respond(r, store, choice, result.created ? 201 : 200, result.object);
  }

  /**
   * What every create, update and patch hands the Store: dry run, the field manager (checked
   * as Kubernetes checks it) and the User-Agent it defaults from, and admission's validation.
   */
  private writeOptions(
    r: ResourceRequest,
    store: RESTStore,
    operation: 'CREATE' | 'UPDATE',
    optionsKind: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions',
    ns: string,
    name: string,
    dryRun: boolean,
  ): CreateOptions & UpdateOptions {
    const fieldManager = r.query.get('fieldManager') ?? undefined;
    if (fieldManager !== undefined) {
      const errs = fieldManagerErrors(fieldManager);
      if (errs.length > 0) throw invalid({ group: metaGroup(), kind: optionsKind }, '', errs);
    }
    return { dryRun, fieldManager, userAgent: headerValue(r.req, 'user-agent'), validate: this.validator(r, store, operation, ns, name, dryRun) };
  }

  private async readOptionalJson(r: ResourceRequest): Promise<unknown> {
    const raw = await readBody(r.req, this.deps.maxBodyBytes);
    if (raw.byteLength === 0) return undefined;
    const serializer = negotiateInput(headerValue(r.req, 'content-type'), this.deps.serializers);
    try {
      return await decodeBody(serializer, raw);
    } catch (e) {
      // DeleteOptions are read as any object: the type fields first.
      throw e instanceof MalformedBodyError ? badRequest(e.objectMessage) : e;
    }
  }

  private async delete(r: ResourceRequest, ctx: RequestContext, store: RESTStore, ns: string): Promise<void> {
    const choice = this.output(r, store, 'object');
    const opts = parseDeleteOptions(r.query, await this.readOptionalJson(r));
    const name = r.info.name;
    await this.admit(this.admissionAttributes(r, store, 'DELETE', ns, name, opts.dryRun));
    const { orphanDependents, ...storeOpts } = opts;
    const result = await store.delete!(ctx, ns, name, { ...storeOpts, validate: this.validator(r, store, 'DELETE', ns, name, opts.dryRun) });
    const def = store.definition;
    const code = !result.deleted && orphanDependents === false ? 202 : 200;
    if (result.deleted && !def.strategy?.returnDeletedObject) {
      // Kubernetes answers a completed delete with a Success Status naming the object (no code field).
      const status: Record<string, unknown> = { ...successStatus() };
      delete status.code;
      const details: Record<string, unknown> = { name: result.object.metadata?.name ?? name };
      if (def.group) details.group = def.group;
      details.kind = def.resource;
      if (result.object.metadata?.uid) details.uid = result.object.metadata.uid;
      status.details = details;
      this.writeEncoded(r, choice, code, status);
      return;
    }
    this.respond(r, store, choice, code, result.object);
  }

  private async deleteCollection(r: ResourceRequest, ctx: RequestContext, store: RESTStore, ns: string): Promise<void> {
    const choice = this.output(r, store, 'list');
    const listOpts = parseListOptions(r.query, false);
    const opts = parseDeleteOptions(r.query, await this.readOptionalJson(r));
    await this.admit(this.admissionAttributes(r, store, 'DELETE', ns, '', opts.dryRun));
    const { orphanDependents: _o, ...storeOpts } = opts;
    const list = await store.deleteCollection!(ctx, ns, { ...storeOpts, validate: this.validator(r, store, 'DELETE', ns, '', opts.dryRun) }, listOpts);
    this.respond(r, store, choice, 200, list);
  }

  /** Encodes an object or list in the negotiated representation and writes it. */
  respond(r: ResourceRequest, store: RESTStore, choice: OutputChoice, code: number, value: KubeObject | KubeList): void {
    const rep = choice.representation;
    let out: unknown = value;
    const isList = Array.isArray((value as KubeList).items);
    if (value.kind !== 'Status') {
      if (rep.as === 'Table') {
        const includeObject = parseIncludeObject(r.query.get('includeObject'));
        const convertor = tableConvertorOf(store);
        const items = isList ? (value as KubeList).items : [value as KubeObject];
        const listMeta = isList ? (value as KubeList).metadata : { resourceVersion: (value as KubeObject).metadata?.resourceVersion };
        out = toTable(items, listMeta, convertor, { version: rep.version, includeObject, withColumns: true, now: this.deps.now?.() ?? new Date() });
      } else if (rep.as !== 'Object') {
        out = isList ? partialObjectMetadataList(value as KubeList, rep.version) : partialObjectMetadata(value as KubeObject, rep.version);
      }
    }
    this.writeEncoded(r, choice, code, out);
  }

  private writeEncoded(r: ResourceRequest, choice: OutputChoice, code: number, out: unknown): void {
    const isStatus = isPlainObject(out) && out.kind === 'Status';
    // A Status in answer to a Table or metadata request is written as itself, in JSON.
    const serializer = isStatus && choice.representation.as !== 'Object' ? this.deps.serializers.all()[0]! : choice.serializer;
    const contentType = isStatus ? serializer.mediaType : choice.contentType;
    const bytes = serializer.encode(out, { pretty: r.pretty });
    setWarnings(r.res, r.warnings);
    writeBody(r.res, code, contentType, bytes, r.req.method === 'HEAD');
  }
}

/**
 * A patch document, read as Kubernetes reads each patch type: Go's decoder text, prefixed
 * `error decoding patch:` when fields are checked (JSON and merge patches), and `Invalid
 * JSON Patch` for a malformed merge patch otherwise.
 */
function decodePatch(raw: Uint8Array, patchType: PatchType, level: FieldValidation): unknown {
  try {
    return parseJson(raw);
  } catch (e) {
    if (!(e instanceof MalformedBodyError) || patchType === 'application/strategic-merge-patch+json') throw e;
    if (level !== 'Ignore') throw badRequest(`error decoding patch: ${e.message}`);
    if (patchType === 'application/merge-patch+json') throw badRequest('Invalid JSON Patch');
    throw e;
  }
}

/**
 * The result of a patch as the object to store: what is not an object with readable type
 * fields (a merge patch that is an array replaces the document) is the 422 Kubernetes gives
 * when the patched document does not decode; so are unknown fields of JSON patch
 * operations under `Strict`.
 */
function patchedObject(patched: unknown, level: FieldValidation, opErrors: string[]): KubeObject {
  const problem = typeMetaError(patched) ?? (level === 'Strict' && opErrors.length > 0 ? `strict decoding error: ${opErrors.join(', ')}` : undefined);
  if (problem) throw invalid({ group: '', kind: '' }, '', [invalidField('patch', stringifyJson(patched), problem)]);
  return (patched ?? {}) as KubeObject;
}

/** The object must carry the URL's name, and no other namespace than the request's. */
function checkName(obj: KubeObject, name: string, namespace: string): void {
  const objName = typeof obj.metadata?.name === 'string' ? obj.metadata.name : '';
  if (objName !== name) throw badRequest(`the name of the object (${objName}) does not match the name on the URL (${name})`);
  const objNamespace = obj.metadata?.namespace;
  if (namespace && typeof objNamespace === 'string' && objNamespace !== '' && objNamespace !== namespace) {
    throw badRequest(`the namespace of the object (${objNamespace}) does not match the namespace on the request (${namespace})`);
  }
}

/**
 * A virtual resource without a Strategy may still print its own columns by carrying a
 * `tableConvertor` (an extension of RESTStore local to the server).
 */
export interface TablePrinting {
  tableConvertor?: TableConvertor;
}

/** The columns of a resource: its Strategy's, a virtual store's own, or Name and Created At. */
export function tableConvertorOf(store: RESTStore): TableConvertor {
  return store.definition.strategy?.table ?? (store as RESTStore & TablePrinting).tableConvertor ?? fallbackTableConvertor;
}

/** The options object admission plugins and webhooks see, from the query. */
function optionsFromQuery(query: URLSearchParams, operation: AdmissionOperation): Record<string, unknown> {
  const kind = operation === 'CREATE' ? 'CreateOptions' : operation === 'UPDATE' ? 'UpdateOptions' : 'DeleteOptions';
  const o: Record<string, unknown> = { kind, apiVersion: `${metaGroup()}/v1` };
  const dry = query.getAll('dryRun').filter((v) => v);
  if (dry.length > 0) o.dryRun = dry;
  const fm = query.get('fieldManager');
  if (fm && operation !== 'DELETE') o.fieldManager = fm;
  return o;
}
