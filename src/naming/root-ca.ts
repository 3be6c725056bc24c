// The name of the ConfigMap the root CA publisher keeps in every namespace; pods' service
// account token volumes project its `ca.crt`.
import { shortWord } from './index.js';

export const ROOT_CA_KEY = 'ca.crt';

/** `orch-root-ca.crt` / `kube-root-ca.crt`. */
export function rootCAConfigMapName(): string {
  return `${shortWord()}-root-ca.crt`;
}
