// The RBAC authorizer: walks the bindings that apply to the user (cluster-wide first, then
// those of the request's namespace) and allows when a rule of a bound role matches.
import type { KubeObject, UserInfo } from '../../apimachinery/types.js';
import type { AuthorizationAttributes, AuthorizationResult, Authorizer } from '../types.js';
import { describeSubject, ruleAllows, subjectMatches, type PolicyRule, type RoleRef, type Subject } from './rules.js';
import { group } from '../../naming/index.js';

/** Where RBAC objects come from: the watch-fed cache in the server, plain lists in tests. */
export interface RBACSource {
  getRole(namespace: string, name: string): KubeObject | undefined;
  getClusterRole(name: string): KubeObject | undefined;
  listRoleBindings(namespace: string): KubeObject[];
  listClusterRoleBindings(): KubeObject[];
}

export function rulesOf(role: KubeObject | undefined): PolicyRule[] {
  const rules = role?.['rules'];
  return Array.isArray(rules) ? (rules as PolicyRule[]).filter((r) => r && Array.isArray(r.verbs)) : [];
}

function subjectsOf(binding: KubeObject): Subject[] {
  const s = binding['subjects'];
  return Array.isArray(s) ? (s as Subject[]) : [];
}

function roleRefOf(binding: KubeObject): RoleRef | undefined {
  const r = binding['roleRef'];
  return r && typeof r === 'object' ? (r as RoleRef) : undefined;
}

/** One (binding, role, rules) the user holds, or the error of resolving it. */
interface BindingVisit {
  describe: () => string;
  rules: PolicyRule[];
  error?: string;
}

/**
 * Every role the user is bound to for `namespace` ('' for cluster-wide only). The visitor
 * returns true to stop early.
 */
function visitRulesFor(source: RBACSource, user: UserInfo, namespace: string, visit: (v: BindingVisit) => boolean): void {
  const rbacGroup = group('rbac.authorization');
  for (const b of source.listClusterRoleBindings()) {
    const ref = roleRefOf(b);
    const subject = subjectsOf(b).find((s) => subjectMatches(s, user, ''));
    if (!ref || !subject) continue;
    const role = source.getClusterRole(ref.name);
    const name = b.metadata?.name ?? '';
    const visitResult: BindingVisit = role
      ? {
          rules: rulesOf(role),
          describe: () => `ClusterRoleBinding "${name}" of ClusterRole "${ref.name}" to ${describeSubject(subject, '')}`,
        }
      : { rules: [], describe: () => '', error: `clusterrole.${rbacGroup} "${ref.name}" not found` };
    if (visit(visitResult)) return;
  }
  if (!namespace) return;
  for (const b of source.listRoleBindings(namespace)) {
    const ref = roleRefOf(b);
    const subject = subjectsOf(b).find((s) => subjectMatches(s, user, namespace));
    if (!ref || !subject) continue;
    const name = b.metadata?.name ?? '';
    const role = ref.kind === 'ClusterRole' ? source.getClusterRole(ref.name) : source.getRole(namespace, ref.name);
    const visitResult: BindingVisit = role
      ? {
          rules: rulesOf(role),
          describe: () => `RoleBinding "${name}/${namespace}" of ${ref.kind} "${ref.name}" to ${describeSubject(subject, namespace)}`,
        }
      : { rules: [], describe: () => '', error: `${ref.kind.toLowerCase()}.${rbacGroup} "${ref.name}" not found` };
    if (visit(visitResult)) return;
  }
}

/** Every rule the user holds in `namespace`, plus the errors met while resolving them. */
export function rulesFor(source: RBACSource, user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: string[] } {
  const rules: PolicyRule[] = [];
  const errors: string[] = [];
  visitRulesFor(source, user, namespace, (v) => {
    if (v.error) errors.push(v.error);
    rules.push(...v.rules);
    return false;
  });
  return { rules, errors };
}

export class RBACAuthorizer implements Authorizer {
  constructor(private readonly source: RBACSource) {}

  async authorize(attrs: AuthorizationAttributes): Promise<AuthorizationResult> {
    let allowedBy: string | undefined;
    const errors: string[] = [];
    visitRulesFor(this.source, attrs.user, attrs.namespace, (v) => {
      if (v.error) {
        errors.push(v.error);
        return false;
      }
      if (v.rules.some((r) => ruleAllows(attrs, r))) {
        allowedBy = v.describe();
        return true;
      }
      return false;
    });
    if (allowedBy !== undefined) return { decision: 'Allow', reason: `RBAC: allowed by ${allowedBy}` };
    return { decision: 'NoOpinion', reason: errors.length > 0 ? `RBAC: ${errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`}` : '' };
  }
}

/** `system:masters` is allowed everything, ahead of every other authorizer. */
export const SUPERUSER_GROUP = 'system:masters';

export const privilegedGroupAuthorizer: Authorizer = {
  authorize: async (attrs) =>
    attrs.user.groups.includes(SUPERUSER_GROUP) ? { decision: 'Allow', reason: '' } : { decision: 'NoOpinion', reason: '' },
};
