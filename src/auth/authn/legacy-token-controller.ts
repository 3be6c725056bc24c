// Fills legacy service account token Secrets: a Secret of the service-account-token type
// naming its account by annotation gets `token`, `ca.crt` and `namespace` data.
import { readFile } from 'node:fs/promises';
import { isApiError } from '../../apimachinery/errors.js';
import { isPlainObject, type KubeObject } from '../../apimachinery/types.js';
import type { ApiClient } from '../../client/types.js';
import { longDomainKey } from '../../naming/index.js';
import { Reflector } from '../reflector.js';
import { serviceAccountTokenSecretType, type ServiceAccountTokens } from './serviceaccount.js';

const SECRETS = { group: '', version: 'v1', resource: 'secrets' };

export class LegacyTokenController {
  private readonly secrets: Reflector;
  private unsubscribe: (() => void) | undefined;
  private readonly queue = new Set<string>();
  private working = false;

  constructor(
    private readonly client: ApiClient,
    private readonly tokens: ServiceAccountTokens,
    private readonly caFile: string,
  ) {
    this.secrets = new Reflector(client, SECRETS);
  }

  start(): void {
    this.unsubscribe = this.secrets.onChange((obj, type) => {
      if (type === 'upsert' && needsToken(obj)) {
        this.queue.add(`${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`);
        void this.drain();
      }
    });
    this.secrets.start();
  }

  stop(): void {
    this.unsubscribe?.();
    this.secrets.stop();
  }

  private async drain(): Promise<void> {
    if (this.working) return;
    this.working = true;
    try {
      while (this.queue.size > 0) {
        const key = this.queue.values().next().value as string;
        this.queue.delete(key);
        const secret = this.secrets.get(key);
        if (secret && needsToken(secret)) await this.fill(secret).catch(() => undefined);
      }
    } finally {
      this.working = false;
    }
  }

  private async fill(secret: KubeObject): Promise<void> {
    const ns = secret.metadata?.namespace ?? '';
    const accountName = secret.metadata?.annotations?.[longDomainKey('service-account.name')] ?? '';
    let account: KubeObject;
    try {
      account = await this.client.get({ group: '', version: 'v1', resource: 'serviceaccounts' }, ns, accountName);
    } catch (e) {
      if (isApiError(e) && e.code === 404) return;
      throw e;
    }
    const uid = account.metadata?.uid ?? '';
    const wantedUid = secret.metadata?.annotations?.[longDomainKey('service-account.uid')];
    if (wantedUid && wantedUid !== uid) return;
    const token = await this.tokens.issueLegacyToken(ns, { name: accountName, uid }, secret.metadata?.name ?? '');
    const ca = await readFile(this.caFile, 'utf8').catch(() => '');
    const data = { ...(isPlainObject(secret['data']) ? secret['data'] : {}) };
    data['token'] = Buffer.from(token).toString('base64');
    data['namespace'] = Buffer.from(ns).toString('base64');
    if (ca) data['ca.crt'] = Buffer.from(ca).toString('base64');
    const annotations = { ...(secret.metadata?.annotations ?? {}), [longDomainKey('service-account.uid')]: uid };
    await this.client.update(SECRETS, ns, { ...secret, metadata: { ...secret.metadata, annotations }, data });
  }
}

function needsToken(secret: KubeObject): boolean {
  if (secret['type'] !== serviceAccountTokenSecretType()) return false;
  if (!secret.metadata?.annotations?.[longDomainKey('service-account.name')]) return false;
  const data = secret['data'];
  return !(isPlainObject(data) && typeof data['token'] === 'string' && data['token'] !== '');
}
