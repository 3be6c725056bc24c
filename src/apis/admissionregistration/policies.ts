// ValidatingAdmissionPolicy and its bindings (admissionregistration v1alpha1 in 1.27): the
// v1alpha1 defaults, the write-time checks, and the compiled form of a policy's CEL
// expressions that both the checks and the admission plugin use.
import { duplicateField, invalidField, notSupportedField, requiredField, type FieldError } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { compileInScope, type CheckedProgram } from '../../schema/cel/compile.js';
import { BOOL, DYN, STRING, listOf, mapOf, type CelT } from '../../schema/cel/types.js';
import type { KindSpec } from '../strategy.js';
import { ageColumn, column, nameColumn, since } from '../table.js';
import { validateRuleWithOperations } from './rules.js';
import { arr, obj, objs, setDefault, str, type JsonObject } from '../util.js';
import { isDNS1123Subdomain, oneOf, validateLabelSelector } from '../validation.js';

/** The reasons a validation may answer with (1.27). */
export const VALIDATION_REASONS = ['Forbidden', 'Invalid', 'RequestEntityTooLarge', 'Unauthorized'];
const VALIDATION_ACTIONS = ['Audit', 'Deny', 'Warn'];
/** Kubernetes bounds the audit annotations of one policy. */
const MAX_AUDIT_ANNOTATIONS = 20;
const MAX_MATCH_CONDITIONS = 64;

function defaultMatchResources(m: JsonObject | undefined): void {
  if (!m) return;
  setDefault(m, 'matchPolicy', 'Equivalent');
  setDefault(m, 'namespaceSelector', {});
  setDefault(m, 'objectSelector', {});
  for (const r of [...objs(m.resourceRules), ...objs(m.excludeResourceRules)]) setDefault(r, 'scope', '*');
}

function defaultPolicy(o: KubeObject): void {
  const spec = obj(o.spec);
  if (!spec) return;
  setDefault(spec, 'failurePolicy', 'Fail');
  defaultMatchResources(obj(spec.matchConstraints));
}

function defaultBinding(o: KubeObject): void {
  defaultMatchResources(obj(obj(o.spec)?.matchResources));
}

// --- CEL environment -------------------------------------------------------------------

const gvk: CelT = { kind: 'object', fields: new Map([['group', STRING], ['version', STRING], ['kind', STRING]]) };
const gvr: CelT = { kind: 'object', fields: new Map([['group', STRING], ['version', STRING], ['resource', STRING]]) };
const userInfo: CelT = {
  kind: 'object',
  fields: new Map<string, CelT>([
    ['username', STRING],
    ['uid', STRING],
    ['groups', listOf(STRING)],
    ['extra', mapOf(STRING, listOf(STRING))],
  ]),
};
/** `request`: the admission request as the 1.27 CEL environment declares it. */
export const REQUEST_TYPE: CelT = {
  kind: 'object',
  fields: new Map<string, CelT>([
    ['kind', gvk],
    ['resource', gvr],
    ['subResource', STRING],
    ['requestKind', gvk],
    ['requestResource', gvr],
    ['requestSubResource', STRING],
    ['name', STRING],
    ['namespace', STRING],
    ['operation', STRING],
    ['userInfo', userInfo],
    ['dryRun', BOOL],
    ['options', DYN],
  ]),
};

/** The variables an expression sees; `params` only when the policy has a paramKind. */
export function policyScope(hasParams: boolean): Map<string, CelT> {
  const scope = new Map<string, CelT>([
    ['object', DYN],
    ['oldObject', DYN],
    ['request', REQUEST_TYPE],
  ]);
  if (hasParams) scope.set('params', DYN);
  return scope;
}

type ResultKind = 'bool' | 'string' | 'string-or-null';

function resultError(kind: ResultKind): string {
  return kind === 'bool' ? 'must evaluate to bool' : kind === 'string' ? 'must evaluate to string' : 'must evaluate to one of [string null_type]';
}

/** Compiles one expression; its result must be exactly the wanted type (dyn is not enough, as in cel-go). */
export function compilePolicyExpression(src: string, hasParams: boolean, want: ResultKind): { ok: true; value: CheckedProgram } | { ok: false; detail: string } {
  const out = compileInScope(src, policyScope(hasParams), 'compilation failed');
  if (!out.ok) return out;
  const t = out.value.type.kind;
  const fits = want === 'bool' ? t === 'bool' : want === 'string' ? t === 'string' : t === 'string' || t === 'null';
  return fits ? out : { ok: false, detail: resultError(want) };
}

export interface CompiledValidation {
  expression: string;
  message: string;
  messageExpression: string;
  /** `Invalid` when unset. */
  reason: string;
  program?: CheckedProgram;
  messageProgram?: CheckedProgram;
}

export interface CompiledAuditAnnotation {
  key: string;
  valueExpression: string;
  program?: CheckedProgram;
}

export interface CompiledMatchCondition {
  name: string;
  expression: string;
  program?: CheckedProgram;
}

/** A policy's expressions compiled, with the errors that make it unusable. */
export interface CompiledPolicy {
  validations: CompiledValidation[];
  auditAnnotations: CompiledAuditAnnotation[];
  matchConditions: CompiledMatchCondition[];
  errors: FieldError[];
}

const hasNewlines = (s: string): boolean => /[\n\r]/.test(s);

/** Compiles the CEL of a policy's spec; `errors` are at the fields' paths under `spec`. */
export function compilePolicy(spec: JsonObject | undefined): CompiledPolicy {
  const hasParams = obj(spec?.paramKind) !== undefined;
  const errors: FieldError[] = [];
  const validations = objs(spec?.validations).map((v, i): CompiledValidation => {
    const p = `spec.validations[${i}]`;
    const expression = str(v.expression) ?? '';
    const message = str(v.message) ?? '';
    const messageExpression = str(v.messageExpression) ?? '';
    const out: CompiledValidation = { expression, message, messageExpression, reason: str(v.reason) ?? 'Invalid' };
    if (expression.trim() === '') errors.push(requiredField(`${p}.expression`, 'expression is not specified'));
    else {
      const c = compilePolicyExpression(expression, hasParams, 'bool');
      if (c.ok) out.program = c.value;
      else errors.push(invalidField(`${p}.expression`, expression, c.detail));
    }
    if (messageExpression.length > 0 && messageExpression.trim() === '') {
      errors.push(invalidField(`${p}.messageExpression`, messageExpression, 'must be non-empty if specified'));
    } else if (messageExpression.trim() !== '') {
      const c = compilePolicyExpression(messageExpression, hasParams, 'string');
      if (c.ok) out.messageProgram = c.value;
      else errors.push(invalidField(`${p}.messageExpression`, messageExpression, c.detail));
    }
    const trimmedMsg = message.trim();
    if (message.length > 0 && trimmedMsg === '') errors.push(invalidField(`${p}.message`, message, 'message must be non-empty if specified'));
    else if (hasNewlines(trimmedMsg)) errors.push(invalidField(`${p}.message`, message, 'message must not contain line breaks'));
    if (v.reason !== undefined && v.reason !== null && !VALIDATION_REASONS.includes(String(v.reason))) {
      errors.push(notSupportedField(`${p}.reason`, v.reason, VALIDATION_REASONS));
    }
    return out;
  });
  const keys = new Set<string>();
  const annotations = objs(spec?.auditAnnotations);
  if (annotations.length > MAX_AUDIT_ANNOTATIONS) {
    errors.push(invalidField('spec.auditAnnotations', spec?.auditAnnotations, `must not have more than ${MAX_AUDIT_ANNOTATIONS} auditAnnotations`));
  }
  const auditAnnotations = annotations.map((a, i): CompiledAuditAnnotation => {
    const p = `spec.auditAnnotations[${i}]`;
    const key = str(a.key) ?? '';
    const valueExpression = str(a.valueExpression) ?? '';
    const out: CompiledAuditAnnotation = { key, valueExpression };
    if (key === '') errors.push(requiredField(`${p}.key`));
    else if (key.length > 63 || !/^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(key)) {
      errors.push(invalidField(`${p}.key`, key, "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"));
    }
    if (keys.has(key)) errors.push(duplicateField(`${p}.key`, key));
    keys.add(key);
    if (valueExpression.trim() === '') errors.push(requiredField(`${p}.valueExpression`, 'valueExpression is not specified'));
    else {
      const c = compilePolicyExpression(valueExpression, hasParams, 'string-or-null');
      if (c.ok) out.program = c.value;
      else errors.push(invalidField(`${p}.valueExpression`, valueExpression, c.detail));
    }
    return out;
  });
  const conditions = objs(spec?.matchConditions);
  if (conditions.length > MAX_MATCH_CONDITIONS) errors.push({ type: 'FieldValueTooMany', field: 'spec.matchConditions', detail: `Too many: ${conditions.length}: must have at most ${MAX_MATCH_CONDITIONS} items` });
  const names = new Set<string>();
  const matchConditions = conditions.map((m, i): CompiledMatchCondition => {
    const p = `spec.matchConditions[${i}]`;
    const name = str(m.name) ?? '';
    const expression = str(m.expression) ?? '';
    const out: CompiledMatchCondition = { name, expression };
    if (expression.trim() === '') errors.push(requiredField(`${p}.expression`));
    else {
      const c = compilePolicyExpression(expression.trim(), hasParams, 'bool');
      if (c.ok) out.program = c.value;
      else errors.push(invalidField(`${p}.expression`, expression.trim(), c.detail));
    }
    if (name === '') errors.push(requiredField(`${p}.name`));
    else if (names.has(name)) errors.push(duplicateField(`${p}.name`, name));
    names.add(name);
    return out;
  });
  return { validations, auditAnnotations, matchConditions, errors };
}

// --- write-time checks -----------------------------------------------------------------

function validateRules(rules: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  objs(rules).forEach((r, i) => {
    const p = `${path}[${i}]`;
    errs.push(...validateRuleWithOperations(r, p));
    const seen = new Set<string>();
    arr(r.resourceNames).forEach((n, j) => {
      const name = String(n);
      if (name === '.' || name === '..') errs.push(invalidField(`${p}.resourceNames[${j}]`, name, `may not be '${name}'`));
      else if (/[/%]/.test(name)) errs.push(invalidField(`${p}.resourceNames[${j}]`, name, `may not contain '${name.includes('/') ? '/' : '%'}'`));
      if (seen.has(name)) errs.push(duplicateField(`${p}.resourceNames[${j}]`, name));
      seen.add(name);
    });
  });
  return errs;
}

function validateMatchResources(m: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (m.matchPolicy === undefined || m.matchPolicy === null) errs.push(requiredField(`${path}.matchPolicy`));
  else errs.push(...oneOf(m.matchPolicy, ['Equivalent', 'Exact'], `${path}.matchPolicy`));
  for (const s of ['namespaceSelector', 'objectSelector']) {
    if (m[s] === undefined || m[s] === null) errs.push(requiredField(`${path}.${s}`));
    else errs.push(...validateLabelSelector(m[s], `${path}.${s}`));
  }
  errs.push(...validateRules(m.resourceRules, `${path}.resourceRules`));
  errs.push(...validateRules(m.excludeResourceRules, `${path}.excludeResourceRules`));
  return errs;
}

function validateParamKind(pk: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const apiVersion = str(pk.apiVersion) ?? '';
  if (apiVersion === '') errs.push(requiredField(`${path}.apiVersion`));
  else {
    const parts = apiVersion.split('/');
    if (parts.length > 2) errs.push(invalidField(`${path}.apiVersion`, apiVersion, `unexpected GroupVersion string: ${apiVersion}`));
    else {
      const [g, v] = parts.length === 2 ? parts : ['', parts[0]];
      if (g !== '') for (const m of isDNS1123Subdomain(g)) errs.push(invalidField(`${path}.apiVersion`, g, m));
      if (v === '') errs.push(invalidField(`${path}.apiVersion`, apiVersion, 'version must be specified'));
      else if (!/^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(v) || v.length > 63) {
        errs.push(invalidField(`${path}.apiVersion`, v, "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"));
      }
    }
  }
  const kind = str(pk.kind) ?? '';
  if (kind === '') errs.push(requiredField(`${path}.kind`));
  else if (!/^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(kind.toLowerCase()) || kind.length > 63) {
    errs.push(invalidField(`${path}.kind`, kind, "may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"));
  }
  return errs;
}

export function validatePolicy(o: KubeObject): FieldError[] {
  const spec = obj(o.spec) ?? {};
  const errs: FieldError[] = [];
  if (spec.failurePolicy === undefined || spec.failurePolicy === null) errs.push(requiredField('spec.failurePolicy'));
  else errs.push(...oneOf(spec.failurePolicy, ['Fail', 'Ignore'], 'spec.failurePolicy'));
  const pk = obj(spec.paramKind);
  if (pk) errs.push(...validateParamKind(pk, 'spec.paramKind'));
  const mc = obj(spec.matchConstraints);
  if (!mc) errs.push(requiredField('spec.matchConstraints'));
  else {
    errs.push(...validateMatchResources(mc, 'spec.matchConstraints'));
    // The resource rules give the expressions their types; a policy needs at least one.
    if (arr(mc.resourceRules).length === 0) errs.push(requiredField('spec.matchConstraints.resourceRules'));
  }
  const compiled = compilePolicy(spec);
  if (arr(spec.validations).length === 0 && arr(spec.auditAnnotations).length === 0) {
    errs.push(requiredField('spec.validations', 'validations or auditAnnotations must contain at least one item'));
    errs.push(requiredField('spec.auditAnnotations', 'validations or auditAnnotations must contain at least one item'));
  }
  errs.push(...compiled.errors);
  return errs;
}

export function validateBinding(o: KubeObject): FieldError[] {
  const spec = obj(o.spec) ?? {};
  const errs: FieldError[] = [];
  if (!str(spec.policyName)) errs.push(requiredField('spec.policyName'));
  const paramRef = obj(spec.paramRef);
  if (paramRef) {
    const name = str(paramRef.name) ?? '';
    if (name === '') errs.push(requiredField('spec.paramRef.name'));
    else for (const m of isDNS1123Subdomain(name)) errs.push(invalidField('spec.paramRef.name', name, m));
    const ns = str(paramRef.namespace);
    if (ns) for (const m of isDNS1123Subdomain(ns)) errs.push(invalidField('spec.paramRef.namespace', ns, m));
  }
  const mr = obj(spec.matchResources);
  if (mr) errs.push(...validateMatchResources(mr, 'spec.matchResources'));
  const actions = arr(spec.validationActions);
  const seen = new Set<string>();
  actions.forEach((a, i) => {
    if (typeof a !== 'string' || !VALIDATION_ACTIONS.includes(a)) errs.push(notSupportedField(`spec.validationActions[${i}]`, a, VALIDATION_ACTIONS));
    if (seen.has(String(a))) errs.push(duplicateField(`spec.validationActions[${i}]`, a));
    seen.add(String(a));
  });
  if (seen.has('Deny') && seen.has('Warn')) {
    errs.push(invalidField('spec.validationActions', actions, 'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)'));
  }
  if (seen.size === 0) errs.push(requiredField('spec.validationActions', 'at least one validation action is required'));
  return errs;
}

export const validatingAdmissionPolicy: KindSpec = {
  tracksGeneration: true,
  defaults: defaultPolicy,
  validate: validatePolicy,
  // kubectl's columns: NAME, VALIDATIONS, PARAMKIND, AGE.
  table: {
    columns: [nameColumn, column('Validations', 'integer', 'Validations indicates the number of validation rules defined in this configuration'), column('ParamKind', 'string', 'ParamKind specifies the kind of resources used to parameterize this policy'), ageColumn],
    cells: (o: KubeObject, now: Date) => {
      const spec = obj(o.spec);
      const pk = obj(spec?.paramKind);
      return [o.metadata?.name ?? '', objs(spec?.validations).length, pk ? `${str(pk.apiVersion) ?? ''}/${str(pk.kind) ?? ''}` : '<unset>', since(o.metadata?.creationTimestamp, now)];
    },
  },
};

export const validatingAdmissionPolicyBinding: KindSpec = {
  tracksGeneration: true,
  defaults: defaultBinding,
  validate: validateBinding,
  // kubectl's columns: NAME, POLICYNAME, PARAMREF, AGE.
  table: {
    columns: [nameColumn, column('PolicyName', 'string', 'PolicyName references a ValidatingAdmissionPolicy name which the ValidatingAdmissionPolicyBinding binds to'), column('ParamRef', 'string', 'ParamRef specifies the parameter resource used to configure the admission control policy'), ageColumn],
    cells: (o: KubeObject, now: Date) => {
      const spec = obj(o.spec);
      const ref = obj(spec?.paramRef);
      return [o.metadata?.name ?? '', str(spec?.policyName) ?? '', ref ? `${str(ref.namespace) ? `${str(ref.namespace)}/` : ''}${str(ref.name) ?? ''}` : '<unset>', since(o.metadata?.creationTimestamp, now)];
    },
  },
};
