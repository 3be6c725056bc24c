// The RBAC group: rule shapes, role references and subjects, the immutable roleRef, and
// the role and binding columns.
import { invalidField, notSupportedField, requiredField, type FieldError } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { group } from '../../naming/index.js';
import type { KindSpec } from '../strategy.js';
import { ageColumn, column, createdAtColumn, nameColumn, since, wide } from '../table.js';
import { arr, at, meta, obj, objs, str } from '../util.js';
import { isDNS1123Subdomain, validateLabelSelector } from '../validation.js';
import { strictPathSegmentName } from '../../apimachinery/names.js';
import { rfc3339 } from '../../apimachinery/time.js';
import { deepEqual } from '../../apimachinery/equality.js';

const rbacGroup = (): string => group('rbac.authorization');

function nonEmpty(value: unknown): boolean {
  return arr(value).length > 0;
}

/** One PolicyRule: verbs always; either non-resource URLs (cluster roles only) or groups and resources. */
function validatePolicyRule(rule: Record<string, unknown>, namespaced: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!nonEmpty(rule.verbs)) errs.push(requiredField(`${path}.verbs`, 'verbs must contain at least one value'));
  if (nonEmpty(rule.nonResourceURLs)) {
    if (namespaced) errs.push(invalidField(`${path}.nonResourceURLs`, rule.nonResourceURLs, 'namespaced rules cannot apply to non-resource URLs'));
    if (nonEmpty(rule.apiGroups) || nonEmpty(rule.resources) || nonEmpty(rule.resourceNames)) {
      errs.push(invalidField(`${path}.nonResourceURLs`, rule.nonResourceURLs, 'rules cannot apply to both regular resources and non-resource URLs'));
    }
    return errs;
  }
  if (!nonEmpty(rule.apiGroups)) errs.push(requiredField(`${path}.apiGroups`, 'resource rules must supply at least one api group'));
  if (!nonEmpty(rule.resources)) errs.push(requiredField(`${path}.resources`, 'resource rules must supply at least one resource'));
  return errs;
}

function validateRules(o: KubeObject, namespaced: boolean): FieldError[] {
  return objs(o.rules).flatMap((r, i) => validatePolicyRule(r, namespaced, `rules[${i}]`));
}

function validateRoleRef(o: KubeObject, kinds: string[]): FieldError[] {
  const ref = obj(o.roleRef);
  if (!ref) return [requiredField('roleRef')];
  const errs: FieldError[] = [];
  if (ref.apiGroup !== rbacGroup()) errs.push(notSupportedField('roleRef.apiGroup', ref.apiGroup ?? '', [rbacGroup()]));
  if (!kinds.includes(String(ref.kind))) errs.push(notSupportedField('roleRef.kind', ref.kind ?? '', kinds));
  const name = str(ref.name) ?? '';
  if (name === '') errs.push(requiredField('roleRef.name'));
  else for (const m of strictPathSegmentName(name, false)) errs.push(invalidField('roleRef.name', name, m));
  return errs;
}

function validateSubjects(o: KubeObject, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  objs(o.subjects).forEach((s, i) => {
    const path = `subjects[${i}]`;
    const name = str(s.name) ?? '';
    if (name === '') errs.push(requiredField(`${path}.name`));
    switch (s.kind) {
      case 'ServiceAccount': {
        if (name !== '') for (const m of isDNS1123Subdomain(name)) errs.push(invalidField(`${path}.name`, name, m));
        if (s.apiGroup !== undefined && s.apiGroup !== '') errs.push(notSupportedField(`${path}.apiGroup`, s.apiGroup, ['']));
        if (!namespaced && !str(s.namespace)) errs.push(requiredField(`${path}.namespace`));
        break;
      }
      case 'User':
      case 'Group':
        if (s.apiGroup !== rbacGroup()) errs.push(notSupportedField(`${path}.apiGroup`, s.apiGroup ?? '', [rbacGroup()]));
        break;
      default:
        errs.push(notSupportedField(`${path}.kind`, s.kind ?? '', ['ServiceAccount', 'User', 'Group']));
    }
  });
  return errs;
}

function roleRefImmutable(o: KubeObject, old: KubeObject): FieldError[] {
  return deepEqual(o.roleRef, old.roleRef) ? [] : [invalidField('roleRef', o.roleRef ?? null, 'cannot change roleRef')];
}

/** Users, groups and service accounts (`namespace:name`) of a binding. */
function subjectsStrings(o: KubeObject): { users: string; groups: string; serviceAccounts: string } {
  const users: string[] = [];
  const groups: string[] = [];
  const sas: string[] = [];
  for (const s of objs(o.subjects)) {
    const name = str(s.name) ?? '';
    if (s.kind === 'User') users.push(name);
    else if (s.kind === 'Group') groups.push(name);
    else if (s.kind === 'ServiceAccount') sas.push(`${str(s.namespace) ?? ''}:${name}`);
  }
  return { users: users.join(', '), groups: groups.join(', '), serviceAccounts: sas.join(', ') };
}

function createdAt(o: KubeObject): string {
  const t = Date.parse(String(meta(o).creationTimestamp ?? ''));
  return Number.isNaN(t) ? '' : rfc3339(new Date(t));
}

const roleTable = {
  columns: [nameColumn, createdAtColumn],
  cells: (o: KubeObject) => [meta(o).name ?? '', createdAt(o)],
};

const bindingTable = {
  columns: [
    nameColumn,
    column('Role', 'string', 'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace.'),
    ageColumn,
    wide('Users', 'string', 'Users in the roleBinding'),
    wide('Groups', 'string', 'Groups in the roleBinding'),
    wide('ServiceAccounts', 'string', 'ServiceAccounts in the roleBinding'),
  ],
  cells(o: KubeObject, now: Date) {
    const s = subjectsStrings(o);
    return [
      meta(o).name ?? '',
      `${str(at(o, 'roleRef.kind')) ?? ''}/${str(at(o, 'roleRef.name')) ?? ''}`,
      since(meta(o).creationTimestamp, now),
      s.users,
      s.groups,
      s.serviceAccounts,
    ];
  },
};

const common = { validateName: strictPathSegmentName, allowCreateOnUpdate: true } as const;

const roles: KindSpec = { ...common, validate: (o) => validateRules(o, true), table: roleTable };

const clusterRoles: KindSpec = {
  ...common,
  validate(o) {
    const errs = validateRules(o, false);
    objs(at(o, 'aggregationRule.clusterRoleSelectors')).forEach((s, i) =>
      errs.push(...validateLabelSelector(s, `aggregationRule.clusterRoleSelectors[${i}]`)),
    );
    return errs;
  },
  table: roleTable,
};

const roleBindings: KindSpec = {
  ...common,
  validate: (o) => [...validateRoleRef(o, ['Role', 'ClusterRole']), ...validateSubjects(o, true)],
  validateUpdate: roleRefImmutable,
  table: bindingTable,
};

const clusterRoleBindings: KindSpec = {
  ...common,
  validate: (o) => [...validateRoleRef(o, ['ClusterRole']), ...validateSubjects(o, false)],
  validateUpdate: roleRefImmutable,
  table: bindingTable,
};

export const rbacKinds: Record<string, KindSpec> = {
  ClusterRole: clusterRoles,
  ClusterRoleBinding: clusterRoleBindings,
  Role: roles,
  RoleBinding: roleBindings,
};
