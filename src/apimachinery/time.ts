// Times as Kubernetes writes them in objects: RFC 3339 in UTC with whole seconds.

/** `2006-01-02T15:04:05Z`: metav1.Time's encoding, which drops the fraction of a second. */
export function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
