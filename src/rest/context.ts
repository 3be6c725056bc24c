// What every verb of a Store receives about the request it serves.
import type { AuditAnnotations } from '../apimachinery/audit.js';
import type { UserInfo } from '../apimachinery/types.js';
import type { WriteRecorder } from './history.js';

export interface RequestContext {
  user: UserInfo;
  /** Aborted when the client goes away or the request times out. */
  signal: AbortSignal;
  /** Warnings for the client; the server sends each as a `Warning: 299 - "..."` header. */
  warnings: string[];
  /** The request's audit event, when the request is audited. */
  audit?: AuditAnnotations;
  /** Where successful writes are reported for the object history; absent when history is off. */
  history?: WriteRecorder;
}
