// The `scale` subresource: the autoscaling/v1 Scale view of an object whose kind says
// where its replicas and selector live (Strategy.scale), and the checks of a written Scale.
import type { FieldError } from '../apimachinery/errors.js';
import { invalid, invalidField } from '../apimachinery/errors.js';
import type { KubeObject, ObjectMeta } from '../apimachinery/types.js';
import type { ScaleAccess } from '../rest/index.js';

/** The Scale of `external` (as answered), read through the kind's access on its storage form. */
export function scaleView(scale: ScaleAccess, external: KubeObject, internal: KubeObject): KubeObject {
  const m = external.metadata ?? {};
  const metadata: ObjectMeta = { name: m.name, uid: m.uid, resourceVersion: m.resourceVersion, creationTimestamp: m.creationTimestamp };
  if (m.namespace) metadata.namespace = m.namespace;
  const status: Record<string, unknown> = { replicas: scale.statusReplicas(internal) };
  const selector = scale.selector(internal);
  if (selector) status.selector = selector;
  return { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata, spec: { replicas: scale.specReplicas(internal) }, status };
}

/** The replica count a written Scale asks for; 422 Invalid when it is not a count. */
export function wantedReplicas(wanted: KubeObject, name: string): number {
  const spec = (wanted.spec ?? {}) as Record<string, unknown>;
  const replicas = spec.replicas ?? 0;
  const errs: FieldError[] = [];
  if (typeof replicas !== 'number' || !Number.isInteger(replicas)) errs.push(invalidField('spec.replicas', replicas, 'must be an integer'));
  else if (replicas < 0) errs.push(invalidField('spec.replicas', replicas, 'must be greater than or equal to 0'));
  if (errs.length > 0) throw invalid({ group: 'autoscaling', kind: 'Scale' }, name, errs);
  return replicas as number;
}
