// Evicting a pod: `POST pods/x/eviction` with a policy/v1 (or v1beta1) Eviction. The pod is
// deleted only when the PodDisruptionBudget covering it allows one more disruption, which
// is taken from the budget's status (with the pod recorded in `disruptedPods`) by an update
// guarded by its resource version; otherwise 429, which clients such as `kubectl drain`
// retry. Pending and finished pods, and pods already being deleted, go without a budget
// check. Kubernetes' EvictionREST rules.
import { ApiError, badRequest, conflict, forbidden, invalid, notFound, notSupportedField, type FieldError } from '../apimachinery/errors.js';
import type { FeatureGate } from '../apimachinery/features.js';
import { getOwn } from '../apimachinery/own.js';
import { isPlainObject, type GroupVersionResource, type KubeObject } from '../apimachinery/types.js';
import type { ApiClient } from '../client/types.js';
import { metaGroup } from '../naming/index.js';
import { rfc3339 } from '../apimachinery/time.js';
import type { CreateOptions, DeleteOptions, RESTStore, RequestContext, ResourceTable, SubresourceDefinition, SubresourceStore } from '../rest/index.js';
import { serveSubresourceHandler } from './subresources.js';
import {
  budgetSelects,
  DISRUPTION_BUDGET_CAUSE,
  DISRUPTION_TARGET,
  isPodReady,
  podPhase,
  updateDisruptionAllowedCondition,
  updatePodCondition,
} from '../apis/policy/disruption.js';

export const PDBS: GroupVersionResource = { group: 'policy', version: 'v1', resource: 'poddisruptionbudgets' };

/** More unconfirmed evictions than this in one budget are refused (Kubernetes' MaxDisruptedPodSize). */
export const MAX_DISRUPTED_POD_SIZE = 2000;
/** How often a conflicting write is tried again (Kubernetes' EvictionsRetry steps). */
const EVICTION_ATTEMPTS = 20;

const VIOLATION = "Cannot evict pod as it would violate the pod's disruption budget.";

type PodStore = Required<Pick<RESTStore, 'get' | 'delete'>> & Pick<RESTStore, 'definition'>;
type PodStatusStore = Required<Pick<SubresourceStore, 'update'>>;

export interface EvictionOptions {
  /** The pods store (the eviction reads and deletes through it). */
  pods: PodStore;
  /** The pods' `status` subresource (the DisruptionTarget condition is written through it). */
  status: PodStatusStore;
  /** Reads and updates budgets, as kube-apiserver's loopback client does. */
  client: ApiClient;
  features: FeatureGate;
  now?: () => Date;
}

function tooManyRequests(retryAfterSeconds: number, cause: string): ApiError {
  const details = { ...(retryAfterSeconds > 0 ? { retryAfterSeconds } : {}), causes: [{ reason: DISRUPTION_BUDGET_CAUSE, message: cause }] };
  return new ApiError(429, 'TooManyRequests', VIOLATION, details);
}

/** The 429 for a budget the controller has not caught up with, or a pod that turned healthy meanwhile. */
function stillProcessing(pdbName: string): ApiError {
  return tooManyRequests(10, `The disruption budget ${pdbName} is still being processed by the server.`);
}

function isConflict(e: unknown): boolean {
  return e instanceof ApiError && e.code === 409;
}

/** The Eviction's `deleteOptions`, read as DeleteOptions with their `dryRun` values as given. */
function readDeleteOptions(raw: unknown): { opts: Omit<DeleteOptions, 'dryRun'>; dryRun: string[] | undefined } {
  if (raw === undefined || raw === null) return { opts: {}, dryRun: undefined };
  if (!isPlainObject(raw)) throw badRequest('Eviction.deleteOptions must be a DeleteOptions object');
  const opts: Omit<DeleteOptions, 'dryRun'> = {};
  const errs: FieldError[] = [];
  let dryRun: string[] | undefined;
  const dry = getOwn(raw, 'dryRun');
  if (dry !== undefined && dry !== null) {
    if (!Array.isArray(dry) || dry.some((v) => typeof v !== 'string')) throw badRequest('Eviction.deleteOptions.dryRun must be a list of strings');
    dryRun = dry as string[];
    if (dryRun.some((v) => v !== 'All')) errs.push(notSupportedField('dryRun', dryRun, ['All']));
  }
  const grace = getOwn(raw, 'gracePeriodSeconds');
  if (grace !== undefined && grace !== null) {
    if (typeof grace !== 'number' || !Number.isSafeInteger(grace)) throw badRequest('Eviction.deleteOptions.gracePeriodSeconds must be an integer');
    opts.gracePeriodSeconds = grace;
  }
  const pre = getOwn(raw, 'preconditions');
  if (pre !== undefined && pre !== null) {
    if (!isPlainObject(pre)) throw badRequest('Eviction.deleteOptions.preconditions must be an object');
    const p: { uid?: string; resourceVersion?: string } = {};
    const uid = getOwn(pre, 'uid');
    const rv = getOwn(pre, 'resourceVersion');
    if (typeof uid === 'string') p.uid = uid;
    if (typeof rv === 'string') p.resourceVersion = rv;
    opts.preconditions = p;
  }
  const policy = getOwn(raw, 'propagationPolicy');
  if (policy !== undefined && policy !== null) {
    if (policy !== 'Orphan' && policy !== 'Background' && policy !== 'Foreground') errs.push(notSupportedField('propagationPolicy', policy, ['Foreground', 'Background', 'Orphan', 'nil']));
    else opts.propagationPolicy = policy;
  }
  const orphan = getOwn(raw, 'orphanDependents');
  if (orphan !== undefined && orphan !== null) {
    if (typeof orphan !== 'boolean') throw badRequest('Eviction.deleteOptions.orphanDependents must be a boolean');
    opts.orphanDependents = orphan;
  }
  if (errs.length > 0) throw invalid({ group: metaGroup(), kind: 'DeleteOptions' }, '', errs);
  return { opts, dryRun };
}

/**
 * The dry-run of the delete: the request's and the body's must agree when both are given
 * (Kubernetes refuses a mismatch with a plain error, a 500).
 */
function propagateDryRun(query: boolean, body: string[] | undefined): boolean {
  if (body === undefined || body.length === 0) return query;
  if (!query) return true;
  if (body.length !== 1) {
    const err = new ApiError(500, 'InternalError', `Internal error occurred: Non-matching dry-run options in request and content: [All] and [${body.join(' ')}]`);
    throw err;
  }
  return true;
}

function rvUnset(opts: DeleteOptions): boolean {
  return !opts.preconditions?.resourceVersion;
}

function withResourceVersion(opts: DeleteOptions, rv: string | undefined): DeleteOptions {
  return { ...opts, preconditions: { ...(opts.preconditions ?? {}), ...(rv ? { resourceVersion: rv } : {}) } };
}

/** Terminal, pending and terminating pods are evicted without asking their budget. */
function canIgnoreBudget(pod: KubeObject): boolean {
  const phase = podPhase(pod);
  return phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending' || !!pod.metadata?.deletionTimestamp;
}

/** Whether the delete must be guarded by the read resource version (a pod that may turn ready meanwhile). */
function shouldEnforceResourceVersion(pod: KubeObject): boolean {
  const phase = podPhase(pod);
  return !(phase === 'Succeeded' || phase === 'Failed' || !!pod.metadata?.deletionTimestamp);
}

export class EvictionREST {
  private readonly now: () => Date;

  constructor(private readonly opts: EvictionOptions) {
    this.now = opts.now ?? (() => new Date());
  }

  /** Answers the Status a create of the subresource returns (Success, or a Failure with code 500 for several budgets). */
  async evict(ctx: RequestContext, namespace: string, name: string, eviction: KubeObject, opts: CreateOptions): Promise<KubeObject> {
    const m = eviction.metadata ?? {};
    if (m.namespace && namespace && m.namespace !== namespace) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    if ((m.name ?? '') !== name) throw badRequest('name in URL does not match name in Eviction object');
    const { opts: bodyOpts, dryRun } = readDeleteOptions(getOwn(eviction, 'deleteOptions'));
    const original: DeleteOptions = { ...bodyOpts, dryRun: propagateDryRun(opts.dryRun, dryRun) };
    if (opts.validate) await opts.validate(structuredClone(eviction), undefined);

    // A pod the budget need not be asked about is deleted at once; conflicts are retried
    // unless the caller pinned a resource version.
    let pod: KubeObject | undefined;
    for (let attempt = 0; !pod; attempt++) {
      try {
        const current = await this.opts.pods.get(ctx, namespace, name, {});
        if (!canIgnoreBudget(current)) {
          pod = current;
          break;
        }
        let deleteOpts = original;
        if (shouldEnforceResourceVersion(current) && rvUnset(original)) deleteOpts = withResourceVersion(original, current.metadata?.resourceVersion);
        await this.markAndDelete(ctx, namespace, name, deleteOpts);
        return success();
      } catch (e) {
        if (!isConflict(e) || !rvUnset(original) || attempt + 1 >= EVICTION_ATTEMPTS) throw e;
      }
    }
    const labels = pod.metadata?.labels;

    const budgets = (await this.opts.client.list(PDBS, namespace)).items.filter(
      (b) => (b.metadata?.namespace ?? namespace) === namespace && budgetSelects(b, labels),
    );
    if (budgets.length > 1) {
      return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.', code: 500 };
    }
    let guardDelete = false;
    const pdb = budgets[0];
    if (pdb) {
      guardDelete = !isPodReady(pod) && this.unhealthyMayGo(pdb);
      if (!guardDelete) await this.takeDisruption(pdb, name, original.dryRun);
    }
    const deleteOpts = guardDelete ? withResourceVersion(original, pod.metadata?.resourceVersion) : original;
    try {
      await this.markAndDelete(ctx, namespace, name, deleteOpts);
    } catch (e) {
      // The unready pod changed since it was judged: the client asks again.
      if (isConflict(e) && guardDelete && rvUnset(original) && pdb) throw stillProcessing(pdb.metadata?.name ?? '');
      throw e;
    }
    return success();
  }

  /** An unready pod goes without taking a disruption when the policy says so or the budget is met. */
  private unhealthyMayGo(pdb: KubeObject): boolean {
    const spec = (pdb.spec ?? {}) as Record<string, unknown>;
    if (this.opts.features.enabled('PDBUnhealthyPodEvictionPolicy') && spec.unhealthyPodEvictionPolicy === 'AlwaysAllow') return true;
    const status = (pdb.status ?? {}) as Record<string, unknown>;
    const current = typeof status.currentHealthy === 'number' ? status.currentHealthy : 0;
    const desired = typeof status.desiredHealthy === 'number' ? status.desiredHealthy : 0;
    return current >= desired && desired > 0;
  }

  /** Checks and decrements the budget's allowance, re-reading it after a conflict. */
  private async takeDisruption(first: KubeObject, podName: string, dryRun: boolean): Promise<void> {
    let pdb = first;
    const namespace = pdb.metadata?.namespace ?? '';
    const pdbName = pdb.metadata?.name ?? '';
    for (let attempt = 0; ; attempt++) {
      try {
        await this.checkAndDecrement(pdb, podName, dryRun);
        return;
      } catch (e) {
        if (!isConflict(e) || attempt + 1 >= EVICTION_ATTEMPTS) throw e;
        pdb = await this.opts.client.get(PDBS, namespace, pdbName);
      }
    }
  }

  private async checkAndDecrement(pdb: KubeObject, podName: string, dryRun: boolean): Promise<void> {
    const name = pdb.metadata?.name ?? '';
    const status = structuredClone((isPlainObject(pdb.status) ? pdb.status : {}) as Record<string, unknown>);
    const num = (k: string): number => (typeof status[k] === 'number' ? (status[k] as number) : 0);
    if (num('observedGeneration') < (pdb.metadata?.generation ?? 0)) throw stillProcessing(name);
    const allowed = num('disruptionsAllowed');
    const qualified = { group: 'policy', resource: 'poddisruptionbudget' };
    if (allowed < 0) throw forbidden(qualified, name, 'pdb disruptions allowed is negative');
    const disrupted = isPlainObject(status.disruptedPods) ? { ...status.disruptedPods } : {};
    if (Object.keys(disrupted).length > MAX_DISRUPTED_POD_SIZE) {
      throw forbidden(qualified, name, 'DisruptedPods map too big - too many evictions not confirmed by PDB controller');
    }
    if (allowed === 0) throw tooManyRequests(0, `The disruption budget ${name} needs ${num('desiredHealthy')} healthy pods and has ${num('currentHealthy')} currently`);
    status.disruptionsAllowed = allowed - 1;
    const now = this.now();
    if (allowed - 1 === 0) updateDisruptionAllowedCondition(status, now);
    if (dryRun) return;
    // The controller leaves the pod out of its count until it is gone or the entry expires.
    disrupted[podName] = rfc3339(now);
    status.disruptedPods = disrupted;
    await this.opts.client.update(PDBS, pdb.metadata?.namespace ?? '', { ...pdb, status }, 'status');
  }

  /**
   * Sets the DisruptionTarget condition on the pod (gate PodDisruptionConditions, not on a
   * dry run) and deletes it; a resource version precondition follows the condition's write.
   */
  private async markAndDelete(ctx: RequestContext, namespace: string, name: string, opts: DeleteOptions): Promise<void> {
    let deleteOpts = opts;
    if (!opts.dryRun && this.opts.features.enabled('PodDisruptionConditions')) {
      const result = await this.opts.status.update(
        ctx,
        namespace,
        name,
        (current) => {
          if (!current) throw notFound({ group: '', resource: 'pods' }, name);
          const pre = opts.preconditions;
          const m = current.metadata ?? {};
          if (pre?.uid && pre.uid !== m.uid) {
            throw conflict({ group: '', resource: 'Pod' }, name, `the UID in the precondition (${pre.uid}) does not match the UID in record (${m.uid ?? ''}). The object might have been deleted and then recreated`);
          }
          if (pre?.resourceVersion && pre.resourceVersion !== m.resourceVersion) {
            throw conflict(
              { group: '', resource: 'Pod' },
              name,
              `the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${m.resourceVersion ?? ''}). The object might have been modified`,
            );
          }
          const next = structuredClone(current);
          updatePodCondition(next, { type: DISRUPTION_TARGET, status: 'True', reason: 'EvictionByEvictionAPI', message: 'Eviction API: evicting' }, this.now());
          // Written over whatever is stored now, as the condition is computed from it.
          delete next.metadata?.resourceVersion;
          return next;
        },
        { dryRun: false },
      );
      if (!rvUnset(opts)) deleteOpts = withResourceVersion(opts, result.object.metadata?.resourceVersion);
    }
    await this.opts.pods.delete(ctx, namespace, name, deleteOpts);
  }

  /** The store of `pods/eviction` (`definition`) for the pods store it evicts from. */
  storeFor(definition: SubresourceDefinition): SubresourceStore {
    return {
      resource: this.opts.pods.definition,
      definition,
      create: (ctx, namespace, name, obj, opts) => this.evict(ctx, namespace, name, obj, opts),
    };
  }
}

function success(): KubeObject {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };
}

/** Serves `pods/x/eviction` in `table` where declared, reading budgets with `client`. */
export function installPodEviction(table: ResourceTable, opts: Omit<EvictionOptions, 'pods' | 'status'>): void {
  serveSubresourceHandler(table, 'PodEviction', (pods, definition) => {
    const status = table.lookupSubresource(pods.definition, pods.definition.resource, 'status');
    if (!pods.get || !pods.delete || !status?.update) throw new Error(`${pods.definition.resource}/${definition.name}: eviction needs get, delete and a status subresource`);
    return new EvictionREST({ ...opts, pods: pods as PodStore, status: status as PodStatusStore }).storeFor(definition);
  });
}
