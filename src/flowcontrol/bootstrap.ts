// The configuration every server starts with (1.27's bootstrap objects): the mandatory
// `exempt` and `catch-all` pairs, which the server keeps as they are, and the suggested
// ones, which an administrator may change or delete. Group names, the annotation key and the
// system namespace follow the naming flavor; user and group names are Kubernetes' own.
import type { KubeObject } from '../apimachinery/types.js';
import { group, longDomainKey, systemNamespace } from '../naming/index.js';
import { ALL, CATCH_ALL, EXEMPT, type FlowSchemaSpec, type PolicyRulesWithSubjects, type PriorityLevelSpec, type ResourcePolicyRule, type Subject } from './types.js';

export const FLOWCONTROL_VERSION = 'v1beta3';

/** The group served for FlowSchemas and PriorityLevelConfigurations in this flavor. */
export function flowcontrolGroup(): string {
  return group('flowcontrol.apiserver');
}

/** `apf.kubernetes.io/autoupdate-spec` (`apf.orch.io/...` in the orch flavor). */
export function autoUpdateAnnotation(): string {
  return longDomainKey('autoupdate-spec', 'apf');
}

const KUBE_CONTROLLER_MANAGER = 'system:kube-controller-manager';
const KUBE_SCHEDULER = 'system:kube-scheduler';
const MASTERS = 'system:masters';
const AUTHENTICATED = 'system:authenticated';
const UNAUTHENTICATED = 'system:unauthenticated';
const NODES = 'system:nodes';
const SERVICE_ACCOUNTS = 'system:serviceaccounts';

const groups = (...names: string[]): Subject[] => names.map((name) => ({ kind: 'Group', group: { name } }));
const users = (...names: string[]): Subject[] => names.map((name) => ({ kind: 'User', user: { name } }));
const systemServiceAccounts = (...names: string[]): Subject[] =>
  names.map((name) => ({ kind: 'ServiceAccount', serviceAccount: { name, namespace: systemNamespace('system') } }));

function resourceRule(verbs: string[], apiGroups: string[], resources: string[], clusterScope: boolean): ResourcePolicyRule {
  return { verbs, apiGroups, resources, clusterScope, namespaces: [ALL] };
}

const everything = (subjects: Subject[]): PolicyRulesWithSubjects => ({
  subjects,
  resourceRules: [resourceRule([ALL], [ALL], [ALL], true)],
  nonResourceRules: [{ verbs: [ALL], nonResourceURLs: [ALL] }],
});

function limited(shares: number, lendablePercent: number, queuing?: [queues: number, handSize: number, queueLengthLimit: number]): PriorityLevelSpec {
  return {
    type: 'Limited',
    limited: {
      nominalConcurrencyShares: shares,
      lendablePercent,
      limitResponse: queuing
        ? { type: 'Queue', queuing: { queues: queuing[0], handSize: queuing[1], queueLengthLimit: queuing[2] } }
        : { type: 'Reject' },
    },
  };
}

function priorityLevel(name: string, spec: PriorityLevelSpec): KubeObject {
  return {
    apiVersion: `${flowcontrolGroup()}/${FLOWCONTROL_VERSION}`,
    kind: 'PriorityLevelConfiguration',
    metadata: { name, annotations: { [autoUpdateAnnotation()]: 'true' } },
    spec: structuredClone(spec),
  };
}

function flowSchema(name: string, level: string, precedence: number, distinguisher: 'ByUser' | 'ByNamespace' | undefined, rules: PolicyRulesWithSubjects): KubeObject {
  const spec: FlowSchemaSpec = {
    priorityLevelConfiguration: { name: level },
    matchingPrecedence: precedence,
    ...(distinguisher ? { distinguisherMethod: { type: distinguisher } } : {}),
    rules: [rules],
  };
  return {
    apiVersion: `${flowcontrolGroup()}/${FLOWCONTROL_VERSION}`,
    kind: 'FlowSchema',
    metadata: { name, annotations: { [autoUpdateAnnotation()]: 'true' } },
    spec,
  };
}

export function mandatoryPriorityLevels(): KubeObject[] {
  return [priorityLevel(CATCH_ALL, limited(5, 0)), priorityLevel(EXEMPT, { type: 'Exempt' })];
}

export function mandatoryFlowSchemas(): KubeObject[] {
  return [
    flowSchema(EXEMPT, EXEMPT, 1, undefined, everything(groups(MASTERS))),
    flowSchema(CATCH_ALL, CATCH_ALL, 10000, 'ByUser', everything(groups(UNAUTHENTICATED, AUTHENTICATED))),
  ];
}

export function suggestedPriorityLevels(): KubeObject[] {
  return [
    priorityLevel('system', limited(30, 33, [64, 6, 50])),
    priorityLevel('node-high', limited(40, 25, [64, 6, 50])),
    priorityLevel('leader-election', limited(10, 0, [16, 4, 50])),
    priorityLevel('workload-high', limited(40, 50, [128, 6, 50])),
    priorityLevel('workload-low', limited(100, 90, [128, 6, 50])),
    priorityLevel('global-default', limited(20, 50, [128, 6, 50])),
  ];
}

export function suggestedFlowSchemas(): KubeObject[] {
  const coordination = group('coordination');
  const getCreateUpdate = ['get', 'create', 'update'];
  return [
    flowSchema('system-nodes', 'system', 500, 'ByUser', {
      subjects: groups(NODES),
      resourceRules: [resourceRule([ALL], [ALL], [ALL], true)],
      nonResourceRules: [{ verbs: [ALL], nonResourceURLs: [ALL] }],
    }),
    flowSchema('system-node-high', 'node-high', 400, 'ByUser', {
      subjects: groups(NODES),
      resourceRules: [resourceRule([ALL], [''], ['nodes', 'nodes/status'], true), resourceRule([ALL], [coordination], ['leases'], false)],
    }),
    flowSchema('probes', EXEMPT, 2, undefined, {
      subjects: groups(UNAUTHENTICATED, AUTHENTICATED),
      nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz', '/livez'] }],
    }),
    flowSchema('system-leader-election', 'leader-election', 100, 'ByUser', {
      subjects: [...users(KUBE_CONTROLLER_MANAGER, KUBE_SCHEDULER), ...systemServiceAccounts(ALL)],
      resourceRules: [resourceRule(getCreateUpdate, [coordination], ['leases'], false)],
    }),
    flowSchema('workload-leader-election', 'leader-election', 200, 'ByUser', {
      subjects: systemServiceAccounts(ALL),
      resourceRules: [resourceRule(getCreateUpdate, [''], ['endpoints', 'configmaps'], false), resourceRule(getCreateUpdate, [coordination], ['leases'], false)],
    }),
    flowSchema('endpoint-controller', 'workload-high', 150, 'ByUser', {
      subjects: [...users(KUBE_CONTROLLER_MANAGER), ...systemServiceAccounts('endpoint-controller', 'endpointslicemirroring-controller')],
      resourceRules: [resourceRule(getCreateUpdate, [''], ['endpoints'], false)],
    }),
    flowSchema('kube-controller-manager', 'workload-high', 800, 'ByNamespace', everything(users(KUBE_CONTROLLER_MANAGER))),
    flowSchema('kube-scheduler', 'workload-high', 800, 'ByNamespace', everything(users(KUBE_SCHEDULER))),
    flowSchema('kube-system-service-accounts', 'workload-high', 900, 'ByNamespace', everything(systemServiceAccounts(ALL))),
    flowSchema('service-accounts', 'workload-low', 9000, 'ByUser', everything(groups(SERVICE_ACCOUNTS))),
    flowSchema('global-default', 'global-default', 9900, 'ByUser', everything(groups(UNAUTHENTICATED, AUTHENTICATED))),
  ];
}
