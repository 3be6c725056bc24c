// Query parameters and option bodies to the typed options the Store takes, validated the
// way kube-apiserver validates them (ListOptions, CreateOptions, DeleteOptions, ...).
import { ApiError, badRequest, invalid, notSupportedField, invalidField, type FieldError } from '../../apimachinery/errors.js';
import { isPlainObject } from '../../apimachinery/types.js';
import { metaGroup } from '../../naming/index.js';
import { validateListOptions, validateWatchOptions } from '../../registry/index.js';
import type { DeleteOptions, GetOptions, ListOptions } from '../../rest/index.js';

function goBool(name: string, value: string): boolean {
  if (['1', 't', 'T', 'true', 'TRUE', 'True', ''].includes(value)) return value !== '';
  if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(value)) return false;
  throw badRequest(`${name}: invalid value "${value}": strconv.ParseBool: parsing "${value}": invalid syntax`);
}

function intParam(query: URLSearchParams, name: string): number | undefined {
  const v = query.get(name);
  if (v === null || v === '') return undefined;
  if (!/^-?\d+$/.test(v) || !Number.isSafeInteger(Number(v))) {
    throw badRequest(`${name}: invalid value "${v}": strconv.ParseInt: parsing "${v}": invalid syntax`);
  }
  return Number(v);
}

function boolParam(query: URLSearchParams, name: string): boolean | undefined {
  const v = query.get(name);
  return v === null ? undefined : goBool(name, v);
}

function invalidOptions(kind: string, errors: FieldError[]): ApiError {
  return invalid({ group: metaGroup(), kind }, '', errors);
}

export function parseGetOptions(query: URLSearchParams): GetOptions {
  const rv = query.get('resourceVersion');
  return rv ? { resourceVersion: rv } : {};
}

/** ListOptions from the query, validated as for a list (or a watch when `watch` is set): 400 for malformed values, 422 for invalid combinations. */
export function parseListOptions(query: URLSearchParams, watch: boolean): ListOptions {
  const opts: ListOptions = {};
  const str = (n: string): string | undefined => {
    const v = query.get(n);
    return v === null || v === '' ? undefined : v;
  };
  opts.labelSelector = str('labelSelector');
  opts.fieldSelector = str('fieldSelector');
  opts.resourceVersion = str('resourceVersion');
  const match = str('resourceVersionMatch');
  opts.limit = intParam(query, 'limit');
  opts.continue = str('continue');
  opts.timeoutSeconds = intParam(query, 'timeoutSeconds');
  opts.allowWatchBookmarks = boolParam(query, 'allowWatchBookmarks');
  opts.sendInitialEvents = boolParam(query, 'sendInitialEvents');
  for (const k of Object.keys(opts) as (keyof ListOptions)[]) if (opts[k] === undefined) delete opts[k];

  // Semantic checks (which combinations are allowed) are the registry's, shared with
  // in-process callers; the raw value goes through so that they can name it.
  if (match !== undefined) opts.resourceVersionMatch = match as ListOptions['resourceVersionMatch'];
  if (watch) validateWatchOptions(opts);
  else validateListOptions(opts);
  if (opts.limit !== undefined && opts.limit <= 0) delete opts.limit;
  return opts;
}

/** `dryRun`: absent or `All`; anything else is invalid. */
export function parseDryRun(values: string[], kind: string): boolean {
  if (values.some((v) => v !== 'All')) throw invalidOptions(kind, [notSupportedField('dryRun', values, ['All'])]);
  return values.length > 0;
}

export function dryRunFromQuery(query: URLSearchParams, kind: string): boolean {
  return parseDryRun(query.getAll('dryRun').filter((v) => v !== ''), kind);
}

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

export function parseFieldValidation(query: URLSearchParams, kind: string): FieldValidation {
  const v = query.get('fieldValidation');
  if (v === null || v === '') return 'Warn';
  if (v === 'Ignore' || v === 'Warn' || v === 'Strict') return v;
  throw invalidOptions(kind, [notSupportedField('fieldValidation', v, ['Ignore', 'Warn', 'Strict'])]);
}

const propagationPolicies = ['Foreground', 'Background', 'Orphan'] as const;

/** DeleteOptions from the query and, when present, the body (the body's fields win). */
export function parseDeleteOptions(query: URLSearchParams, body: unknown): DeleteOptions & { orphanDependents?: boolean } {
  if (body !== undefined && !isPlainObject(body)) throw badRequest('the body of a delete request must be a DeleteOptions object');
  const b = (body ?? {}) as Record<string, unknown>;
  if (b.kind !== undefined && b.kind !== 'DeleteOptions') {
    throw badRequest(`got kind "${String(b.kind)}" in the body of a delete request, expected DeleteOptions`);
  }
  const errs: FieldError[] = [];
  const bodyDry = b.dryRun === undefined ? [] : Array.isArray(b.dryRun) ? b.dryRun.map(String) : [String(b.dryRun)];
  const dryRunValues = [...query.getAll('dryRun').filter((v) => v !== ''), ...bodyDry];
  const dryRun = parseDryRun(dryRunValues, 'DeleteOptions');
  const opts: DeleteOptions & { orphanDependents?: boolean } = { dryRun };

  const grace = b.gracePeriodSeconds ?? intParam(query, 'gracePeriodSeconds');
  if (grace !== undefined && grace !== null) {
    if (typeof grace !== 'number' || !Number.isInteger(grace)) throw badRequest('gracePeriodSeconds must be an integer');
    opts.gracePeriodSeconds = grace;
  }
  const policy = b.propagationPolicy ?? query.get('propagationPolicy') ?? undefined;
  if (policy !== undefined && policy !== null && policy !== '') {
    if (typeof policy !== 'string' || !(propagationPolicies as readonly string[]).includes(policy)) {
      errs.push(notSupportedField('propagationPolicy', policy, ['Foreground', 'Background', 'Orphan', 'nil']));
    } else opts.propagationPolicy = policy as DeleteOptions['propagationPolicy'];
  }
  const orphan = b.orphanDependents ?? boolParam(query, 'orphanDependents');
  if (orphan !== undefined && orphan !== null) {
    if (typeof orphan !== 'boolean') throw badRequest('orphanDependents must be a boolean');
    opts.orphanDependents = orphan;
    if (opts.propagationPolicy) {
      errs.push(invalidField('propagationPolicy', opts.propagationPolicy, 'orphanDependents and deletionPropagation cannot be both set'));
    }
  }
  if (b.preconditions !== undefined && b.preconditions !== null) {
    if (!isPlainObject(b.preconditions)) throw badRequest('preconditions must be an object');
    const p: { uid?: string; resourceVersion?: string } = {};
    if (typeof b.preconditions.uid === 'string') p.uid = b.preconditions.uid;
    if (typeof b.preconditions.resourceVersion === 'string') p.resourceVersion = b.preconditions.resourceVersion;
    opts.preconditions = p;
  }
  if (errs.length > 0) throw invalidOptions('DeleteOptions', errs);
  return opts;
}
