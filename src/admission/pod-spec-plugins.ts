// The pod plugins that judge or complete a pod from its own spec, with no lookups:
// AlwaysPullImages (every container pulls its image, so a private image cannot be run by
// someone without its pull credentials), SecurityContextDeny (deprecated; no user, group or
// SELinux choices), LimitPodHardAntiAffinityTopology (hard anti-affinity only per host) and
// ExtendedResourceToleration (pods asking for an extended resource tolerate the taint of the
// nodes that offer it).
import { ApiError, forbidden } from '../apimachinery/errors.js';
import type { FeatureGate } from '../apimachinery/features.js';
import { isQualifiedName } from '../apimachinery/labels.js';
import { isPlainObject } from '../apimachinery/types.js';
import { longDomain, longDomainKey } from '../naming/index.js';
import type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from './types.js';
import { admissionForbidden, isResource, mapsAt, specOf, type JsonMap } from './util.js';

export const createOrUpdate = (op: AdmissionOperation): boolean => op === 'CREATE' || op === 'UPDATE';

/** The pod's containers with their field paths: init containers, containers, then ephemeral containers. */
export function podContainers(spec: JsonMap | undefined): { container: JsonMap; path: string }[] {
  const out: { container: JsonMap; path: string }[] = [];
  for (const field of ['initContainers', 'containers', 'ephemeralContainers']) {
    const list = spec?.[field];
    if (!Array.isArray(list)) continue;
    list.forEach((c, i) => {
      if (isPlainObject(c)) out.push({ container: c, path: `spec.${field}[${i}]` });
    });
  }
  return out;
}

/** Whether the request writes a pod itself (not a subresource) with an object to judge. */
function isPodWrite(attrs: AdmissionAttributes): attrs is AdmissionAttributes & { object: NonNullable<AdmissionAttributes['object']> } {
  return isResource(attrs, '', 'pods') && attrs.object !== undefined;
}

/**
 * `resource "name" is forbidden: reason` naming the pod by its metadata.name alone, as the
 * plugins that build the error from the pod do (an unnamed pod reads `pods "" is forbidden`).
 */
export function podForbidden(attrs: AdmissionAttributes, reason: string): ApiError {
  const name = typeof attrs.object?.metadata?.name === 'string' ? attrs.object.metadata.name : '';
  const err = forbidden({ group: attrs.resource.group, resource: attrs.resource.resource }, name, reason);
  if (name === '') {
    // Go quotes the empty name; the shared helper leaves it out for collections.
    return new ApiError(403, 'Forbidden', `${attrs.resource.resource} "" is forbidden: ${reason}`, err.status.details);
  }
  return err;
}

/** An error that is no Status: the server answers 500 with no reason and the error's text, as Go does. */
export function statuslessError(message: string): ApiError {
  return new ApiError(500, '', message);
}

function imagesOf(spec: JsonMap | undefined): Set<unknown> {
  return new Set(podContainers(spec).map(({ container }) => container.image));
}

/** An update that brings no image the pod did not already reference is left alone. */
function updateWithNoNewImages(attrs: AdmissionAttributes): boolean {
  if (attrs.operation !== 'UPDATE' || !attrs.oldObject) return false;
  const old = imagesOf(specOf(attrs.oldObject));
  return [...imagesOf(specOf(attrs.object))].every((image) => old.has(image));
}

export const alwaysPullImages: AdmissionPlugin = {
  name: 'AlwaysPullImages',
  handles: createOrUpdate,
  async admit(attrs) {
    if (!isPodWrite(attrs) || updateWithNoNewImages(attrs)) return;
    for (const { container } of podContainers(specOf(attrs.object))) container.imagePullPolicy = 'Always';
  },
  async validate(attrs) {
    if (!isPodWrite(attrs) || updateWithNoNewImages(attrs)) return;
    const errors: string[] = [];
    for (const { container, path } of podContainers(specOf(attrs.object))) {
      const policy = container.imagePullPolicy;
      if (policy !== 'Always') {
        const shown = typeof policy === 'string' ? JSON.stringify(policy) : '""';
        errors.push(admissionForbidden(attrs, `${path}.imagePullPolicy: Unsupported value: ${shown}: supported values: "Always"`).message);
      }
    }
    if (errors.length === 0) return;
    // Go aggregates the Forbidden errors, and an aggregate is no Status: 500 with the joined text.
    const unique = [...new Set(errors)];
    throw statuslessError(unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`);
  },
};

const SECURITY_CONTEXT_DENY_DOC = 'https://k8s.io/docs/reference/access-authn-authz/admission-controllers/#securitycontextdeny';

/** The pod-level fields refused, in kube's order: JSON name, Go name (as the message spells it). */
const POD_CONTEXT_FIELDS = [
  ['supplementalGroups', 'SupplementalGroups'],
  ['seLinuxOptions', 'SELinuxOptions'],
  ['runAsUser', 'RunAsUser'],
  ['fsGroup', 'FSGroup'],
] as const;

const present = (v: unknown): boolean => v !== undefined && v !== null;

/** SecurityContextDeny; refused at start unless its (alpha) feature gate is on, as in 1.27. */
export function securityContextDeny(features: FeatureGate): AdmissionPlugin {
  if (!features.enabled('SecurityContextDeny')) {
    throw new Error(
      `SecurityContextDeny admission controller is an alpha feature, planned to be removed, and requires the SecurityContextDeny feature gate to be enabled, see ${SECURITY_CONTEXT_DENY_DOC} for more information`,
    );
  }
  return {
    name: 'SecurityContextDeny',
    handles: createOrUpdate,
    async validate(attrs) {
      if (!isPodWrite(attrs)) return;
      const spec = specOf(attrs.object);
      const podContext = spec?.securityContext;
      if (isPlainObject(podContext)) {
        for (const [json, field] of POD_CONTEXT_FIELDS) {
          if (present(podContext[json])) throw podForbidden(attrs, `pod.Spec.SecurityContext.${field} is forbidden`);
        }
      }
      for (const list of ['initContainers', 'containers']) {
        for (const c of mapsAt(spec, list)) {
          const sc = c.securityContext;
          if (!isPlainObject(sc)) continue;
          if (present(sc.seLinuxOptions)) throw podForbidden(attrs, 'SecurityContext.SELinuxOptions is forbidden');
          if (present(sc.runAsUser)) throw podForbidden(attrs, 'SecurityContext.RunAsUser is forbidden');
        }
      }
    },
  };
}

export const limitPodHardAntiAffinityTopology: AdmissionPlugin = {
  name: 'LimitPodHardAntiAffinityTopology',
  handles: createOrUpdate,
  async validate(attrs) {
    if (!isPodWrite(attrs)) return;
    const affinity = specOf(attrs.object)?.affinity;
    const anti = isPlainObject(affinity) ? affinity.podAntiAffinity : undefined;
    if (!isPlainObject(anti)) return;
    const hostname = longDomainKey('hostname');
    for (const term of mapsAt(anti, 'requiredDuringSchedulingIgnoredDuringExecution')) {
      const key = typeof term.topologyKey === 'string' ? term.topologyKey : '';
      if (key !== hostname) {
        throw podForbidden(attrs, `affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey ${key} but only key ${hostname} is allowed`);
      }
    }
  },
};

/**
 * An extended resource: a domain-prefixed name outside the product's own domain, not a quota
 * name (`requests.`), that stays a qualified name as a quota key.
 */
export function isExtendedResourceName(name: string): boolean {
  if (!name.includes('/') || name.includes(`${longDomain()}/`) || name.startsWith('requests.')) return false;
  return isQualifiedName(`requests.${name}`).length === 0;
}

export const extendedResourceToleration: AdmissionPlugin = {
  name: 'ExtendedResourceToleration',
  handles: createOrUpdate,
  async admit(attrs) {
    if (!isPodWrite(attrs)) return;
    const spec = specOf(attrs.object);
    if (!spec) return;
    const names = new Set<string>();
    for (const list of ['containers', 'initContainers']) {
      for (const c of mapsAt(spec, list)) {
        const requests = isPlainObject(c.resources) ? c.resources.requests : undefined;
        if (isPlainObject(requests)) for (const name of Object.keys(requests)) if (isExtendedResourceName(name)) names.add(name);
      }
    }
    if (names.size === 0) return;
    const tolerations = mapsAt(spec, 'tolerations');
    for (const key of [...names].sort()) {
      const wanted: JsonMap = { key, operator: 'Exists', effect: 'NoSchedule' };
      // A toleration matching on key, operator, value and effect is replaced; otherwise added.
      const at = tolerations.findIndex((t) => t.key === key && t.operator === 'Exists' && (t.value ?? '') === '' && t.effect === 'NoSchedule');
      if (at >= 0) tolerations[at] = wanted;
      else tolerations.push(wanted);
    }
    spec.tolerations = tolerations;
  },
};
