// The shapes of API priority and fairness: FlowSchema and PriorityLevelConfiguration as the
// v1beta3 API spells them, and what a request is classified by. Objects read from storage
// are parsed into these by `parse.ts`; nothing here trusts a stored object's shape.
import type { UserInfo } from '../apimachinery/types.js';

/** The wildcards of the API (`*` in verbs, apiGroups, resources, namespaces, nonResourceURLs, names). */
export const ALL = '*';

export type SubjectKind = 'User' | 'Group' | 'ServiceAccount';

export interface Subject {
  kind: SubjectKind;
  user?: { name: string };
  group?: { name: string };
  serviceAccount?: { namespace: string; name: string };
}

export interface ResourcePolicyRule {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  clusterScope?: boolean;
  namespaces?: string[];
}

export interface NonResourcePolicyRule {
  verbs: string[];
  nonResourceURLs: string[];
}

export interface PolicyRulesWithSubjects {
  subjects: Subject[];
  resourceRules?: ResourcePolicyRule[];
  nonResourceRules?: NonResourcePolicyRule[];
}

export type DistinguisherMethod = 'ByUser' | 'ByNamespace';

export interface FlowSchemaSpec {
  priorityLevelConfiguration: { name: string };
  matchingPrecedence: number;
  distinguisherMethod?: { type: DistinguisherMethod };
  rules?: PolicyRulesWithSubjects[];
}

export interface FlowSchema {
  name: string;
  uid: string;
  spec: FlowSchemaSpec;
}

export interface QueuingConfiguration {
  queues: number;
  handSize: number;
  queueLengthLimit: number;
}

export interface LimitedPriorityLevel {
  nominalConcurrencyShares: number;
  lendablePercent?: number;
  borrowingLimitPercent?: number;
  limitResponse: { type: 'Queue' | 'Reject'; queuing?: QueuingConfiguration };
}

export interface PriorityLevelSpec {
  type: 'Exempt' | 'Limited';
  limited?: LimitedPriorityLevel;
}

export interface PriorityLevel {
  name: string;
  uid: string;
  spec: PriorityLevelSpec;
}

/**
 * What classification reads of a request (the server's RequestInfo has these fields): the
 * verb, and either the resource coordinates or the non-resource path.
 */
export interface RequestAttributes {
  isResourceRequest: boolean;
  path: string;
  verb: string;
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
}

export interface RequestDigest {
  info: RequestAttributes;
  user: UserInfo;
}

/** The reserved names of the mandatory objects. */
export const EXEMPT = 'exempt';
export const CATCH_ALL = 'catch-all';
