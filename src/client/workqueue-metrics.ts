// client-go's work queue metrics, named as Kubernetes names them, in prom-client's default
// registry (the API server's /metrics includes it). A queue reports through the hooks of its
// name; queues of one name share the series.
import { Counter, Gauge, register } from 'prom-client';

export interface WorkQueueMetrics {
  /** A key was queued (not already waiting). */
  add(): void;
  /** A key came back through the rate limiter. */
  retry(): void;
  /** The number of keys waiting now. */
  depth(n: number): void;
}

let metrics: { depth: Gauge<'name'>; adds: Counter<'name'>; retries: Counter<'name'> } | undefined;

function registered(): NonNullable<typeof metrics> {
  metrics ??= {
    depth: new Gauge({ name: 'workqueue_depth', help: 'Current depth of workqueue', labelNames: ['name'], registers: [register] }),
    adds: new Counter({ name: 'workqueue_adds_total', help: 'Total number of adds handled by workqueue', labelNames: ['name'], registers: [register] }),
    retries: new Counter({ name: 'workqueue_retries_total', help: 'Total number of retries handled by workqueue', labelNames: ['name'], registers: [register] }),
  };
  return metrics;
}

/** Hooks for one queue; the depth of queues sharing a name is their sum (each reports its own change). */
export function workQueueMetrics(name: string): WorkQueueMetrics {
  const m = registered();
  let last = 0;
  return {
    add: () => m.adds.inc({ name }),
    retry: () => m.retries.inc({ name }),
    depth: (n) => {
      if (n !== last) m.depth.inc({ name }, n - last);
      last = n;
    },
  };
}
