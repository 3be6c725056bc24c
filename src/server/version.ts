// /version: the Kubernetes release the API implements (clients pick behaviour by it, and
// the kubectl dispatcher picks its build by the minor version) and the product's own version.
import { productName } from '../naming/index.js';

export const API_RELEASE = { major: '1', minor: '27', patch: '16' } as const;

export interface VersionInfo {
  major: string;
  minor: string;
  gitVersion: string;
  gitCommit: string;
  gitTreeState: string;
  buildDate: string;
  goVersion: string;
  compiler: string;
  platform: string;
  /** The product and its release, beyond the fields of Kubernetes' version.Info. */
  product: string;
  productVersion: string;
}

function arch(): string {
  const map: Record<string, string> = { x64: 'amd64', ia32: '386', arm64: 'arm64', arm: 'arm' };
  return map[process.arch] ?? process.arch;
}

/** The gitVersion stays parseable as semver 1.27.x: `v1.27.16-orch.0.1.0`. */
export function versionInfo(productVersion: string, buildDate = '1970-01-01T00:00:00Z'): VersionInfo {
  return {
    major: API_RELEASE.major,
    minor: API_RELEASE.minor,
    gitVersion: `v${API_RELEASE.major}.${API_RELEASE.minor}.${API_RELEASE.patch}-orch.${productVersion}`,
    gitCommit: '',
    gitTreeState: 'clean',
    buildDate,
    goVersion: `node${process.versions.node}`,
    compiler: 'tsc',
    platform: `${process.platform}/${arch()}`,
    product: productName(),
    productVersion,
  };
}
