// Webhook configurations as the dispatchers use them: each webhook of a stored
// Mutating/ValidatingWebhookConfiguration, with the v1 defaults filled in and its selectors
// parsed once. Pure.
import { internalError, isApiError, type ApiError } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { labelSelectorAsSelector, type LabelSelector, type LabelSelectorObject } from '../../apimachinery/labels.js';

export type WebhookType = 'mutating' | 'validating';
type FailurePolicy = 'Ignore' | 'Fail';
type MatchPolicy = 'Exact' | 'Equivalent';

export interface RuleWithOperations {
  operations: string[];
  apiGroups: string[];
  apiVersions: string[];
  resources: string[];
  /** `Cluster`, `Namespaced` or `*`. */
  scope: string;
}

export interface ServiceReference {
  namespace: string;
  name: string;
  port: number;
  path: string;
}

interface WebhookClientConfig {
  url?: string;
  service?: ServiceReference;
  /** PEM text decoded from the base64 `caBundle`; empty means the system's roots. */
  caBundle: string;
}

/** A selector, or the error that parsing it gave (reported only when the webhook applies). */
export type ParsedSelector = { selector: LabelSelector } | { error: ApiError };

export interface Webhook {
  /** Unique per webhook across configurations: `<configuration>/<index>`. */
  uid: string;
  type: WebhookType;
  configurationName: string;
  name: string;
  rules: RuleWithOperations[];
  namespaceSelector: ParsedSelector;
  objectSelector: ParsedSelector;
  matchPolicy: MatchPolicy;
  clientConfig: WebhookClientConfig;
  sideEffects: string;
  timeoutSeconds: number;
  admissionReviewVersions: string[];
  failurePolicy: FailurePolicy;
  /** Mutating webhooks only: `Never` or `IfNeeded`. */
  reinvocationPolicy: string;
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);
const text = (v: unknown, fallback: string): string => (typeof v === 'string' && v !== '' ? v : fallback);

function parseSelector(v: unknown): ParsedSelector {
  // An absent selector in a stored v1 object is the defaulted `{}`: everything.
  if (v === undefined || v === null) return { selector: labelSelectorAsSelector({}) };
  try {
    return { selector: labelSelectorAsSelector(v as LabelSelectorObject) };
  } catch (err) {
    return { error: internalError(isApiError(err) ? err.message : err) };
  }
}

function clientConfigOf(v: unknown): WebhookClientConfig {
  const cc = isObject(v) ? v : {};
  const caBundle = typeof cc.caBundle === 'string' && cc.caBundle !== '' ? Buffer.from(cc.caBundle, 'base64').toString('utf8') : '';
  const out: WebhookClientConfig = { caBundle };
  if (typeof cc.url === 'string') out.url = cc.url;
  if (isObject(cc.service)) {
    const s = cc.service;
    out.service = {
      namespace: text(s.namespace, ''),
      name: text(s.name, ''),
      port: typeof s.port === 'number' ? s.port : 443,
      path: text(s.path, '/'),
    };
  }
  return out;
}

/** The webhooks of one configuration object, in their order, defaults applied. */
export function webhooksOf(config: KubeObject, type: WebhookType): Webhook[] {
  const configurationName = config.metadata?.name ?? '';
  const list = Array.isArray(config.webhooks) ? config.webhooks : [];
  return list.filter(isObject).map((w, i) => ({
    uid: `${configurationName}/${i}`,
    type,
    configurationName,
    name: text(w.name, ''),
    rules: (Array.isArray(w.rules) ? w.rules : []).filter(isObject).map((r) => ({
      operations: strings(r.operations),
      apiGroups: strings(r.apiGroups),
      apiVersions: strings(r.apiVersions),
      resources: strings(r.resources),
      scope: text(r.scope, '*'),
    })),
    namespaceSelector: parseSelector(w.namespaceSelector),
    objectSelector: parseSelector(w.objectSelector),
    matchPolicy: w.matchPolicy === 'Exact' ? 'Exact' : 'Equivalent',
    clientConfig: clientConfigOf(w.clientConfig),
    sideEffects: text(w.sideEffects, ''),
    timeoutSeconds: typeof w.timeoutSeconds === 'number' && w.timeoutSeconds > 0 ? w.timeoutSeconds : 10,
    admissionReviewVersions: strings(w.admissionReviewVersions),
    failurePolicy: w.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
    reinvocationPolicy: text(w.reinvocationPolicy, 'Never'),
  }));
}

/** Every webhook of a set of configurations, configurations ordered by name as Kubernetes orders them. */
export function webhooksOfAll(configs: KubeObject[], type: WebhookType): Webhook[] {
  const sorted = [...configs].sort((a, b) => {
    const x = a.metadata?.name ?? '';
    const y = b.metadata?.name ?? '';
    return x < y ? -1 : x > y ? 1 : 0;
  });
  return sorted.flatMap((c) => webhooksOf(c, type));
}
