// The two plugins. MutatingAdmissionWebhook calls matching webhooks one after another,
// applying each JSON patch before the next call, and calls again (once) the `IfNeeded`
// webhooks that ran before a later webhook changed the object. ValidatingAdmissionWebhook
// calls its matching webhooks in parallel; any rejection fails the request.
import { randomUUID } from 'node:crypto';
import { ApiError, badRequest, forbidden, internalError, isApiError, serviceUnavailable } from '../../apimachinery/errors.js';
import type { GroupVersionKind, GroupVersionResource, KubeObject } from '../../apimachinery/types.js';
import { applyJsonPatch } from '../../patch/index.js';
import type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from '../types.js';
import { annotate, failedOpenAnnotation, mutationAnnotation, patchAnnotation } from './audit.js';
import type { WebhookCaller } from './client.js';
import type { Webhook } from './config.js';
import { isExemptAdmissionConfigurationResource, requestNamespace, type WebhookInvocation, type WebhookMatcher } from './matcher.js';
import type { WebhookMetrics, WebhookStepType } from './metrics.js';
import { buildAdmissionReview, CallingWebhookError, noKnownReviewVersion, rejectionError, reviewVersionFor, verifyAdmissionResponse, WebhookRejection } from './review.js';
import { deepEqual } from '../../apimachinery/equality.js';

/** Converts an object between two served versions of one resource; waits when a conversion webhook does. */
export type VersionConverter = (obj: KubeObject, from: GroupVersionResource, to: GroupVersionResource, toKind: GroupVersionKind) => KubeObject | Promise<KubeObject>;

export interface DispatcherDeps {
  webhooks(): Webhook[];
  /** Resolves false when the configurations could not be read in time. */
  ready(): Promise<boolean>;
  matcher: WebhookMatcher;
  caller: WebhookCaller;
  metrics: WebhookMetrics;
  convert: VersionConverter;
}

const sameResource = (a: GroupVersionResource, b: GroupVersionResource): boolean => a.group === b.group && a.version === b.version && a.resource === b.resource;

/** Replaces the contents of `target` by those of `source`, keeping the object the handler holds. */
function replaceInPlace(target: KubeObject, source: KubeObject): void {
  for (const key of Object.keys(target)) delete (target as Record<string, unknown>)[key];
  Object.assign(target, source);
}

function addWarnings(attrs: AdmissionAttributes, warnings: string[]): void {
  for (const w of warnings) if (w !== '' && !attrs.warnings.includes(w)) attrs.warnings.push(w);
}

function notReady(attrs: AdmissionAttributes): ApiError {
  const name = attrs.name || attrs.object?.metadata?.name || '';
  return forbidden({ group: attrs.resource.group, resource: attrs.resource.resource }, name, 'not yet ready to handle request');
}

/** Side effects must be declared absent (or absent on dry run) for a dry-run request to reach a webhook. */
function checkDryRun(w: Webhook, attrs: AdmissionAttributes): void {
  if (!attrs.dryRun) return;
  if (w.sideEffects === '') throw new CallingWebhookError(w.name, 'Webhook SideEffects is nil', badRequest('Webhook SideEffects is nil'));
  if (w.sideEffects !== 'None' && w.sideEffects !== 'NoneOnDryRun') throw badRequest(`admission webhook ${JSON.stringify(w.name)} does not support dry run`);
}

abstract class WebhookPlugin implements AdmissionPlugin {
  abstract readonly name: string;
  constructor(protected readonly deps: DispatcherDeps) {}

  handles(_operation: AdmissionOperation): boolean {
    return true;
  }

  /** The webhooks of this kind as currently configured, in call order. */
  configuredWebhooks(): readonly Webhook[] {
    return this.deps.webhooks();
  }

  /** Webhooks of this kind to consider, or undefined when the request is exempt. Throws 403 when not ready. */
  protected async hooks(attrs: AdmissionAttributes): Promise<Webhook[] | undefined> {
    if (isExemptAdmissionConfigurationResource(attrs)) return undefined;
    if (!(await this.deps.ready())) throw notReady(attrs);
    return this.deps.webhooks();
  }

  /** Sends the review and checks the answer; the caller handles rejection and patches. */
  protected async review(inv: WebhookInvocation, attrs: AdmissionAttributes, object: KubeObject | undefined, oldObject: KubeObject | undefined, mutating: boolean) {
    const w = inv.webhook;
    checkDryRun(w, attrs);
    const version = reviewVersionFor(w.admissionReviewVersions);
    if (!version) throw noKnownReviewVersion(w.name);
    const uid = randomUUID();
    const review = buildAdmissionReview(version, {
      uid,
      kind: inv.kind,
      resource: inv.resource,
      subresource: inv.subresource,
      requestKind: attrs.kind,
      requestResource: attrs.resource,
      requestSubresource: attrs.subresource,
      name: attrs.name,
      namespace: requestNamespace(attrs),
      operation: attrs.operation,
      user: attrs.user,
      object,
      oldObject,
      options: attrs.options,
      dryRun: attrs.dryRun,
    });
    const answer = await this.deps.caller.call(w, review);
    const result = verifyAdmissionResponse(w.name, version, uid, mutating, answer);
    for (const [k, v] of Object.entries(result.auditAnnotations)) annotate(attrs, `${w.name}/${k}`, v);
    addWarnings(attrs, result.warnings);
    if (!result.allowed) throw new WebhookRejection(rejectionError(w.name, result.result));
    return result;
  }

  /** Counts a failed call and turns it into the error the request ends with (undefined: fail open). */
  protected failure(err: unknown, w: Webhook, type: WebhookStepType, operation: string): ApiError | undefined {
    if (err instanceof CallingWebhookError) {
      if (w.failurePolicy === 'Ignore') {
        this.deps.metrics.failOpen(w.name, type);
        return undefined;
      }
      this.deps.metrics.rejection(w.name, type, operation, 'calling_webhook_error', err.status.code);
      return internalError(err);
    }
    if (err instanceof WebhookRejection) {
      this.deps.metrics.rejection(w.name, type, operation, 'no_error', err.status.code);
      return err.status;
    }
    this.deps.metrics.rejection(w.name, type, operation, 'apiserver_internal_error', 0);
    return isApiError(err) ? err : internalError(err);
  }
}

/** Which `IfNeeded` webhooks have run, and which must run again because the object changed after them. */
class ReinvocationState {
  private previouslyInvoked = new Set<string>();
  readonly reinvoke = new Set<string>();
  shouldReinvoke = false;

  changed(): void {
    for (const uid of this.previouslyInvoked) this.reinvoke.add(uid);
    this.previouslyInvoked.clear();
    this.shouldReinvoke = true;
  }

  invoked(w: Webhook): void {
    if (w.reinvocationPolicy === 'IfNeeded') this.previouslyInvoked.add(w.uid);
  }
}

export class MutatingAdmissionWebhook extends WebhookPlugin {
  readonly name = 'MutatingAdmissionWebhook';

  async admit(attrs: AdmissionAttributes): Promise<void> {
    const hooks = await this.hooks(attrs);
    if (!hooks || hooks.length === 0) return;
    const state = new ReinvocationState();
    await this.round(attrs, hooks, 0, state);
    // One more round for the webhooks that asked for it, as the reinvocation of the chain
    // would give them (the built-in plugins before this one are idempotent).
    if (state.shouldReinvoke && state.reinvoke.size > 0) await this.round(attrs, hooks, 1, state);
  }

  private async round(attrs: AdmissionAttributes, hooks: Webhook[], round: number, state: ReinvocationState): Promise<void> {
    for (const [index, hook] of hooks.entries()) {
      const inv = await this.deps.matcher.shouldCall(hook, attrs);
      if (!inv) continue;
      // A webhook is never called for the first time in the second round.
      if (round === 1 && !state.reinvoke.has(hook.uid)) continue;
      let changed = false;
      let error: unknown;
      try {
        changed = await this.call(inv, attrs, round, index);
      } catch (err) {
        error = err;
      } finally {
        const [k, v] = mutationAnnotation(round, index, hook.configurationName, hook.name, changed);
        annotate(attrs, k, v);
      }
      if (changed) state.changed();
      state.invoked(hook);
      if (error === undefined) continue;
      const failure = this.failure(error, hook, 'admit', attrs.operation);
      if (failure) throw failure;
      const [k, v] = failedOpenAnnotation('mutating', round, index, hook.name);
      annotate(attrs, k, v);
    }
  }

  /** Calls one webhook and applies its patch to `attrs.object`; resolves whether the object changed. */
  private async call(inv: WebhookInvocation, attrs: AdmissionAttributes, round: number, index: number): Promise<boolean> {
    const w = inv.webhook;
    const converted = !sameResource(inv.resource, attrs.resource);
    const toWebhook = async (o: KubeObject | undefined) => (o && converted ? this.deps.convert(structuredClone(o), attrs.resource, inv.resource, inv.kind) : o);
    const object = await toWebhook(attrs.object);
    const result = await this.review(inv, attrs, object, await toWebhook(attrs.oldObject), true);
    if (result.patch === undefined) return false;
    let ops: unknown;
    try {
      ops = JSON.parse(result.patch);
      if (!Array.isArray(ops)) throw new Error(`json: cannot unmarshal ${ops === null ? 'null' : typeof ops} into Go value of type jsonpatch.Patch`);
    } catch (err) {
      throw new CallingWebhookError(w.name, `received undecodable patch in webhook response: ${err instanceof Error ? err.message : String(err)}`, serviceUnavailable('error decoding patch in webhook response'));
    }
    if (ops.length === 0) return false;
    if (!object || !attrs.object) {
      throw internalError(`admission webhook ${JSON.stringify(w.name)} attempted to modify the object, which is not supported for this operation`);
    }
    if (result.patchType !== 'JSONPatch') throw new CallingWebhookError(w.name, `unsupported patch type ${JSON.stringify(result.patchType)}`, rejectionError(w.name, result.result));
    let patched: unknown;
    try {
      patched = applyJsonPatch(structuredClone(object), ops);
    } catch (err) {
      throw internalError(err);
    }
    if (typeof patched !== 'object' || patched === null || Array.isArray(patched)) {
      throw internalError(`admission webhook ${JSON.stringify(w.name)} patched the object into a non-object`);
    }
    const next = patched as KubeObject;
    const changed = !deepEqual(object, next);
    const [k, v] = patchAnnotation(round, index, w.configurationName, w.name, ops, result.patchType);
    annotate(attrs, k, v, 'Request');
    const back = converted ? await this.deps.convert(next, inv.resource, attrs.resource, attrs.kind) : next;
    replaceInPlace(attrs.object, back);
    return changed;
  }
}

export class ValidatingAdmissionWebhook extends WebhookPlugin {
  readonly name = 'ValidatingAdmissionWebhook';

  async validate(attrs: AdmissionAttributes): Promise<void> {
    const hooks = await this.hooks(attrs);
    if (!hooks || hooks.length === 0) return;
    const relevant: WebhookInvocation[] = [];
    for (const hook of hooks) {
      const inv = await this.deps.matcher.shouldCall(hook, attrs);
      if (inv) relevant.push(inv);
    }
    if (relevant.length === 0) return;
    // The first failure to arrive decides the answer, as the calls race.
    const errors: ApiError[] = [];
    await Promise.all(
      relevant.map(async (inv, index) => {
        try {
          await this.call(inv, attrs);
        } catch (err) {
          const failure = this.failure(err, inv.webhook, 'validating', attrs.operation);
          if (failure) errors.push(failure);
          else {
            const [k, v] = failedOpenAnnotation('validating', 0, index, inv.webhook.name);
            annotate(attrs, k, v);
          }
        }
      }),
    );
    if (errors.length > 0) throw errors[0];
  }

  private async call(inv: WebhookInvocation, attrs: AdmissionAttributes): Promise<void> {
    const converted = !sameResource(inv.resource, attrs.resource);
    const toWebhook = async (o: KubeObject | undefined) => (o && converted ? this.deps.convert(structuredClone(o), attrs.resource, inv.resource, inv.kind) : o);
    await this.review(inv, attrs, await toWebhook(attrs.object), await toWebhook(attrs.oldObject), false);
  }
}
