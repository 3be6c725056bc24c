// The PodSecurity admission plugin: a namespace's `pod-security.<long domain>/*` labels choose
// the level (and policy version) its pods are held to. `enforce` refuses pods that break it,
// `warn` returns the findings as warnings and `audit` records them in the audit event;
// workload templates (Deployments, Jobs, ...) are only warned about and audited. Namespace
// writes have their labels checked, and a stricter enforce level is tried on the pods
// already there (warnings only). As Pod Security admission in kube-apiserver 1.27.
import { invalid, internalError, isApiError, type FieldError } from '../../apimachinery/errors.js';
import { deepEqual } from '../../apimachinery/equality.js';
import { isPlainObject, type KubeObject } from '../../apimachinery/types.js';
import type { ApiClient } from '../../client/types.js';
import { goQuote } from '../../schema/crd/go-format.js';
import type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from '../types.js';
import { admissionForbidden, mapsAt, stringAt, stringMapAt, type JsonMap } from '../util.js';
import {
  auditAnnotationKey,
  compareLevels,
  equivalent,
  fullyPrivileged,
  levelLabel,
  levelVersionString,
  MODES,
  policyFromLabels,
  sameVersion,
  versionLabel,
  type LabelError,
  type LevelVersion,
  type Policy,
} from './api.js';
import type { PodView } from './check.js';
import { DEFAULT_CONFIG, type PodSecurityConfig } from './config.js';
import { evaluatePod, forbiddenDetail, forbiddenReason } from './evaluate.js';

const NAMESPACES = { group: '', version: 'v1', resource: 'namespaces' };
const PODS = { group: '', version: 'v1', resource: 'pods' };

/** Pod subresources that change nothing Pod Security judges. */
const IGNORED_POD_SUBRESOURCES = new Set(['exec', 'attach', 'binding', 'eviction', 'log', 'portforward', 'proxy', 'status']);

/** Where each workload keeps its pod template. */
const TEMPLATE_PATHS: Readonly<Record<string, readonly string[]>> = {
  '/replicationcontrollers': ['spec', 'template'],
  '/podtemplates': ['template'],
  'apps/replicasets': ['spec', 'template'],
  'apps/deployments': ['spec', 'template'],
  'apps/statefulsets': ['spec', 'template'],
  'apps/daemonsets': ['spec', 'template'],
  'batch/jobs': ['spec', 'template'],
  'batch/cronjobs': ['spec', 'jobTemplate', 'spec', 'template'],
};

/** The most existing pods a namespace update tries the new enforce level on. */
const NAMESPACE_MAX_PODS_TO_CHECK = 3000;

function podView(meta: unknown, spec: unknown): PodView {
  return { annotations: stringMapAt(isPlainObject(meta) ? meta : undefined, 'annotations'), spec: isPlainObject(spec) ? spec : {} };
}

function templateOf(obj: KubeObject, path: readonly string[]): PodView | undefined {
  let cur: unknown = obj;
  for (const key of path) {
    if (!isPlainObject(cur)) return undefined;
    cur = cur[key];
  }
  return isPlainObject(cur) ? podView(cur.metadata, cur.spec) : undefined;
}

function labelsOf(obj: KubeObject | undefined): Record<string, string> {
  return stringMapAt(obj?.metadata as JsonMap | undefined, 'labels');
}

function labelFieldErrors(errors: readonly LabelError[]): FieldError[] {
  return errors.map((e) => ({ type: 'FieldValueInvalid', field: `metadata.labels[${e.label}]`, detail: `Invalid value: ${goQuote(e.value)}: ${e.detail}` }));
}

/** How a list of field errors reads in one line (`[a, b]` when there are several). */
function aggregate(errors: readonly FieldError[]): string {
  const parts = errors.map((e) => `${e.field}: ${e.detail}`);
  return parts.length === 1 ? parts[0]! : `[${parts.join(', ')}]`;
}

/** Whether an update of a pod can change what Pod Security judges: containers added or images changed. */
export function isSignificantPodUpdate(spec: JsonMap, oldSpec: JsonMap): boolean {
  for (const key of ['containers', 'initContainers']) {
    const now = mapsAt(spec, key);
    const before = mapsAt(oldSpec, key);
    if (now.length !== before.length) return true;
    if (now.some((c, i) => stringAt(c, 'image') !== stringAt(before[i], 'image'))) return true;
  }
  const oldEphemeral = mapsAt(oldSpec, 'ephemeralContainers');
  for (const c of mapsAt(spec, 'ephemeralContainers')) {
    const old = oldEphemeral.find((o) => stringAt(o, 'name') === stringAt(c, 'name'));
    if (!old || stringAt(old, 'image') !== stringAt(c, 'image')) return true;
  }
  return false;
}

export class PodSecurity implements AdmissionPlugin {
  readonly name = 'PodSecurity';

  constructor(
    private readonly client: ApiClient,
    private readonly config: PodSecurityConfig = DEFAULT_CONFIG,
  ) {}

  handles(operation: AdmissionOperation): boolean {
    return operation === 'CREATE' || operation === 'UPDATE';
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (attrs.resource.group === '' && attrs.resource.resource === 'namespaces') return this.validateNamespace(attrs);
    if (attrs.resource.group === '' && attrs.resource.resource === 'pods') return this.validatePod(attrs);
    const path = TEMPLATE_PATHS[`${attrs.resource.group}/${attrs.resource.resource}`];
    if (path) return this.validateWorkload(attrs, path);
  }

  private policyOf(labels: Readonly<Record<string, string>>): { policy: Policy; errors: LabelError[] } {
    return policyFromLabels(labels, this.config.defaults);
  }

  private exemptNamespace(ns: string): boolean {
    return ns !== '' && this.config.exemptions.namespaces.has(ns);
  }

  private exemptUser(username: string): boolean {
    return username !== '' && this.config.exemptions.usernames.has(username);
  }

  private exemptRuntimeClass(spec: JsonMap): boolean {
    const rc = stringAt(spec, 'runtimeClassName') ?? '';
    return rc !== '' && this.config.exemptions.runtimeClasses.has(rc);
  }

  private async validatePod(attrs: AdmissionAttributes): Promise<void> {
    if (IGNORED_POD_SUBRESOURCES.has(attrs.subresource) || !attrs.object) return;
    const audit = attrs.audit;
    if (this.exemptNamespace(attrs.namespace)) return audit?.add(auditAnnotationKey('exempt'), 'namespace');
    if (this.exemptUser(attrs.user.username)) return audit?.add(auditAnnotationKey('exempt'), 'user');
    let ns: KubeObject;
    try {
      ns = await this.client.get(NAMESPACES, '', attrs.namespace);
    } catch (e) {
      const reason = `failed to lookup namespace ${goQuote(attrs.namespace)}`;
      audit?.add(auditAnnotationKey('error'), `Internal error occurred: ${reason}: ${isApiError(e) ? e.message : String(e)}`);
      throw internalError(new Error(reason));
    }
    const { policy, errors } = this.policyOf(labelsOf(ns));
    if (errors.length === 0 && fullyPrivileged(policy)) return audit?.add(auditAnnotationKey('enforce-policy'), 'privileged:latest');
    const spec = isPlainObject(attrs.object.spec) ? attrs.object.spec : {};
    if (attrs.operation === 'UPDATE') {
      const oldSpec = isPlainObject(attrs.oldObject?.spec) ? attrs.oldObject.spec : {};
      if (!isSignificantPodUpdate(spec, oldSpec)) return;
    }
    this.evaluate(attrs, policy, errors, podView(attrs.object.metadata, spec), true);
  }

  private async validateWorkload(attrs: AdmissionAttributes, path: readonly string[]): Promise<void> {
    if (attrs.subresource !== '' || !attrs.object) return;
    const audit = attrs.audit;
    if (this.exemptNamespace(attrs.namespace)) return audit?.add(auditAnnotationKey('exempt'), 'namespace');
    if (this.exemptUser(attrs.user.username)) return audit?.add(auditAnnotationKey('exempt'), 'user');
    let ns: KubeObject;
    try {
      ns = await this.client.get(NAMESPACES, '', attrs.namespace);
    } catch (e) {
      // Workloads are only warned about: a failed lookup lets them through.
      audit?.add(auditAnnotationKey('error'), `failed to lookup namespace ${goQuote(attrs.namespace)}: ${isApiError(e) ? e.message : String(e)}`);
      return;
    }
    const { policy, errors } = this.policyOf(labelsOf(ns));
    if (errors.length === 0 && policy.warn.level === 'privileged' && policy.audit.level === 'privileged') return;
    const template = templateOf(attrs.object, path);
    if (!template) return;
    this.evaluate(attrs, policy, errors, template, false);
  }

  /** Judges one pod (or template); throws the Forbidden refusal when `enforce` and it fails. */
  private evaluate(attrs: AdmissionAttributes, policy: Policy, errors: LabelError[], pod: PodView, enforce: boolean): void {
    const audit = attrs.audit;
    if (this.exemptRuntimeClass(pod.spec)) return audit?.add(auditAnnotationKey('exempt'), 'runtimeClass');
    if (errors.length > 0) audit?.add(auditAnnotationKey('error'), `Failed to parse policy: ${aggregate(labelFieldErrors(errors))}`);
    let refusal: Error | undefined;
    if (enforce) {
      audit?.add(auditAnnotationKey('enforce-policy'), levelVersionString(policy.enforce));
      const findings = evaluatePod(policy.enforce, pod);
      if (findings.length > 0) refusal = admissionForbidden(attrs, `violates PodSecurity ${goQuote(levelVersionString(policy.enforce))}: ${forbiddenDetail(findings)}`);
    }
    if (audit) {
      const findings = evaluatePod(policy.audit, pod);
      if (findings.length > 0) audit.add(auditAnnotationKey('audit-violations'), `would violate PodSecurity ${goQuote(levelVersionString(policy.audit))}: ${forbiddenDetail(findings)}`);
    }
    if (refusal) throw refusal;
    const findings = evaluatePod(policy.warn, pod);
    if (findings.length > 0) attrs.warnings.push(`would violate PodSecurity ${goQuote(levelVersionString(policy.warn))}: ${forbiddenDetail(findings)}`);
  }

  private async validateNamespace(attrs: AdmissionAttributes): Promise<void> {
    if (attrs.subresource !== '' || !attrs.object) return;
    const name = stringAt(attrs.object.metadata as JsonMap | undefined, 'name') ?? attrs.name;
    const labels = labelsOf(attrs.object);
    const next = this.policyOf(labels);
    const refuse = (): Error => invalid({ group: attrs.kind.group, kind: attrs.kind.kind }, attrs.name || name, labelFieldErrors(next.errors));
    if (attrs.operation === 'CREATE') {
      if (next.errors.length > 0) throw refuse();
      if (this.exemptNamespace(attrs.namespace || name)) this.warnExempt(attrs, name, next.policy, labels);
      return;
    }
    const old = this.policyOf(labelsOf(attrs.oldObject));
    if (next.errors.length > 0 && (old.errors.length === 0 || !deepEqual(next.errors, old.errors))) throw refuse();
    const [now, before] = [next.policy.enforce, old.policy.enforce];
    if (now.level === before.level && sameVersion(now.version, before.version)) return;
    if (now.level === 'privileged') return;
    if (sameVersion(now.version, before.version) && compareLevels(now.level, before.level) < 1) return;
    if (this.exemptNamespace(attrs.namespace || name)) return this.warnExempt(attrs, name, next.policy, labels);
    attrs.warnings.push(...(await this.checkExistingPods(name, now)));
  }

  private warnExempt(attrs: AdmissionAttributes, name: string, policy: Policy, labels: Readonly<Record<string, string>>): void {
    if (fullyPrivileged(policy) || MODES.every((m) => equivalent(policy[m], this.config.defaults[m]))) return;
    const parts: string[] = [];
    for (const mode of MODES) {
      const labelled = Object.hasOwn(labels, levelLabel(mode)) || Object.hasOwn(labels, versionLabel(mode));
      if (policy[mode].level !== 'privileged' && labelled) parts.push(`${mode}=${levelVersionString(policy[mode])}`);
    }
    attrs.warnings.push(`namespace ${goQuote(name)} is exempt from Pod Security, and the policy (${parts.join(', ')}) will be ignored`);
  }

  /** Warnings about the namespace's pods that the new enforce level would refuse, grouped by reasons. */
  private async checkExistingPods(namespace: string, enforce: LevelVersion): Promise<string[]> {
    let pods: KubeObject[];
    try {
      pods = (await this.client.list(PODS, namespace)).items;
    } catch {
      return ['failed to list pods while checking new PodSecurity enforce level'];
    }
    // One pod per controller first: replicas fail alike.
    const first: KubeObject[] = [];
    const rest: KubeObject[] = [];
    const controllers = new Set<string>();
    for (const p of pods) {
      if (this.exemptRuntimeClass(isPlainObject(p.spec) ? p.spec : {})) continue;
      const controller = (p.metadata?.ownerReferences ?? []).find((o) => o.controller === true);
      if (!controller) first.push(p);
      else if (controllers.has(controller.uid)) rest.push(p);
      else {
        controllers.add(controller.uid);
        first.push(p);
      }
    }
    const ordered = [...first, ...rest];
    const checked = ordered.slice(0, NAMESPACE_MAX_PODS_TO_CHECK);
    const byReason = new Map<string, { pod: string; count: number }>();
    for (const p of checked) {
      const findings = evaluatePod(enforce, podView(p.metadata, p.spec));
      if (findings.length === 0) continue;
      const reason = forbiddenReason(findings);
      const podName = p.metadata?.name ?? '';
      const seen = byReason.get(reason);
      if (!seen) byReason.set(reason, { pod: podName, count: 1 });
      else {
        seen.count++;
        if (podName < seen.pod) seen.pod = podName;
      }
    }
    const warnings: string[] = [];
    if (checked.length < ordered.length) warnings.push(`new PodSecurity enforce level only checked against the first ${checked.length} of ${ordered.length} existing pods`);
    if (byReason.size > 0) warnings.push(`existing pods in namespace ${goQuote(namespace)} violate the new PodSecurity enforce level ${goQuote(levelVersionString(enforce))}`);
    const podWarnings = [...byReason].map(([reason, { pod, count }]) => {
      if (count === 1) return `${pod}: ${reason}`;
      if (count === 2) return `${pod} (and 1 other pod): ${reason}`;
      return `${pod} (and ${count - 1} other pods): ${reason}`;
    });
    podWarnings.sort();
    return [...warnings, ...podWarnings];
  }
}
