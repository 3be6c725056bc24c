// Audit annotations the webhook plugins record for a request, on the request's audit event
// (`attrs.audit`, absent when the request is not audited). `addAuditAnnotation` is an older
// hook some callers still pass; it is called too.
import { domainKey } from '../../naming/index.js';
import type { AdmissionAttributes } from '../types.js';

/** `Metadata` annotations are kept at every audit level; `Request` ones from the Request level up. */
export type AuditAnnotationLevel = 'Metadata' | 'Request';

export interface AuditedAdmissionAttributes extends AdmissionAttributes {
  addAuditAnnotation?(key: string, value: string, level: AuditAnnotationLevel): void;
}

export function annotate(attrs: AdmissionAttributes, key: string, value: string, level: AuditAnnotationLevel = 'Metadata'): void {
  attrs.audit?.add(key, value, level);
  (attrs as AuditedAdmissionAttributes).addAuditAnnotation?.(key, value, level);
}

const roundIndex = (round: number, index: number): string => `round_${round}_index_${index}`;

/** `mutation.webhook.admission.<domain>/round_<r>_index_<i>`: whether a mutating webhook changed the object. */
export function mutationAnnotation(round: number, index: number, configuration: string, webhook: string, mutated: boolean): [string, string] {
  return [domainKey(roundIndex(round, index), 'mutation.webhook.admission'), JSON.stringify({ configuration, webhook, mutated })];
}

/** `patch.webhook.admission.<domain>/round_<r>_index_<i>`: the patch a mutating webhook applied. */
export function patchAnnotation(round: number, index: number, configuration: string, webhook: string, patch: unknown, patchType: string): [string, string] {
  return [domainKey(roundIndex(round, index), 'patch.webhook.admission'), JSON.stringify({ configuration, webhook, patch, patchType })];
}

/** `failed-open.<type>.webhook.admission.<domain>/round_<r>_index_<i>`: a failing webhook that was ignored. */
export function failedOpenAnnotation(type: 'mutating' | 'validating', round: number, index: number, webhook: string): [string, string] {
  return [domainKey(roundIndex(round, index), `failed-open.${type}.webhook.admission`), webhook];
}
