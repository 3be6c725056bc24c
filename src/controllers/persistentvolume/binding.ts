// What static binding decides, as pure functions: which Available volume satisfies a claim
// (class, access modes, capacity, volume mode, selector, node affinity, pre-binding on
// either side), and, of those, the one Kubernetes would pick: the fewest access modes, then
// the smallest capacity. No I/O here; the controller reads and writes.
import { labelSelectorAsSelector, type LabelSelectorObject } from '../../apimachinery/labels.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { amountOf } from '../../apis/core/helpers/resources.js';
import { nodeSelectorTermsMatch, type NodeSelectorTerm } from '../../apis/core/helpers/node-affinity.js';
import { longDomainKey } from '../../naming/index.js';

/** `pv.kubernetes.io/bind-completed`: the claim's side of the binding is done. */
export function bindCompletedAnnotation(): string {
  return longDomainKey('bind-completed', 'pv');
}

/** `pv.kubernetes.io/bound-by-controller`: the controller, not the user, chose this binding. */
export function boundByControllerAnnotation(): string {
  return longDomainKey('bound-by-controller', 'pv');
}

/** `pv.kubernetes.io/provisioned-by`: the provisioner that made the volume. */
export function provisionedByAnnotation(): string {
  return longDomainKey('provisioned-by', 'pv');
}

/** `volume.kubernetes.io/selected-node`: the node the scheduler chose for a delayed claim. */
export function selectedNodeAnnotation(): string {
  return longDomainKey('selected-node', 'volume');
}

/** `volume.beta.kubernetes.io/storage-class`: the class before `storageClassName` existed. */
export function betaStorageClassAnnotation(): string {
  return longDomainKey('storage-class', 'volume.beta');
}

/**
 * `volume.kubernetes.io/storage-provisioner` and its beta spelling: the provisioner a claim
 * waits for, which external provisioners read to pick up their claims.
 */
export function storageProvisionerAnnotations(): [string, string] {
  return [longDomainKey('storage-provisioner', 'volume'), longDomainKey('storage-provisioner', 'volume.beta')];
}

/** `kubernetes.io/no-provisioner`: a class of volumes made only by hand. */
export function noProvisioner(): string {
  return longDomainKey('no-provisioner');
}

export interface ClaimRef {
  kind?: string;
  apiVersion?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  resourceVersion?: string;
}

interface VolumeSpec {
  capacity?: { storage?: unknown };
  accessModes?: string[];
  volumeMode?: string;
  storageClassName?: string;
  claimRef?: ClaimRef | null;
  persistentVolumeReclaimPolicy?: string;
  nodeAffinity?: { required?: { nodeSelectorTerms?: NodeSelectorTerm[] } };
}

interface ClaimSpec {
  accessModes?: string[];
  resources?: { requests?: { storage?: unknown } };
  volumeMode?: string;
  storageClassName?: string | null;
  selector?: LabelSelectorObject | null;
  volumeName?: string;
}

export function volumeSpec(pv: KubeObject): VolumeSpec {
  return (pv.spec ?? {}) as VolumeSpec;
}

export function claimSpec(pvc: KubeObject): ClaimSpec {
  return (pvc.spec ?? {}) as ClaimSpec;
}

export function phaseOf(o: KubeObject): string {
  return String((o.status as { phase?: unknown } | undefined)?.phase ?? '');
}

export function claimKey(pvc: KubeObject): string {
  return `${pvc.metadata?.namespace ?? ''}/${pvc.metadata?.name ?? ''}`;
}

/** The class a claim asks for or a volume belongs to: the field, else the beta annotation, else none. */
export function storageClassOf(o: KubeObject): string {
  const beta = o.metadata?.annotations?.[betaStorageClassAnnotation()];
  if (beta !== undefined) return beta;
  const field = (o.spec as { storageClassName?: unknown } | undefined)?.storageClassName;
  return typeof field === 'string' ? field : '';
}

function volumeMode(spec: { volumeMode?: string }): string {
  return spec.volumeMode ?? 'Filesystem';
}

function storage(value: unknown): bigint | undefined {
  return amountOf(value)?.nano;
}

/** The volume's claimRef names this claim (by namespace and name, and uid when it has one). */
export function isVolumeBoundToClaim(pv: KubeObject, pvc: KubeObject): boolean {
  const ref = volumeSpec(pv).claimRef;
  if (!ref) return false;
  if (ref.name !== pvc.metadata?.name || ref.namespace !== pvc.metadata?.namespace) return false;
  return !ref.uid || ref.uid === pvc.metadata?.uid;
}

/** Every mode the claim asks for is a mode of the volume. */
export function accessModesSatisfied(pvc: KubeObject, pv: KubeObject): boolean {
  const offered = new Set(modesOf(volumeSpec(pv).accessModes));
  return modesOf(claimSpec(pvc).accessModes).every((m) => offered.has(m));
}

function modesOf(list: unknown): string[] {
  return Array.isArray(list) ? list.filter((m): m is string => typeof m === 'string') : [];
}

function volumeAdmitsNode(pv: KubeObject, node: KubeObject | undefined): boolean {
  const terms = volumeSpec(pv).nodeAffinity?.required?.nodeSelectorTerms;
  if (!node || !Array.isArray(terms)) return true;
  return nodeSelectorTermsMatch(terms, node);
}

/**
 * Why a volume named by the claim's `spec.volumeName` cannot serve it (Kubernetes' wording),
 * or undefined when it can.
 */
export function volumeMismatch(pvc: KubeObject, pv: KubeObject): string | undefined {
  const requested = storage(claimSpec(pvc).resources?.requests?.storage);
  const offered = storage(volumeSpec(pv).capacity?.storage);
  if (requested === undefined || offered === undefined || offered < requested) return 'requested PV is too small';
  if (storageClassOf(pv) !== storageClassOf(pvc)) return 'storageClassName does not match';
  if (volumeMode(volumeSpec(pv)) !== volumeMode(claimSpec(pvc))) return 'incompatible volumeMode';
  if (!accessModesSatisfied(pvc, pv)) return 'incompatible accessMode';
  return undefined;
}

export interface MatchOptions {
  /** The claim's class binds only once a consumer's node is chosen (`WaitForFirstConsumer`). */
  delayBinding: boolean;
  /** The node chosen for the claim's consumer, when there is one. */
  node?: KubeObject;
  /** Volumes this controller already gave to another claim (the cache may not show it yet). */
  taken?: ReadonlySet<string>;
}

/**
 * The volume a Pending claim without `spec.volumeName` should bind to: a volume pre-bound to
 * it (`claimRef`) first; otherwise, among Available volumes of its class whose capacity,
 * volume mode, labels (the claim's selector) and node affinity fit, those with the fewest
 * access modes that include the claim's, and of those the smallest.
 */
export function findBestMatch(pvc: KubeObject, volumes: readonly KubeObject[], opts: MatchOptions): KubeObject | undefined {
  const spec = claimSpec(pvc);
  const requested = storage(spec.resources?.requests?.storage);
  if (requested === undefined) return undefined;
  let selects: (pv: KubeObject) => boolean = () => true;
  if (spec.selector) {
    try {
      const selector = labelSelectorAsSelector(spec.selector);
      selects = (pv) => selector.matches(pv.metadata?.labels ?? {});
    } catch {
      // A selector that does not parse selects nothing.
      return undefined;
    }
  }
  const klass = storageClassOf(pvc);
  let best: { pv: KubeObject; modes: number; size: bigint } | undefined;
  for (const pv of volumes) {
    if (opts.taken?.has(pv.metadata?.name ?? '')) continue;
    const vs = volumeSpec(pv);
    if (vs.claimRef && !isVolumeBoundToClaim(pv, pvc)) continue;
    const size = storage(vs.capacity?.storage);
    if (size === undefined || size < requested) continue;
    if (volumeMode(vs) !== volumeMode(spec)) continue;
    if (pv.metadata?.deletionTimestamp) continue;
    const nodeFits = volumeAdmitsNode(pv, opts.node);
    if (isVolumeBoundToClaim(pv, pvc)) return nodeFits ? pv : undefined;
    if (opts.delayBinding && !opts.node) continue;
    if (phaseOf(pv) !== 'Available') continue;
    if (!selects(pv)) continue;
    if (storageClassOf(pv) !== klass) continue;
    if (!nodeFits) continue;
    if (!accessModesSatisfied(pvc, pv)) continue;
    const modes = new Set(modesOf(vs.accessModes)).size;
    if (!best || modes < best.modes || (modes === best.modes && size < best.size)) best = { pv, modes, size };
  }
  return best?.pv;
}

/** What becomes of a volume whose claim is gone, by its reclaim policy. */
export type ReclaimAction = 'retain' | 'delete' | 'external-delete' | 'recycle' | 'unknown';

export function reclaimAction(pv: KubeObject): ReclaimAction {
  switch (volumeSpec(pv).persistentVolumeReclaimPolicy ?? 'Retain') {
    case 'Retain':
      return 'retain';
    case 'Recycle':
      return 'recycle';
    case 'Delete': {
      // A volume an external provisioner made is deleted by that provisioner; one made by
      // hand has nothing behind it here, so the object goes.
      const by = pv.metadata?.annotations?.[provisionedByAnnotation()];
      return by && !by.startsWith(`${longDomainKey('')}`) ? 'external-delete' : 'delete';
    }
    default:
      return 'unknown';
  }
}
