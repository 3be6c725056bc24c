// The audit.<domain>/v1 shapes: the policy an administrator writes and the events the
// server emits, with the names and field order of Kubernetes' audit API.
import type { AuditLevel } from '../apimachinery/audit.js';

export type { AuditLevel };

export type AuditStage = 'RequestReceived' | 'ResponseStarted' | 'ResponseComplete' | 'Panic';

export const LEVELS: readonly AuditLevel[] = ['None', 'Metadata', 'Request', 'RequestResponse'];
export const STAGES: readonly AuditStage[] = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'];

/** Whether `level` records at least as much as `least`. */
export function levelAtLeast(level: AuditLevel, least: AuditLevel): boolean {
  return LEVELS.indexOf(level) >= LEVELS.indexOf(least);
}

export interface GroupResources {
  group: string;
  resources: string[];
  resourceNames: string[];
}

export interface PolicyRule {
  level: AuditLevel;
  users: string[];
  userGroups: string[];
  verbs: string[];
  resources: GroupResources[];
  namespaces: string[];
  nonResourceURLs: string[];
  /** The rule's own stages joined with the policy's. */
  omitStages: AuditStage[];
  omitManagedFields?: boolean;
}

export interface Policy {
  rules: PolicyRule[];
  omitStages: AuditStage[];
  omitManagedFields: boolean;
}

/** What the policy decides for one request. */
export interface RequestAuditConfig {
  level: AuditLevel;
  omitStages: readonly AuditStage[];
  omitManagedFields: boolean;
}

/** authentication/v1 UserInfo as an event carries it. */
export interface EventUser {
  username: string;
  uid?: string;
  groups?: readonly string[];
  extra?: Readonly<Record<string, readonly string[]>>;
}

export interface ObjectReference {
  resource?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiGroup?: string;
  apiVersion?: string;
  resourceVersion?: string;
  subresource?: string;
}

/** meta/v1 Status as an event's responseStatus holds it. */
export interface ResponseStatus {
  status?: string;
  message?: string;
  reason?: string;
  details?: unknown;
  code: number;
}

/** One audit event; `requestObject` and `responseObject` are JSON text already encoded. */
export interface AuditEvent {
  level: AuditLevel;
  auditID: string;
  stage: AuditStage;
  requestURI: string;
  verb: string;
  user: EventUser;
  impersonatedUser?: EventUser;
  sourceIPs: readonly string[];
  userAgent: string;
  objectRef?: ObjectReference;
  responseStatus?: ResponseStatus;
  requestObject?: string;
  responseObject?: string;
  /** Microseconds since the epoch. */
  requestReceivedTimestamp: number;
  stageTimestamp: number;
  annotations?: Map<string, string>;
}
