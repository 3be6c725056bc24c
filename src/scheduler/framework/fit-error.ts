// The message of a pod no node fits, in kube-scheduler's format: the count of nodes, each
// reason with how many nodes gave it (sorted as text), then preemption's own account.
import type { Status } from './interface.js';

/** `<n> <reason>` entries sorted as strings, as kube sorts its histogram. */
export function reasonHistogram(statuses: Iterable<Status>): string[] {
  const counts = new Map<string, number>();
  for (const s of statuses) for (const r of s.reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
  return [...counts].map(([reason, n]) => `${n} ${reason}`).sort();
}

export interface Diagnosis {
  numAllNodes: number;
  /** Per node, why it did not fit. */
  filtered: ReadonlyMap<string, Status>;
  /** Set when a PreFilter failed the pod for every node. */
  preFilterMsg?: string;
  postFilterMsg?: string;
}

export function fitErrorMessage(d: Diagnosis): string {
  let msg = `0/${d.numAllNodes} nodes are available:`;
  if (d.preFilterMsg) msg += ` ${d.preFilterMsg}.`;
  else {
    const histogram = reasonHistogram(d.filtered.values());
    if (histogram.length > 0) msg += ` ${histogram.join(', ')}.`;
  }
  if (d.postFilterMsg) msg += ` ${d.postFilterMsg}.`;
  return msg;
}
