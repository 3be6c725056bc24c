// The `extension-apiserver-authentication` ConfigMap (kube's
// start-cluster-authentication-info-controller hook): what extension API servers read to
// trust this server's client certificates and front-proxy headers.
import { isApiError } from '../apimachinery/errors.js';
import type { KubeObject } from '../apimachinery/types.js';
import type { ApiClient } from '../client/types.js';
import { systemNamespace } from '../naming/index.js';
import type { FrontProxyConfig } from './front-proxy.js';

/** The ConfigMap extension API servers read to authenticate this server's requests. */
export const AUTHENTICATION_CONFIGMAP = 'extension-apiserver-authentication';

const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps' };

/** Creates or updates the ConfigMap; writes nothing when it already says the same. */
export async function publishAuthenticationInfo(client: ApiClient, fp: FrontProxyConfig): Promise<void> {
  const data: Record<string, string> = {
    'client-ca-file': fp.clientCA,
    'requestheader-client-ca-file': fp.requestHeaderCA,
    'requestheader-allowed-names': JSON.stringify(fp.allowedNames),
    'requestheader-username-headers': JSON.stringify(fp.usernameHeaders),
    'requestheader-group-headers': JSON.stringify(fp.groupHeaders),
    'requestheader-extra-headers-prefix': JSON.stringify(fp.extraHeaderPrefixes),
  };
  const ns = systemNamespace('system');
  const cm: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: AUTHENTICATION_CONFIGMAP, namespace: ns }, data };
  // On a restart the ConfigMap is usually in place: read first, so that nothing is written.
  let have: KubeObject | undefined;
  try {
    have = await client.get(CONFIGMAPS, ns, AUTHENTICATION_CONFIGMAP);
  } catch (err) {
    if (!isApiError(err) || err.code !== 404) throw err;
  }
  if (have === undefined) {
    try {
      await client.create(CONFIGMAPS, ns, cm);
      return;
    } catch (err) {
      // Another server process on the same store created it first.
      if (!isApiError(err) || err.code !== 409) throw err;
      have = await client.get(CONFIGMAPS, ns, AUTHENTICATION_CONFIGMAP);
    }
  }
  if (JSON.stringify(have.data) !== JSON.stringify(data)) await client.update(CONFIGMAPS, ns, { ...have, data });
}
