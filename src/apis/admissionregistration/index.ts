// Webhook configurations: the v1 defaults of each webhook and the checks that keep a
// configuration callable (names, side effects, review versions, client config, rules).
import { duplicateField, invalidField, notSupportedField, requiredField, type FieldError } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/types.js';
import type { KindSpec } from '../strategy.js';
import { ageColumn, column, nameColumn, since } from '../table.js';
import { validateRuleWithOperations } from './rules.js';
import { arr, at, meta, obj, objs, setDefault, str, type JsonObject } from '../util.js';
import { isDNS1123Subdomain, oneOf, validateLabelSelector } from '../validation.js';
import { validatingAdmissionPolicy, validatingAdmissionPolicyBinding } from './policies.js';

const REVIEW_VERSIONS = ['v1', 'v1beta1'];

function defaultWebhooks(o: KubeObject, mutating: boolean): void {
  for (const w of objs(o.webhooks)) {
    setDefault(w, 'failurePolicy', 'Fail');
    setDefault(w, 'matchPolicy', 'Equivalent');
    setDefault(w, 'namespaceSelector', {});
    setDefault(w, 'objectSelector', {});
    setDefault(w, 'timeoutSeconds', 10);
    if (mutating) setDefault(w, 'reinvocationPolicy', 'Never');
    for (const r of objs(w.rules)) setDefault(r, 'scope', '*');
    const service = obj(at(w, 'clientConfig.service'));
    if (service) setDefault(service, 'port', 443);
  }
}

function validateClientConfig(cc: JsonObject | undefined, path: string): FieldError[] {
  const url = str(cc?.url);
  const service = obj(cc?.service);
  if ((url === undefined) === (service === undefined)) return [requiredField(path, 'exactly one of url or service is required')];
  const errs: FieldError[] = [];
  if (url !== undefined) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      errs.push(invalidField(`${path}.url`, url, 'host must be specified'));
    }
    if (parsed) {
      if (parsed.protocol !== 'https:') errs.push(invalidField(`${path}.url`, url, "'https' is the only allowed URL scheme"));
      if (parsed.username || parsed.password) errs.push(invalidField(`${path}.url`, url, 'user information is not permitted in the URL'));
      if (parsed.hash) errs.push(invalidField(`${path}.url`, url, 'fragments are not permitted in the URL'));
      if (parsed.search) errs.push(invalidField(`${path}.url`, url, 'query parameters are not permitted in the URL'));
    }
  }
  if (service) {
    if (!str(service.namespace)) errs.push(requiredField(`${path}.service.namespace`, 'service namespace is required'));
    if (!str(service.name)) errs.push(requiredField(`${path}.service.name`, 'service name is required'));
    const port = service.port;
    if (port !== undefined && (typeof port !== 'number' || port < 1 || port > 65535)) {
      errs.push(invalidField(`${path}.service.port`, port, 'port is not valid: must be between 1 and 65535, inclusive'));
    }
    const servicePath = str(service.path);
    if (servicePath !== undefined) errs.push(...validateServicePath(servicePath, `${path}.service.path`));
  }
  return errs;
}

/** A service path is `/` or slash-separated DNS subdomains after a leading slash (one trailing slash allowed). */
function validateServicePath(urlPath: string, path: string): FieldError[] {
  if (urlPath === '/' || urlPath === '') return [];
  if (urlPath === '//') return [invalidField(path, urlPath, 'segment[0] may not be empty')];
  const errs: FieldError[] = [];
  if (!urlPath.startsWith('/')) errs.push(invalidField(path, urlPath, "must start with a '/'"));
  let rest = urlPath.slice(1);
  if (rest.endsWith('/')) rest = rest.slice(0, -1);
  rest.split('/').forEach((step, i) => {
    if (step === '') errs.push(invalidField(path, urlPath, `segment[${i}] may not be empty`));
    else for (const m of isDNS1123Subdomain(step)) errs.push(invalidField(path, urlPath, `segment[${i}]: ${m}`));
  });
  return errs;
}

function validateRules(rules: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  objs(rules).forEach((r, i) => {
    const p = `${path}[${i}]`;
    errs.push(...validateRuleWithOperations(r, p));
  });
  return errs;
}

function validateWebhooks(o: KubeObject, mutating: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  objs(o.webhooks).forEach((w, i) => {
    const p = `webhooks[${i}]`;
    const name = str(w.name) ?? '';
    if (name === '') errs.push(requiredField(`${p}.name`));
    else {
      const dns = isDNS1123Subdomain(name);
      for (const m of dns) errs.push(invalidField(`${p}.name`, name, m));
      if (dns.length === 0 && name.split('.').length < 3) errs.push(invalidField(`${p}.name`, name, 'should be a domain with at least three segments separated by dots'));
      if (names.has(name)) errs.push(duplicateField(`${p}.name`, name));
      names.add(name);
    }
    errs.push(...validateRules(w.rules, `${p}.rules`));
    errs.push(...oneOf(w.failurePolicy, ['Ignore', 'Fail'], `${p}.failurePolicy`));
    errs.push(...oneOf(w.matchPolicy, ['Exact', 'Equivalent'], `${p}.matchPolicy`));
    if (mutating) errs.push(...oneOf(w.reinvocationPolicy, ['Never', 'IfNeeded'], `${p}.reinvocationPolicy`));
    if (w.sideEffects === undefined || w.sideEffects === null || w.sideEffects === '') {
      errs.push(requiredField(`${p}.sideEffects`, 'must specify one of None, NoneOnDryRun'));
    } else if (w.sideEffects !== 'None' && w.sideEffects !== 'NoneOnDryRun') {
      errs.push(notSupportedField(`${p}.sideEffects`, w.sideEffects, ['None', 'NoneOnDryRun']));
    }
    const versions = arr(w.admissionReviewVersions);
    if (versions.length === 0) errs.push(requiredField(`${p}.admissionReviewVersions`, `must specify one of ${REVIEW_VERSIONS.join(', ')}`));
    else if (!versions.some((v) => REVIEW_VERSIONS.includes(String(v)))) {
      errs.push(invalidField(`${p}.admissionReviewVersions`, versions, `must include at least one of ${REVIEW_VERSIONS.join(', ')}`));
    }
    const timeout = w.timeoutSeconds;
    if (timeout !== undefined && (typeof timeout !== 'number' || timeout < 1 || timeout > 30)) {
      errs.push(invalidField(`${p}.timeoutSeconds`, timeout, 'the timeout value must be between 1 and 30 seconds'));
    }
    errs.push(...validateLabelSelector(w.namespaceSelector, `${p}.namespaceSelector`));
    errs.push(...validateLabelSelector(w.objectSelector, `${p}.objectSelector`));
    errs.push(...validateClientConfig(obj(w.clientConfig), `${p}.clientConfig`));
  });
  return errs;
}

const webhookTable = {
  columns: [nameColumn, column('Webhooks', 'integer', 'Webhooks indicates the number of webhooks in this configuration'), ageColumn],
  cells: (o: KubeObject, now: Date) => [meta(o).name ?? '', objs(o.webhooks).length, since(meta(o).creationTimestamp, now)],
};

const mutatingWebhooks: KindSpec = {
  tracksGeneration: true,
  allowUnconditionalUpdate: false,
  defaults: (o) => defaultWebhooks(o, true),
  validate: (o) => validateWebhooks(o, true),
  table: webhookTable,
};

const validatingWebhooks: KindSpec = {
  tracksGeneration: true,
  allowUnconditionalUpdate: false,
  defaults: (o) => defaultWebhooks(o, false),
  validate: (o) => validateWebhooks(o, false),
  table: webhookTable,
};

export const admissionregistrationKinds: Record<string, KindSpec> = {
  MutatingWebhookConfiguration: mutatingWebhooks,
  ValidatingWebhookConfiguration: validatingWebhooks,
  ValidatingAdmissionPolicy: validatingAdmissionPolicy,
  ValidatingAdmissionPolicyBinding: validatingAdmissionPolicyBinding,
};
