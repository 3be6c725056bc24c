// The audit log: policy, events, backends (log, webhook) and the flags that build them.
export { Auditor, RequestAudit, type RequestFacts } from './auditor.js';
export { auditFlagDefinitions, auditorFromFlags, AuditConfigError, type AuditSetup } from './flags.js';
export { AuditMetrics } from './metrics.js';
export { evaluatePolicy, loadPolicyFile, parsePolicy, AuditPolicyError, type PolicyAttributes } from './policy.js';
export { sourceIPs, encodeEvent, legacyEventString, eventApiVersion } from './event.js';
export type { AuditBackend } from './backend.js';
export type { AuditEvent, AuditLevel, AuditStage, Policy } from './types.js';
