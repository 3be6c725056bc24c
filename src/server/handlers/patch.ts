// patch: JSON patch, merge patch and strategic merge patch of a stored object, and
// server-side apply (application/apply-patch+yaml), which may also create it.
import { badRequest, forbiddenField, invalid, invalidField, notFound, unsupportedMediaType } from '../../apimachinery/errors.js';
import { apiVersionOf, type KubeObject } from '../../apimachinery/types.js';
import { checkApplyVersion, decodeApplyConfigurationAsync, parseForce, validateApplyOptions } from '../../apply/index.js';
import { stringifyJson } from '../../codec/json.js';
import { typeMetaError } from '../../codec/go-json.js';
import { negotiatePatchType, type PatchType } from '../../codec/negotiate.js';
import { MalformedBodyError, parseJson } from '../../codec/serializer.js';
import { metaGroup } from '../../naming/index.js';
import {
  applyJsonPatch,
  applyMergePatch,
  applyStrategicMergePatch,
  catalogPatchSchema,
  catalogSupportsStrategicMergePatch,
  jsonPatchStrictErrors,
  strategicMergePatchNotSupported,
} from '../../patch/index.js';
import { typeIdForKind } from '../../schema/index.js';
import { headerValue } from '../http.js';
import { readBody } from './body.js';
import { checkName } from './decode.js';
import { addWarnings, checkFields, customResourceOf } from './field-validation.js';
import { dryRunFromQuery, parseFieldValidation, type FieldValidation } from './options.js';
import { writeTargetOf, type HandlerDeps, type Routed } from './request.js';
import { negotiate, respond } from './response.js';
import { updateResource } from './update.js';
import { checkedFieldManager, expectedKind } from './write.js';

const SUPPORTED: PatchType[] = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml'];
/** Custom resources have no strategic merge patch: there are no patch strategies in their schemas. */
const CUSTOM_RESOURCE_SUPPORTED: PatchType[] = ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'];

export async function servePatch(deps: HandlerDeps, routed: Routed): Promise<void> {
  const { r, ctx, store, subresource, namespace } = routed;
  const choice = negotiate(r, deps.serializers, store, 'object', subresource);
  const contentType = headerValue(r.req, 'content-type');
  const supported = store.definition.customResource ? CUSTOM_RESOURCE_SUPPORTED : SUPPORTED;
  const patchType = patchTypeOf(contentType, supported);
  const dryRun = dryRunFromQuery(r.query, 'PatchOptions');
  const level = parseFieldValidation(r.query, 'PatchOptions');
  const raw = await readBody(r.req, deps.maxBodyBytes);
  if (raw.byteLength === 0) throw badRequest('the request body is empty');
  if (patchType === 'application/apply-patch+yaml') return serveApply(deps, routed, raw, dryRun, level);
  if (r.query.has('force')) {
    throw invalid({ group: metaGroup(), kind: 'PatchOptions' }, '', [forbiddenField('force', 'may not be specified for non-apply patch')]);
  }
  const name = r.info.name;
  const kind = expectedKind(store, subresource);
  const def = store.definition;
  const fieldManager = checkedFieldManager(r.query.get('fieldManager') ?? undefined, 'PatchOptions');
  const result = await updateResource(
    deps.admission,
    ctx,
    writeTargetOf(routed, name, dryRun),
    (current) => {
      // As in Kubernetes, the patch is read once the object is known to exist.
      if (!current) throw notFound({ group: def.group, resource: def.resource }, name);
      const patch = decodePatch(raw, patchType, level);
      r.audit?.requestPatch(patch);
      let patched: unknown;
      let opErrors: string[] = [];
      if (patchType === 'application/json-patch+json') {
        if (level !== 'Ignore') opErrors = jsonPatchStrictErrors(patch);
        patched = applyJsonPatch(structuredClone(current), patch);
      } else if (patchType === 'application/merge-patch+json') patched = applyMergePatch(structuredClone(current), patch);
      else patched = strategicPatch(structuredClone(current), patch, kind);
      const obj = patchedObject(patched, level, opErrors);
      if (level === 'Warn') addWarnings(r.warnings, opErrors);
      addWarnings(r.warnings, checkFields(raw, obj, kind, level, contentType ?? '', true, customResourceOf(def, kind)));
      checkName(obj, name, def.namespaced ? namespace : '');
      return obj;
    },
    { dryRun, fieldManager, userAgent: headerValue(r.req, 'user-agent') },
    'patch',
  );
  respond(r, deps.serializers, store, choice, result.created ? 201 : 200, result.object, deps.now?.() ?? new Date());
}

/**
 * Server-side apply: the configuration is merged into the live object (created when
 * missing) by the field manager, which also records ownership and refuses conflicts.
 */
async function serveApply(deps: HandlerDeps, routed: Routed, raw: Uint8Array, dryRun: boolean, level: FieldValidation): Promise<void> {
  const { r, ctx, store, subresource, namespace } = routed;
  const choice = negotiate(r, deps.serializers, store, 'object', subresource);
  const fieldManager = validateApplyOptions(r.query.get('fieldManager'));
  const force = parseForce(r.query.get('force'));
  const config = await decodeApplyConfigurationAsync(raw);
  r.audit?.requestPatch(config);
  const name = r.info.name;
  const kind = expectedKind(store, subresource);
  const def = store.definition;
  checkApplyVersion(config, apiVersionOf(kind), kind.kind);
  const result = await updateResource(
    deps.admission,
    ctx,
    writeTargetOf(routed, name, dryRun),
    async (current, applied) => {
      // Creating through apply needs the create permission besides patch.
      if (!current && deps.authorize) await deps.authorize({ ...r.info, verb: 'create' }, r.user);
      // The Store merged the configuration into the current object (UpdateOptions.apply).
      if (!applied) throw new Error('the store answered an apply without the merged object');
      const obj = applied;
      addWarnings(r.warnings, checkFields(raw, obj, kind, level, 'application/apply-patch+yaml', true));
      if (obj.metadata?.name === undefined) (obj.metadata ??= {}).name = name;
      checkName(obj, name, def.namespaced ? namespace : '');
      return obj;
    },
    {
      dryRun,
      fieldManager,
      force,
      forceAllowCreate: !subresource,
      apply: { configuration: config, force },
      userAgent: headerValue(r.req, 'user-agent'),
    },
  );
  respond(r, deps.serializers, store, choice, result.created ? 201 : 200, result.object, deps.now?.() ?? new Date());
}

/** The patch type of the request, one the resource accepts; 415 listing those otherwise. */
function patchTypeOf(contentType: string | undefined, supported: PatchType[]): PatchType {
  let patchType: PatchType | undefined;
  try {
    patchType = negotiatePatchType(contentType);
  } catch {
    patchType = undefined;
  }
  if (!patchType || !supported.includes(patchType)) throw unsupportedMediaType(supported);
  return patchType;
}

/** Strategic merge patch with the kind's schema, for the built-in kinds of the schema catalog. */
function strategicPatch(doc: unknown, patch: unknown, kind: { group: string; version: string; kind: string }): unknown {
  const typeId = typeIdForKind(kind);
  if (!typeId || !catalogSupportsStrategicMergePatch(typeId)) throw strategicMergePatchNotSupported();
  return applyStrategicMergePatch(doc, patch, catalogPatchSchema(typeId));
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
