// ServiceAccount: every new pod runs as a service account (`default` when it names none)
// that must exist; unless automounting is turned off (the pod's choice wins over the
// account's), the pod gets a projected volume with a bound token, the cluster CA and its
// namespace, mounted read-only in every container and init container; and it inherits the
// account's image pull secrets when it has none of its own.
import { randomInt } from 'node:crypto';
import type { KubeObject } from '../apimachinery/types.js';
import type { ApiClient } from '../client/types.js';
import { rootCAConfigMapName, ROOT_CA_KEY } from '../naming/root-ca.js';
import { longDomain, longDomainKey, shortWord } from '../naming/index.js';
import type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from './types.js';
import { admissionForbidden, getOrUndefined, isResource, mapsAt, specOf, stringAt, stringMapAt, type JsonMap } from './util.js';
import { isPlainObject } from '../apimachinery/types.js';

const SERVICE_ACCOUNT = 'ServiceAccount';
const DEFAULT_SERVICE_ACCOUNT = 'default';
const SERVICE_ACCOUNTS = { group: '', version: 'v1', resource: 'serviceaccounts' };
/** Lifetime of the projected token: an hour and seven seconds, the legacy-tolerant bound tokens' value. */
const TOKEN_EXPIRATION_SECONDS = 3607;
/** The characters of generated name suffixes (no vowels, no look-alikes). */
const SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** `/var/run/secrets/orch.io/serviceaccount` / `/var/run/secrets/kubernetes.io/serviceaccount`. */
export function tokenMountPath(): string {
  return `/var/run/secrets/${longDomain()}/serviceaccount`;
}

/** `orch-api-access` / `kube-api-access`: the prefix of the token volume's name. */
export function tokenVolumePrefix(): string {
  return `${shortWord()}-api-access`;
}

function randomSuffix(length = 5): string {
  let s = '';
  for (let i = 0; i < length; i++) s += SUFFIX_ALPHABET[randomInt(SUFFIX_ALPHABET.length)];
  return s;
}

/** The projected volume of a service account token, the cluster CA and the namespace. */
function tokenVolume(name: string): JsonMap {
  return {
    name,
    projected: {
      defaultMode: 0o644,
      sources: [
        { serviceAccountToken: { expirationSeconds: TOKEN_EXPIRATION_SECONDS, path: 'token' } },
        { configMap: { name: rootCAConfigMapName(), items: [{ key: ROOT_CA_KEY, path: ROOT_CA_KEY }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
    },
  };
}

/** The pod's own setting wins, then the account's; mounting is the default. */
function shouldAutomount(account: KubeObject, podSpec: JsonMap): boolean {
  if (typeof podSpec.automountServiceAccountToken === 'boolean') return podSpec.automountServiceAccountToken;
  if (typeof account.automountServiceAccountToken === 'boolean') return account.automountServiceAccountToken;
  return true;
}

/** Adds the token volume and its mounts (pure over the spec; `suffix` makes the volume name). */
export function mountServiceAccountToken(podSpec: JsonMap, suffix: () => string = randomSuffix): void {
  const volumes = mapsAt(podSpec, 'volumes');
  const prefix = `${tokenVolumePrefix()}-`;
  const existing = volumes.find((v) => stringAt(v, 'name')?.startsWith(prefix));
  let volumeName = stringAt(existing, 'name');
  if (!volumeName) {
    const taken = new Set(volumes.map((v) => stringAt(v, 'name')));
    do volumeName = prefix + suffix();
    while (taken.has(volumeName));
  }
  const mountPath = tokenMountPath();
  let needsVolume = false;
  for (const list of ['initContainers', 'containers']) {
    for (const container of mapsAt(podSpec, list)) {
      const mounts = mapsAt(container, 'volumeMounts');
      // A mount of the user's own at the token path keeps the token out.
      if (mounts.some((m) => m.mountPath === mountPath)) continue;
      container.volumeMounts = [...mounts, { name: volumeName, readOnly: true, mountPath }];
      needsVolume = true;
    }
  }
  if (needsVolume && !existing) podSpec.volumes = [...volumes, tokenVolume(volumeName)];
}

interface ServiceAccountOptions {
  /** Live reads of the `default` account before giving up (its controller creates it shortly after the namespace). */
  defaultAttempts?: number;
  retryDelayMs?: number;
}

export class ServiceAccountAdmission implements AdmissionPlugin {
  readonly name = SERVICE_ACCOUNT;
  constructor(
    private readonly client: ApiClient,
    private readonly opts: ServiceAccountOptions = {},
  ) {}

  handles(operation: AdmissionOperation): boolean {
    return operation === 'CREATE';
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    if (!isResource(attrs, '', 'pods')) return;
    const pod = attrs.object;
    if (!pod) return;
    if (!isPlainObject(pod.spec)) pod.spec = {};
    const spec = specOf(pod) as JsonMap;
    if (stringMapAt(pod.metadata as JsonMap | undefined, 'annotations')[longDomainKey('config.mirror')] !== undefined) {
      this.validateMirrorPod(attrs, spec);
      return;
    }
    if (!stringAt(spec, 'serviceAccountName')) spec.serviceAccountName = DEFAULT_SERVICE_ACCOUNT;
    const accountName = spec.serviceAccountName as string;
    const account = await this.lookup(attrs.namespace, accountName);
    if (!account) {
      throw admissionForbidden(attrs, `error looking up service account ${attrs.namespace}/${accountName}: serviceaccount "${accountName}" not found`);
    }
    if (shouldAutomount(account, spec)) mountServiceAccountToken(spec);
    if (mapsAt(spec, 'imagePullSecrets').length === 0) {
      const secrets = mapsAt(account as JsonMap, 'imagePullSecrets').map((s) => ({ name: stringAt(s, 'name') ?? '' }));
      if (secrets.length > 0) spec.imagePullSecrets = secrets;
    }
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (!isResource(attrs, '', 'pods') || !attrs.object) return;
    const spec = specOf(attrs.object) ?? {};
    if (stringMapAt(attrs.object.metadata as JsonMap | undefined, 'annotations')[longDomainKey('config.mirror')] !== undefined) {
      this.validateMirrorPod(attrs, spec);
      return;
    }
    const accountName = stringAt(spec, 'serviceAccountName');
    if (!accountName) throw admissionForbidden(attrs, `no service account specified for pod ${attrs.namespace}/${attrs.object.metadata?.name ?? ''}`);
  }

  private validateMirrorPod(attrs: AdmissionAttributes, spec: JsonMap): void {
    if (stringAt(spec, 'serviceAccountName')) throw admissionForbidden(attrs, 'a mirror pod may not reference service accounts');
    for (const volume of mapsAt(spec, 'volumes')) {
      if (isPlainObject(volume.secret)) throw admissionForbidden(attrs, 'a mirror pod may not reference secrets');
    }
  }

  private async lookup(namespace: string, name: string): Promise<KubeObject | undefined> {
    const attempts = name === DEFAULT_SERVICE_ACCOUNT ? (this.opts.defaultAttempts ?? 10) : 1;
    for (let i = 0; i < attempts; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, this.opts.retryDelayMs ?? 100 + randomInt(100)));
      const account = await getOrUndefined(this.client, SERVICE_ACCOUNTS, namespace, name);
      if (account) return account;
    }
    return undefined;
  }
}
