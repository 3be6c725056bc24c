// What the layers below the server add to a request's audit event: annotations, each
// recorded only when the policy's level for the request reaches the annotation's level.

export type AuditLevel = 'None' | 'Metadata' | 'Request' | 'RequestResponse';

export interface AuditAnnotations {
  /**
   * Adds `key: value` to the event (the first value of a key wins, as in kube-apiserver).
   * `level` is the least policy level that records it; Metadata when absent.
   */
  add(key: string, value: string, level?: AuditLevel): void;
}
