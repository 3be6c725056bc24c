// Kubernetes' version priority (CompareKubeAwareVersionStrings): GA before beta before alpha,
// higher major then higher minor first; names that are not `v<N>[alpha|beta<M>]` come after
// all of them, in ascending string order. Discovery's preferred version is the first.

interface KubeVersion {
  major: number;
  /** 2 GA, 1 beta, 0 alpha: a larger number is preferred. */
  stability: number;
  minor: number;
}

const KUBE_VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

function parseKubeVersion(v: string): KubeVersion | undefined {
  const m = KUBE_VERSION.exec(v);
  if (!m) return undefined;
  const stability = m[2] === 'alpha' ? 0 : m[2] === 'beta' ? 1 : 2;
  return { major: Number(m[1]), stability, minor: m[3] === undefined ? 0 : Number(m[3]) };
}

/** Positive when `a` has the higher priority, negative when `b` has, 0 when equal. */
export function compareKubeAwareVersions(a: string, b: string): number {
  if (a === b) return 0;
  const va = parseKubeVersion(a);
  const vb = parseKubeVersion(b);
  if (!va && !vb) return a < b ? 1 : -1;
  if (!va) return -1;
  if (!vb) return 1;
  if (va.stability !== vb.stability) return va.stability - vb.stability;
  if (va.major !== vb.major) return va.major - vb.major;
  return va.minor - vb.minor;
}

/** The names, highest priority first. */
export function sortByVersionPriority(names: readonly string[]): string[] {
  return [...names].sort((a, b) => compareKubeAwareVersions(b, a));
}
