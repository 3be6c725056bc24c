// Validation of PriorityLevelConfigurations, as kube-apiserver 1.27 answers it (its
// ValidatePriorityLevelConfiguration): the type and the `limited` section agree, shares,
// percentages and queuing are in range (a hand no larger than the deck, and one the
// shuffle-sharding dealer can draw with 60 bits of entropy), the mandatory `exempt` and
// `catch-all` levels keep their fixed spec, and status conditions name distinct types.
// Objects are read in the storage version (v1beta3); a v1beta2 request has its shares
// reported under their v1beta2 name, `assuredConcurrencyShares`.
import { deepEqual } from '../../apimachinery/equality.js';
import { duplicateField, forbiddenField, invalidField, notSupportedField, requiredField, type FieldError } from '../../apimachinery/errors.js';
import { isPlainObject, type KubeObject } from '../../apimachinery/types.js';
import { goQuote } from '../../schema/crd/go-format.js';
import { meta } from '../util.js';

type Json = Record<string, unknown>;

const obj = (v: unknown): Json | undefined => (isPlainObject(v) ? v : undefined);
/** A number field as Go holds it: absent or null reads as 0. */
const int = (v: unknown): number => (typeof v === 'number' ? v : 0);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

export const MAX_QUEUES = 10_000_000;
/** The bits of hash a shuffle-sharding deal may use. */
const MAX_HASH_BITS = 60;

/** The entropy a deal of `handSize` cards from a deck of `deckSize` needs, in bits. */
export function requiredEntropyBits(deckSize: number, handSize: number): number {
  return Math.ceil(Math.log2(deckSize) * handSize);
}

/** The mandatory levels' specs, after defaulting (1.27's bootstrap configuration). */
export function mandatoryPriorityLevelSpecs(): Readonly<Record<string, Json>> {
  return {
    exempt: { type: 'Exempt' },
    'catch-all': { type: 'Limited', limited: { nominalConcurrencyShares: 5, lendablePercent: 0, limitResponse: { type: 'Reject' } } },
  };
}

/** The spec's known fields only, so that comparisons see what Go's typed object holds. */
function typedSpec(spec: Json): Json {
  const out: Json = {};
  if (spec.type !== undefined && spec.type !== null) out.type = spec.type;
  const limited = obj(spec.limited);
  if (limited) {
    const l: Json = {};
    for (const k of ['nominalConcurrencyShares', 'lendablePercent', 'borrowingLimitPercent']) if (limited[k] !== undefined && limited[k] !== null) l[k] = limited[k];
    const lr = obj(limited.limitResponse) ?? {};
    const r: Json = {};
    if (lr.type !== undefined && lr.type !== null) r.type = lr.type;
    const q = obj(lr.queuing);
    if (q) r.queuing = Object.fromEntries(['queues', 'handSize', 'queueLengthLimit'].filter((k) => q[k] !== undefined && q[k] !== null).map((k) => [k, q[k]]));
    l.limitResponse = r;
    out.limited = l;
  }
  return out;
}

/**
 * Go's `%#v` of the spec as the fixed-value error shows it. The address of the `limited`
 * pointer, which Go prints and which differs on every call, is written as one fixed value.
 */
function goSpec(spec: Json): string {
  const limited = obj(spec.limited) ? '(*flowcontrol.LimitedPriorityLevelConfiguration)(0xc000000000)' : '(*flowcontrol.LimitedPriorityLevelConfiguration)(nil)';
  return `flowcontrol.PriorityLevelConfigurationSpec{Type:${goQuote(text(spec.type))}, Limited:${limited}}`;
}

function validateQueuing(q: Json, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const queueLengthLimit = int(q.queueLengthLimit);
  const queues = int(q.queues);
  const handSize = int(q.handSize);
  if (queueLengthLimit <= 0) errs.push(invalidField(`${path}.queueLengthLimit`, queueLengthLimit, 'must be positive'));
  if (queues <= 0) errs.push(invalidField(`${path}.queues`, queues, 'must be positive'));
  else if (queues > MAX_QUEUES) errs.push(invalidField(`${path}.queues`, queues, `must not be greater than ${MAX_QUEUES}`));
  if (handSize <= 0) errs.push(invalidField(`${path}.handSize`, handSize, 'must be positive'));
  else if (handSize > queues) errs.push(invalidField(`${path}.handSize`, handSize, `should not be greater than queues (${queues})`));
  else if (requiredEntropyBits(queues, handSize) > MAX_HASH_BITS) {
    errs.push(invalidField(`${path}.handSize`, handSize, `required entropy bits of deckSize ${queues} and handSize ${handSize} should not be greater than ${MAX_HASH_BITS}`));
  }
  return errs;
}

function validateLimitResponse(lr: Json, path: string): FieldError[] {
  const type = text(lr.type);
  const queuing = obj(lr.queuing);
  switch (type) {
    case 'Reject':
      return queuing ? [forbiddenField(`${path}.queuing`, 'must be nil if limited.limitResponse.type is not Limited')] : [];
    case 'Queue':
      return queuing ? validateQueuing(queuing, `${path}.queuing`) : [requiredField(`${path}.queuing`, 'must not be empty if limited.limitResponse.type is Limited')];
    default:
      return [notSupportedField(`${path}.type`, type, ['Queue', 'Reject'])];
  }
}

function validateLimited(limited: Json, sharesName: string): FieldError[] {
  const errs: FieldError[] = [];
  const shares = int(limited.nominalConcurrencyShares);
  if (shares <= 0) errs.push(invalidField(`spec.limited.${sharesName}`, shares, 'must be positive'));
  errs.push(...validateLimitResponse(obj(limited.limitResponse) ?? {}, 'spec.limited.limitResponse'));
  const lendable = limited.lendablePercent;
  if (typeof lendable === 'number' && !(lendable >= 0 && lendable <= 100)) errs.push(invalidField('spec.limited.lendablePercent', lendable, 'must be between 0 and 100, inclusive'));
  const borrowing = limited.borrowingLimitPercent;
  if (typeof borrowing === 'number' && borrowing < 0) errs.push(invalidField('spec.limited.borrowingLimitPercent', borrowing, 'if specified, must be a non-negative integer'));
  return errs;
}

function validateConditions(status: Json | undefined): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  const conditions = Array.isArray(status?.conditions) ? status.conditions : [];
  conditions.forEach((c: unknown, i: number) => {
    const type = text(obj(c)?.type);
    const path = `status.conditions[${i}].type`;
    if (seen.has(type)) errs.push(duplicateField(path, type));
    seen.add(type);
    if (type === '') errs.push(requiredField(path, 'must not be empty'));
  });
  return errs;
}

/** `sharesName`: the field's name in the request's version (`assuredConcurrencyShares` in v1beta2). */
export function validatePriorityLevel(o: KubeObject, sharesName = 'nominalConcurrencyShares'): FieldError[] {
  const errs: FieldError[] = [];
  const name = meta(o).name ?? '';
  const spec = obj(o.spec) ?? {};
  const type = text(spec.type);
  const limited = obj(spec.limited);
  if ((name === 'exempt') !== (type === 'Exempt')) errs.push(invalidField('spec.type', type, "type must be 'Exempt' if and only if name is 'exempt'"));
  switch (type) {
    case 'Exempt':
      if (limited) errs.push(forbiddenField('spec.limited', 'must be nil if the type is not Limited'));
      break;
    case 'Limited':
      if (!limited) errs.push(requiredField('spec.limited', 'must not be empty when type is Limited'));
      else errs.push(...validateLimited(limited, sharesName));
      break;
    default:
      errs.push(notSupportedField('spec.type', type, ['Exempt', 'Limited']));
  }
  const mandatory = mandatoryPriorityLevelSpecs()[name];
  if (mandatory && !deepEqual(typedSpec(spec), typedSpec(mandatory))) {
    errs.push({ type: 'FieldValueInvalid', field: 'spec', detail: `Invalid value: ${goSpec(spec)}: spec of '${name}' must equal the fixed value` });
  }
  errs.push(...validateConditions(obj(o.status)));
  return errs;
}

/** Defaults of a level's `limited` section: zero or absent shares and queuing numbers take kube's values. */
export function defaultPriorityLevel(o: KubeObject): void {
  const limited = obj(obj(o.spec)?.limited);
  if (!limited) return;
  if (!limited.nominalConcurrencyShares) limited.nominalConcurrencyShares = 30;
  if (limited.lendablePercent === undefined || limited.lendablePercent === null) limited.lendablePercent = 0;
  // Queuing is defaulted only when present: a Queue level without it is refused, as in kube.
  const queuing = obj(obj(limited.limitResponse)?.queuing);
  if (!queuing) return;
  if (!queuing.queues) queuing.queues = 64;
  if (!queuing.handSize) queuing.handSize = 8;
  if (!queuing.queueLengthLimit) queuing.queueLengthLimit = 50;
}
