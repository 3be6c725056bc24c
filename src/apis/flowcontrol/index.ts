// API Priority and Fairness objects: FlowSchema and PriorityLevelConfiguration, stored as
// v1beta3 and also served as v1beta2, where a limited priority level's
// `nominalConcurrencyShares` is called `assuredConcurrencyShares`.
import type { KubeObject } from '../../apimachinery/types.js';
import { group } from '../../naming/index.js';
import type { VersionConversion } from '../../rest/index.js';
import type { KindSpec } from '../strategy.js';
import { ageColumn, column, nameColumn, since } from '../table.js';
import { at, child, clone, meta, num, obj, objs, str } from '../util.js';
import { defaultPriorityLevel, validatePriorityLevel } from './validation.js';

const apiVersion = (version: string): string => `${group('flowcontrol.apiserver')}/${version}`;

function renameShares(o: KubeObject, from: string, to: string, version: string): KubeObject {
  const out = clone(o);
  out.apiVersion = apiVersion(version);
  const limited = obj(at(out, 'spec.limited'));
  if (limited && limited[from] !== undefined) {
    limited[to] = limited[from];
    delete limited[from];
  }
  return out;
}

const identity = (version: string) => (o: KubeObject): KubeObject => ({ ...clone(o), apiVersion: apiVersion(version) });

export const flowcontrolConversions: Record<string, VersionConversion> = {
  'flowcontrol.apiserver/v1beta2/FlowSchema': { toStorage: identity('v1beta3'), fromStorage: identity('v1beta2') },
  'flowcontrol.apiserver/v1beta2/PriorityLevelConfiguration': {
    toStorage: (o) => renameShares(o, 'assuredConcurrencyShares', 'nominalConcurrencyShares', 'v1beta3'),
    fromStorage: (o) => renameShares(o, 'nominalConcurrencyShares', 'assuredConcurrencyShares', 'v1beta2'),
  },
};

const flowSchemas: KindSpec = {
  tracksGeneration: true,
  defaults(o) {
    const spec = child(o, 'spec');
    // Zero is Go's unset.
    if (!spec.matchingPrecedence) spec.matchingPrecedence = 1000;
  },
  table: {
    columns: [
      nameColumn,
      column('PriorityLevel', 'string', 'priorityLevelConfiguration is the reference to the PriorityLevelConfiguration object which the flow schema points to.'),
      column('MatchingPrecedence', 'string', 'matchingPrecedence is used to choose among the FlowSchemas that match a given request.'),
      column('DistinguisherMethod', 'string', 'distinguisherMethod defines how to compute the flow distinguisher for requests that match this schema.'),
      ageColumn,
      column('MissingPL', 'string', 'indicates whether the priority level referenced in the spec is missing'),
    ],
    cells(o, now) {
      const method = str(at(o, 'spec.distinguisherMethod.type'));
      const missing = objs(at(o, 'status.conditions')).find((c) => c.type === 'Dangling');
      return [
        meta(o).name ?? '',
        str(at(o, 'spec.priorityLevelConfiguration.name')) ?? '',
        num(at(o, 'spec.matchingPrecedence')) ?? 0,
        method ?? '<none>',
        since(meta(o).creationTimestamp, now),
        missing ? (str(missing.status) ?? '?') : '?',
      ];
    },
  },
};

const priorityLevels: KindSpec = {
  tracksGeneration: true,
  // Objects arrive in the storage version (v1beta3), so one name covers both versions.
  defaults: defaultPriorityLevel,
  validate: (o) => validatePriorityLevel(o),
  table: {
    columns: [
      nameColumn,
      column('Type', 'string', "type indicates whether this priority level is subject to limitation on request execution.  A value of `\"Exempt\"` means that requests of this priority level are not subject to a limit (and thus are never queued) and do not detract from the capacity made available to other priority levels.  A value of `\"Limited\"` means that (a) requests of this priority level _are_ subject to limits and (b) some of the server's limited capacity is made available exclusively to this priority level. Required."),
      column('NominalConcurrencyShares', 'string', 'nominalConcurrencyShares (NCS) contributes to the computation of the NominalConcurrencyLimit (NominalCL) of this level.'),
      column('Queues', 'string', 'queues is the number of queues for this priority level.'),
      column('HandSize', 'string', 'handSize is a small positive number that configures the shuffle sharding of requests into queues.'),
      column('QueueLengthLimit', 'string', 'queueLengthLimit is the maximum number of requests allowed to be waiting in a given queue of this priority level at a time.'),
      ageColumn,
    ],
    cells(o, now) {
      const limited = obj(at(o, 'spec.limited'));
      const shares = limited ? (num(limited.nominalConcurrencyShares) ?? num(limited.assuredConcurrencyShares)) : undefined;
      const queuing = obj(at(limited, 'limitResponse.queuing'));
      const text = (v: unknown): unknown => (v === undefined ? '<none>' : v);
      return [
        meta(o).name ?? '',
        str(at(o, 'spec.type')) ?? '',
        limited ? (shares ?? 0) : '<none>',
        text(queuing?.queues),
        text(queuing?.handSize),
        text(queuing?.queueLengthLimit),
        since(meta(o).creationTimestamp, now),
      ];
    },
  },
};

export const flowcontrolKinds: Record<string, KindSpec> = {
  FlowSchema: flowSchemas,
  PriorityLevelConfiguration: priorityLevels,
};

/** v1beta2 names the shares `assuredConcurrencyShares`, and so do its field errors. */
export const flowcontrolServedVariants: Record<string, KindSpec> = {
  'flowcontrol.apiserver/v1beta2/PriorityLevelConfiguration': { ...priorityLevels, validate: (o) => validatePriorityLevel(o, 'assuredConcurrencyShares') },
};
