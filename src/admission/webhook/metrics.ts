// The webhook metrics, named and labelled as kube-apiserver exports them. The counters live
// in one prom-client registry (the default one unless the server passes its own), created
// once per registry however many times the plugins are built.
import { Counter, register as defaultRegistry, type Registry } from 'prom-client';

type RejectionErrorType = 'calling_webhook_error' | 'no_error' | 'apiserver_internal_error';
export type WebhookStepType = 'admit' | 'validating';

export interface WebhookMetrics {
  rejection(name: string, type: WebhookStepType, operation: string, errorType: RejectionErrorType, code: number): void;
  failOpen(name: string, type: WebhookStepType): void;
}

/** Codes above this are cut to it, to keep the label's cardinality bounded. */
const MAX_REJECTION_CODE = 600;

function counter(registry: Registry, name: string, help: string, labelNames: string[]): Counter<string> {
  const existing = registry.getSingleMetric(name);
  if (existing instanceof Counter) return existing as Counter<string>;
  return new Counter({ name, help, labelNames, registers: [registry] });
}

export function webhookMetrics(registry: Registry = defaultRegistry): WebhookMetrics {
  const rejections = counter(
    registry,
    'apiserver_admission_webhook_rejection_count',
    '[ALPHA] Admission webhook rejection count, identified by name and broken out for each admission type (validating or admit) and operation. Additional labels specify an error type (calling_webhook_error or apiserver_internal_error if an error occurred; no_error otherwise) and optionally a non-zero rejection code if the webhook rejects the request with an HTTP status code (honored by the apiserver when the code is greater or equal to 400). Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.',
    ['name', 'type', 'operation', 'error_type', 'rejection_code'],
  );
  const failOpens = counter(
    registry,
    'apiserver_admission_webhook_fail_open_count',
    '[ALPHA] Admission webhook fail open count, identified by name and broken out for each admission type (validating or mutating).',
    ['name', 'type'],
  );
  return {
    rejection(name, type, operation, errorType, code) {
      rejections.inc({ name, type, operation, error_type: errorType, rejection_code: String(Math.min(code, MAX_REJECTION_CODE)) });
    },
    failOpen(name, type) {
      failOpens.inc({ name, type });
    },
  };
}
