// The RuleWithOperations checks shared by webhook configurations and admission policies.
import { requiredField, type FieldError } from '../../apimachinery/errors.js';
import { arr, type JsonObject } from '../util.js';
import { oneOf } from '../validation.js';

export const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];

/** One rule at `p`: operations, groups, versions and resources required; the scope known. */
export function validateRuleWithOperations(r: JsonObject, p: string): FieldError[] {
  const errs: FieldError[] = [];
  const ops = arr(r.operations);
  if (ops.length === 0) errs.push(requiredField(`${p}.operations`));
  ops.forEach((op, j) => errs.push(...oneOf(op, OPERATIONS, `${p}.operations[${j}]`, true)));
  if (arr(r.apiGroups).length === 0) errs.push(requiredField(`${p}.apiGroups`));
  if (arr(r.apiVersions).length === 0) errs.push(requiredField(`${p}.apiVersions`));
  if (arr(r.resources).length === 0) errs.push(requiredField(`${p}.resources`));
  errs.push(...oneOf(r.scope, ['Cluster', 'Namespaced', '*'], `${p}.scope`));
  return errs;
}
