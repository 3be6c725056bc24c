// ValidatingAdmissionPolicy (admissionregistration v1alpha1 in 1.27): policies and their
// bindings, read from informers, evaluated with CEL on every matching request. The plugin
// is on by default but acts only when the ValidatingAdmissionPolicy feature gate is on, as
// in kube-apiserver; a binding's validationActions decide whether a failure denies the
// request, warns the client or is recorded in the audit event.
import { ApiError, notFound } from '../../apimachinery/errors.js';
import type { FeatureGate } from '../../apimachinery/features.js';
import type { GroupVersionResource, KubeObject } from '../../apimachinery/types.js';
import { compilePolicy, type CompiledPolicy } from '../../apis/admissionregistration/policies.js';
import { SharedInformerFactory } from '../../client/informer-factory.js';
import type { Informer } from '../../client/informer.js';
import type { ApiClient } from '../../client/types.js';
import { domainKey, fromKubernetesApiVersion, group } from '../../naming/index.js';
import type { ResourceTable } from '../../rest/index.js';
import type { AdmissionDeps } from '../deps.js';
import type { AdmissionAttributes, AdmissionPlugin, AdmissionPluginFactory } from '../types.js';
import { admissionForbidden } from '../util.js';
import { tableEquivalents } from '../webhook/matcher.js';
import { tableConverter } from '../webhook/index.js';
import { namespaceLabelsLookup } from '../webhook/sources.js';
import { evaluatePolicy, type PolicyDecision } from './evaluate.js';
import { matchResources, type MatchDeps } from './matching.js';

export { evaluatePolicy } from './evaluate.js';
export { matchResources } from './matching.js';

const PLUGIN = 'ValidatingAdmissionPolicy';
/** Kubernetes truncates a published audit annotation value to this many bytes. */
const MAX_AUDIT_ANNOTATION_VALUE = 10 * 1024;

export const policiesResource = (): GroupVersionResource => ({ group: group('admissionregistration'), version: 'v1alpha1', resource: 'validatingadmissionpolicies' });
export const bindingsResource = (): GroupVersionResource => ({ group: group('admissionregistration'), version: 'v1alpha1', resource: 'validatingadmissionpolicybindings' });

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

interface PolicyEntry {
  name: string;
  spec: Json;
  failurePolicy: string;
  compiled: CompiledPolicy;
}

/** The Status code a denial's reason answers with. */
function reasonToCode(reason: string): number {
  switch (reason) {
    case 'Forbidden':
      return 403;
    case 'Unauthorized':
      return 401;
    case 'RequestEntityTooLarge':
      return 413;
    default:
      return 422;
  }
}

/** `&ParamKind{APIVersion:v1,Kind:ConfigMap,}`, how Go prints a paramKind in errors. */
function goParamKind(pk: Json): string {
  return `&ParamKind{APIVersion:${text(pk.apiVersion)},Kind:${text(pk.kind)},}`;
}

interface Denial {
  policy: string;
  binding?: string;
  decision: PolicyDecision;
}

export interface ValidatingPolicyDeps {
  client: ApiClient;
  informers?: SharedInformerFactory;
  resources?: ResourceTable;
  /** How long a request waits for the first list of policies and bindings before 403 (default 10 s). */
  readyTimeoutMs?: number;
}


/** Waits for an informer's first list, at most `ms`. */
async function synced(informer: Informer, ms: number): Promise<boolean> {
  if (informer.hasSynced()) return true;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
    timer.unref();
  });
  try {
    return await Promise.race([informer.waitForSync().then(() => informer.hasSynced()), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

export class ValidatingAdmissionPolicyPlugin implements AdmissionPlugin {
  readonly name = PLUGIN;
  private readonly own: SharedInformerFactory | undefined;
  private readonly factory: SharedInformerFactory;
  private readonly policyInformer: Informer;
  private readonly bindingInformer: Informer;
  private readonly matchDeps: MatchDeps;
  /** Compiled policies by name, rebuilt when a policy changes (compiling per request would cost too much). */
  private policies: Map<string, PolicyEntry> | undefined;
  /** Bindings by policy name, rebuilt when a binding changes (the informer's list copies every object). */
  private bindings: Map<string, KubeObject[]> | undefined;

  constructor(private readonly deps: ValidatingPolicyDeps) {
    this.own = deps.informers ? undefined : new SharedInformerFactory(deps.client);
    this.factory = deps.informers ?? this.own!;
    this.own?.start();
    this.policyInformer = this.factory.informerFor(policiesResource());
    this.bindingInformer = this.factory.informerFor(bindingsResource());
    this.policyInformer.start();
    this.bindingInformer.start();
    const invalidate = (): void => {
      this.policies = undefined;
    };
    this.policyInformer.addEventHandler({ onAdd: invalidate, onUpdate: invalidate, onDelete: invalidate });
    const invalidateBindings = (): void => {
      this.bindings = undefined;
    };
    this.bindingInformer.addEventHandler({ onAdd: invalidateBindings, onUpdate: invalidateBindings, onDelete: invalidateBindings });
    this.matchDeps = {
      namespaceLabels: namespaceLabelsLookup((r) => this.factory.informerFor(r), deps.client),
      equivalents: deps.resources ? tableEquivalents(deps.resources) : undefined,
    };
  }

  handles(): boolean {
    return true;
  }

  async stop(): Promise<void> {
    await this.own?.stop();
  }

  private compiledPolicies(): Map<string, PolicyEntry> {
    if (!this.policies) {
      const out = new Map<string, PolicyEntry>();
      for (const p of this.policyInformer.list()) {
        const spec = isObject(p.spec) ? p.spec : {};
        const name = p.metadata?.name ?? '';
        out.set(name, { name, spec, failurePolicy: text(spec.failurePolicy) || 'Fail', compiled: compilePolicy(spec) });
      }
      this.policies = out;
    }
    return this.policies;
  }

  private bindingsByPolicy(): Map<string, KubeObject[]> {
    if (!this.bindings) {
      const out = new Map<string, KubeObject[]>();
      for (const b of this.bindingInformer.list()) {
        const policyName = text(isObject(b.spec) ? b.spec.policyName : undefined);
        const list = out.get(policyName) ?? [];
        list.push(b);
        out.set(policyName, list);
      }
      for (const list of out.values()) list.sort((a, b) => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1));
      this.bindings = out;
    }
    return this.bindings;
  }

  /** The param object of a binding, or the configuration error that stands for it. */
  private async paramOf(paramKind: Json, paramRef: Json): Promise<{ value?: KubeObject; error?: string }> {
    const apiVersion = fromKubernetesApiVersion(text(paramKind.apiVersion));
    const slash = apiVersion.indexOf('/');
    const gv = slash < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
    const def = this.deps.resources
      ?.all()
      .map((s) => s.definition)
      .find((d) => d.group === gv.group && d.version === gv.version && d.kind === text(paramKind.kind) && d.strategy);
    if (!def) return { error: `paramKind kind \`${goParamKind(paramKind)}\` not known` };
    const informer = this.factory.informerFor({ group: def.group, version: def.version, resource: def.resource });
    informer.start();
    if (!(await synced(informer, 1000))) return { error: `paramKind kind \`${goParamKind(paramKind)}\` not yet synced to use for admission` };
    const name = text(paramRef.name);
    const namespace = text(paramRef.namespace);
    const found = informer.get(namespace, name);
    if (!found) return { error: notFound({ group: def.group, resource: def.resource }, name).message };
    return { value: found };
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    // Policies and bindings themselves are never subject to policies, so a bad one cannot lock them.
    if (attrs.resource.group === group('admissionregistration') && (attrs.resource.resource === 'validatingadmissionpolicies' || attrs.resource.resource === 'validatingadmissionpolicybindings')) return;
    const ms = this.deps.readyTimeoutMs ?? 10_000;
    if (!(await synced(this.policyInformer, ms)) || !(await synced(this.bindingInformer, ms))) {
      throw admissionForbidden(attrs, 'not yet ready to handle request');
    }
    const policies = this.compiledPolicies();
    if (policies.size === 0) return;
    const bindingsByPolicy = this.bindingsByPolicy();
    const denials: Denial[] = [];
    const configError = (p: PolicyEntry, message: string, binding?: string): void => {
      if (p.failurePolicy === 'Ignore') return;
      const decision: PolicyDecision = { action: 'deny', error: true, message, reason: 'Invalid', index: 0 };
      if (p.failurePolicy !== 'Fail') decision.message = `unrecognized failure policy: '${p.failurePolicy}'`;
      denials.push({ policy: p.name, binding, decision });
    };

    for (const p of [...policies.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const bindings = bindingsByPolicy.get(p.name);
      if (!bindings) continue;
      const defMatch = await matchResources(isObject(p.spec.matchConstraints) ? p.spec.matchConstraints : {}, attrs, this.matchDeps);
      if (defMatch.error) {
        configError(p, `failed to configure policy: ${defMatch.error.message}`);
        continue;
      }
      if (!defMatch.matches) continue;
      if (p.compiled.errors.length > 0) {
        configError(p, `failed to configure policy: ${p.compiled.errors.map((e) => `${e.field}: ${e.detail ?? ''}`).join(', ')}`);
        continue;
      }
      const annotations = new Map<string, string[]>();
      for (const b of bindings) {
        const bname = b.metadata?.name ?? '';
        const bspec = isObject(b.spec) ? b.spec : {};
        const bm = await matchResources(isObject(bspec.matchResources) ? bspec.matchResources : undefined, attrs, this.matchDeps);
        if (bm.error) {
          configError(p, `failed to configure binding: ${bm.error.message}`, bname);
          continue;
        }
        if (!bm.matches) continue;
        const paramKind = isObject(p.spec.paramKind) ? p.spec.paramKind : undefined;
        const paramRef = isObject(bspec.paramRef) ? bspec.paramRef : undefined;
        let params: KubeObject | undefined;
        if (paramKind && paramRef) {
          const got = await this.paramOf(paramKind, paramRef);
          if (got.error !== undefined) {
            configError(p, `failed to configure binding: ${got.error}`, bname);
            continue;
          }
          params = got.value;
        }
        let object: unknown = attrs.object;
        let oldObject: unknown = attrs.oldObject;
        const kind = defMatch.kind ?? attrs.kind;
        if (defMatch.resource && (defMatch.resource.version !== attrs.resource.version || defMatch.resource.group !== attrs.resource.group) && this.deps.resources) {
          // Matched as another version: the expressions see the object in that version.
          try {
            const convert = tableConverter(this.deps.resources);
            if (attrs.object) object = await convert(attrs.object, attrs.resource, defMatch.resource, kind);
            if (attrs.oldObject) oldObject = await convert(attrs.oldObject, attrs.resource, defMatch.resource, kind);
          } catch (err) {
            configError(p, `failed to configure binding: failed to convert object version: ${err instanceof Error ? err.message : String(err)}`, bname);
            continue;
          }
        }
        const result = evaluatePolicy(p.compiled, paramKind !== undefined, p.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail', {
          object: attrs.operation === 'DELETE' ? null : object,
          oldObject: attrs.operation === 'CREATE' ? null : oldObject,
          request: requestOf(attrs, kind),
          params: params ?? null,
        });
        const actions = Array.isArray(bspec.validationActions) ? bspec.validationActions.map(String) : [];
        for (const d of result.decisions) {
          if (d.action !== 'deny') continue;
          // Errors of the expressions deny whatever the actions say (the failure policy already chose).
          if (d.error) {
            denials.push({ policy: p.name, binding: bname, decision: d });
            continue;
          }
          for (const action of actions) {
            if (action === 'Deny') denials.push({ policy: p.name, binding: bname, decision: d });
            else if (action === 'Warn') attrs.warnings.push(`Validation failed for ValidatingAdmissionPolicy '${p.name}' with binding '${bname}': ${d.message}`);
            else if (action === 'Audit') {
              attrs.audit?.add(
                domainKey('validation_failure', 'validation.policy.admission'),
                JSON.stringify([{ message: d.message, policy: p.name, binding: bname, expressionIndex: d.index, validationActions: actions }]),
              );
            }
          }
        }
        for (const a of result.annotations) {
          const value = a.value.length > MAX_AUDIT_ANNOTATION_VALUE ? a.value.slice(0, MAX_AUDIT_ANNOTATION_VALUE) : a.value;
          const values = annotations.get(a.key) ?? [];
          if (!values.includes(value)) values.push(value);
          annotations.set(a.key, values);
        }
      }
      for (const [key, values] of annotations) attrs.audit?.add(`${p.name}/${key}`, values.join(', '));
    }

    const first = denials[0];
    if (!first) return;
    const message = first.binding !== undefined
      ? `ValidatingAdmissionPolicy '${first.policy}' with binding '${first.binding}' denied request: ${first.decision.message}`
      : `ValidatingAdmissionPolicy '${first.policy}' denied request: ${first.decision.message}`;
    const base = admissionForbidden(attrs, message);
    const reason = first.decision.reason || 'Invalid';
    throw new ApiError(reasonToCode(reason), reason, base.message, { ...base.status.details, causes: [{ message }] });
  }
}

/** `request` as the expressions see it (an AdmissionRequest without the objects). */
function requestOf(attrs: AdmissionAttributes, kind: { group: string; version: string; kind: string }): Record<string, unknown> {
  const extra: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(attrs.user.extra ?? {})) extra[k] = [...v];
  return {
    kind: { group: kind.group, version: kind.version, kind: kind.kind },
    resource: { group: attrs.resource.group, version: attrs.resource.version, resource: attrs.resource.resource },
    subResource: attrs.subresource,
    requestKind: { group: attrs.kind.group, version: attrs.kind.version, kind: attrs.kind.kind },
    requestResource: { group: attrs.resource.group, version: attrs.resource.version, resource: attrs.resource.resource },
    requestSubResource: attrs.subresource,
    name: attrs.name,
    namespace: attrs.namespace,
    operation: attrs.operation,
    userInfo: { username: attrs.user.username, uid: attrs.user.uid ?? '', groups: [...(attrs.user.groups ?? [])], extra },
    dryRun: attrs.dryRun,
    options: attrs.options ?? null,
  };
}

/**
 * With the gate on, the policies must be served: kube-apiserver would otherwise refuse every
 * request as "not yet ready" forever, so this server refuses to start instead.
 */
function checkServed(features: FeatureGate, resources: ResourceTable | undefined): void {
  if (!resources) return;
  const served = resources.lookup({ group: group('admissionregistration'), version: 'v1alpha1' }, 'validatingadmissionpolicies');
  const bindings = resources.lookup({ group: group('admissionregistration'), version: 'v1alpha1' }, 'validatingadmissionpolicybindings');
  if (features.enabled(PLUGIN) && (!served || !bindings)) {
    throw new Error(
      `admission plugin "${PLUGIN}": --feature-gates=${PLUGIN}=true needs --runtime-config=${group('admissionregistration')}/v1alpha1=true (the policies and bindings are not served)`,
    );
  }
}

export function validatingPolicyFactories(deps: AdmissionDeps): Record<string, AdmissionPluginFactory> {
  return {
    ValidatingAdmissionPolicy: ({ features, client, informers }) => {
      if (!features.enabled(PLUGIN)) {
        // Gate off: the plugin stands in the chain and admits everything, as kube-apiserver's does.
        return { name: PLUGIN, handles: () => false };
      }
      checkServed(features, deps.resources);
      return new ValidatingAdmissionPolicyPlugin({ client, informers, resources: deps.resources });
    },
  };
}
