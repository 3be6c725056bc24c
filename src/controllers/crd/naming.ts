// The naming controller of CustomResourceDefinitions: accepts the names a definition asks
// for unless another definition of the same group already holds them (a name once accepted
// stays accepted), and reports it in `status.acceptedNames` and the `NamesAccepted`
// condition; the establishing controller then marks the definition `Established`.
import { isApiError } from '../../apimachinery/errors.js';
import { deepEqual } from '../../apimachinery/equality.js';
import type { KubeObject } from '../../apimachinery/types.js';
import {
  equivalentCondition,
  findCondition,
  namesOf,
  setCondition,
  type CRDCondition,
  type CRDNames,
} from '../../apis/apiextensions/index.js';
import { CRDController, type CRDControllerOptions } from './controller.js';

export interface NamesResult {
  acceptedNames: CRDNames;
  namesAccepted: CRDCondition;
  established: CRDCondition;
}

function groupOf(crd: KubeObject): string {
  const spec = crd.spec as { group?: unknown } | undefined;
  return typeof spec?.group === 'string' ? spec.group : '';
}

/** A requested name is fine when it is the one already accepted, or when nobody holds it. */
function conflict(requested: string, accepted: string, used: Set<string>): string | undefined {
  if (requested === accepted || !used.has(requested)) return undefined;
  return `${JSON.stringify(requested)} is already in use`;
}

/** The accepted names in the shape Go writes them (empty optional fields left out). */
function written(n: Required<CRDNames>): CRDNames {
  const out: CRDNames = { plural: n.plural, kind: n.kind };
  if (n.singular) out.singular = n.singular;
  if (n.shortNames.length > 0) out.shortNames = n.shortNames;
  if (n.listKind) out.listKind = n.listKind;
  if (n.categories.length > 0) out.categories = n.categories;
  return out;
}

/**
 * The names `crd` may have and its NamesAccepted and Established conditions, given every
 * definition of its group (itself included) as last written. Pure.
 */
export function calculateNamesAndConditions(crd: KubeObject, sameGroup: KubeObject[]): NamesResult {
  const resources = new Set<string>();
  const kinds = new Set<string>();
  for (const other of sameGroup) {
    const n = namesOf((other.status as { acceptedNames?: unknown } | undefined)?.acceptedNames);
    resources.add(n.plural);
    resources.add(n.singular);
    for (const s of n.shortNames) resources.add(s);
    kinds.add(n.kind);
    kinds.add(n.listKind);
  }
  const requested = namesOf((crd.spec as { names?: unknown } | undefined)?.names);
  const accepted = namesOf((crd.status as { acceptedNames?: unknown } | undefined)?.acceptedNames);
  const next = { ...accepted };
  let namesAccepted: CRDCondition = { type: 'NamesAccepted', status: 'Unknown' };
  const refuse = (reason: string, message: string): void => {
    namesAccepted = { type: 'NamesAccepted', status: 'False', reason, message };
  };

  const plural = conflict(requested.plural, accepted.plural, resources);
  if (plural) refuse('PluralConflict', plural);
  else next.plural = requested.plural;
  const singular = conflict(requested.singular, accepted.singular, resources);
  if (singular) refuse('SingularConflict', singular);
  else next.singular = requested.singular;
  if (!deepEqual(requested.shortNames, accepted.shortNames)) {
    const held = new Set(accepted.shortNames);
    const problems = requested.shortNames.filter((s) => !held.has(s)).map((s) => conflict(s, '', resources)).filter((m) => m !== undefined);
    if (problems.length > 0) refuse('ShortNamesConflict', problems.length === 1 ? problems[0]! : `[${problems.join(', ')}]`);
    else next.shortNames = requested.shortNames;
  }
  const kind = conflict(requested.kind, accepted.kind, kinds);
  if (kind) refuse('KindConflict', kind);
  else next.kind = requested.kind;
  const listKind = conflict(requested.listKind, accepted.listKind, kinds);
  if (listKind) refuse('ListKindConflict', listKind);
  else next.listKind = requested.listKind;
  next.categories = requested.categories;
  if (namesAccepted.status === 'Unknown') namesAccepted = { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' };

  const existing = findCondition(crd, 'Established');
  let established: CRDCondition = existing
    ? { type: 'Established', status: existing.status, reason: existing.reason, message: existing.message }
    : { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' };
  if (established.status !== 'True' && namesAccepted.status === 'True') {
    established = { type: 'Established', status: 'False', reason: 'Installing', message: 'the initial names have been accepted' };
  }
  return { acceptedNames: written(next), namesAccepted, established };
}

function resourceVersionOf(o: KubeObject): number {
  return Number(o.metadata?.resourceVersion ?? 0) || 0;
}

export class NamingController extends CRDController {
  /** Definitions this controller wrote, until the informer has caught up with them. */
  private readonly written = new Map<string, KubeObject>();

  constructor(opts: CRDControllerOptions) {
    super(opts, 'naming', 'crd_naming_condition_controller');
    this.handle({
      onAdd: (crd) => this.enqueue(crd),
      onUpdate: (_old, crd) => this.enqueue(crd),
      onDelete: (crd) => this.enqueue(crd),
    });
  }

  /** The definition as last seen: the informer's copy, or a newer one this controller wrote. */
  private latest(name: string): KubeObject | undefined {
    const cached = this.informer.get('', name);
    const mine = this.written.get(name);
    if (!mine) return cached;
    if (!cached || resourceVersionOf(mine) > resourceVersionOf(cached)) return mine;
    this.written.delete(name);
    return cached;
  }

  private sameGroup(group: string): KubeObject[] {
    const out: KubeObject[] = [];
    for (const crd of this.informer.list()) {
      if (groupOf(crd) !== group) continue;
      const current = this.latest(crd.metadata?.name ?? '');
      if (current) out.push(current);
    }
    return out;
  }

  /** Others of the group may now get names this one gave up, or lose ones it took. */
  private requeueOthers(name: string, group: string): void {
    for (const crd of this.informer.list()) {
      const other = crd.metadata?.name ?? '';
      if (other !== name && groupOf(crd) === group) this.queue.add(other);
    }
  }

  async sync(name: string): Promise<void> {
    const crd = this.latest(name);
    if (!crd) {
      this.written.delete(name);
      const dot = name.indexOf('.');
      if (dot >= 0) this.requeueOthers(name, name.slice(dot + 1));
      return;
    }
    const spec = crd.spec as { names?: unknown } | undefined;
    const status = crd.status as { acceptedNames?: unknown } | undefined;
    if (deepEqual(namesOf(spec?.names), namesOf(status?.acceptedNames))) return;

    const result = calculateNamesAndConditions(crd, this.sameGroup(groupOf(crd)));
    if (
      deepEqual(namesOf(status?.acceptedNames), namesOf(result.acceptedNames)) &&
      equivalentCondition(result.namesAccepted, findCondition(crd, 'NamesAccepted'))
    ) {
      return;
    }
    const next = structuredClone(crd);
    next.status = { ...(next.status as Record<string, unknown> | undefined), acceptedNames: result.acceptedNames };
    setCondition(next, result.namesAccepted);
    setCondition(next, result.established);
    let updated: KubeObject;
    try {
      updated = await this.updateStatus(next);
    } catch (err) {
      // Gone, or changed meanwhile: the informer brings the newer object back here.
      if (isApiError(err) && (err.code === 404 || err.code === 409)) return;
      throw err;
    }
    this.written.set(name, updated);
    this.requeueOthers(name, groupOf(crd));
  }
}
