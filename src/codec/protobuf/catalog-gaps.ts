// Kinds the server serves in a version the release 1.27 catalog has no type for. Each is
// read and written with the type of another version whose message is field-for-field the
// same (upstream added these versions by copying the message).
import { group, toKubernetesGroup } from '../../naming/index.js';

interface Gap {
  /** Group base as `group()` takes it, version and kind of the served kind. */
  base: string;
  version: string;
  kind: string;
  /** The catalog type with the same message. */
  sameMessageAs: string;
}

const GAPS: Gap[] = [
  // SelfSubjectReview became v1 in 1.28; v1beta1 carries the same message.
  { base: 'authentication', version: 'v1', kind: 'SelfSubjectReview', sameMessageAs: 'io.k8s.api.authentication.v1beta1.SelfSubjectReview' },
  // TokenReview v1beta1 is v1's message under the older version.
  { base: 'authentication', version: 'v1beta1', kind: 'TokenReview', sameMessageAs: 'io.k8s.api.authentication.v1.TokenReview' },
];

/** The catalog type standing in for a served kind the catalog lacks, if any. */
export function gapTypeId(gvk: { group: string; version: string; kind: string }): string | undefined {
  const upstream = toKubernetesGroup(gvk.group);
  for (const g of GAPS) {
    if (g.version === gvk.version && g.kind === gvk.kind && toKubernetesGroup(group(g.base)) === upstream) return g.sameMessageAs;
  }
  return undefined;
}
