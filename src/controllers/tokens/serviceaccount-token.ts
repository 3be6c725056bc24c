// The tokens controller's cleanup (kube-controller-manager's `serviceaccount-token`): a legacy
// token Secret whose service account is gone, or was recreated with another uid, is deleted;
// so are the tokens of an account when it is deleted; and a deleted token leaves its account's
// `secrets` list. Filling new token Secrets is the authenticator's part (it holds the key).
import { isApiError } from '../../apimachinery/errors.js';
import { isPlainObject, type KubeObject } from '../../apimachinery/types.js';
import type { Informer } from '../../client/informer.js';
import { longDomainKey } from '../../naming/index.js';
import type { ControllerContext, RunningController } from '../types.js';
import { KeyedLoop } from '../keyed-loop.js';
import { SECRETS } from './bootstrapsigner.js';

export const SERVICE_ACCOUNTS = { group: '', version: 'v1', resource: 'serviceaccounts' };

/** `orch.io/service-account-token` / `kubernetes.io/service-account-token`. */
export function serviceAccountTokenType(): string {
  return longDomainKey('service-account-token');
}

function nameAnnotation(): string {
  return longDomainKey('service-account.name');
}

function uidAnnotation(): string {
  return longDomainKey('service-account.uid');
}

/** Whether `secret` is a token of the account `name` (with `uid`, when the Secret records one). */
export function isTokenOf(secret: KubeObject, account: { name: string; uid: string }): boolean {
  if (secret['type'] !== serviceAccountTokenType()) return false;
  const annotations = secret.metadata?.annotations ?? {};
  if ((annotations[nameAnnotation()] ?? '') !== account.name) return false;
  const uid = annotations[uidAnnotation()] ?? '';
  return uid === '' || uid === account.uid;
}

// Queue keys: `sa/<ns>/<name>/<uid>` for an account that was deleted, `secret/` and the JSON of
// what a Secret's sync needs, which must outlive the Secret itself.
interface SecretKey {
  namespace: string;
  name: string;
  uid: string;
  account: string;
  accountUid: string;
}

function secretKey(secret: KubeObject): string {
  const annotations = secret.metadata?.annotations ?? {};
  const key: SecretKey = {
    namespace: secret.metadata?.namespace ?? '',
    name: secret.metadata?.name ?? '',
    uid: secret.metadata?.uid ?? '',
    account: annotations[nameAnnotation()] ?? '',
    accountUid: annotations[uidAnnotation()] ?? '',
  };
  return `secret/${JSON.stringify(key)}`;
}

function accountKey(account: KubeObject): string {
  return `sa/${JSON.stringify([account.metadata?.namespace ?? '', account.metadata?.name ?? '', account.metadata?.uid ?? ''])}`;
}

class ServiceAccountTokensController extends KeyedLoop {
  private readonly accounts: Informer;
  private readonly secrets: Informer;

  constructor(
    private readonly ctx: ControllerContext,
    workers: number,
  ) {
    // One queue serves accounts and secrets; named for Kubernetes' secret queue, which does the deleting.
    super(ctx.clock, 'serviceaccount_tokens_secret');
    this.accounts = ctx.informers.informerFor(SERVICE_ACCOUNTS);
    this.secrets = ctx.informers.informerFor(SECRETS, { fieldSelector: `type=${serviceAccountTokenType()}` });
    // Only a deletion asks anything of an account's tokens (1.27 no longer makes tokens for accounts).
    this.onStop(this.accounts.addEventHandler({ onDelete: (sa) => this.queue.add(accountKey(sa)) }));
    const enqueue = (secret: KubeObject): void => {
      if (secret['type'] === serviceAccountTokenType()) this.queue.add(secretKey(secret));
    };
    this.onStop(this.secrets.addEventHandler({ onAdd: enqueue, onUpdate: (_old, s) => enqueue(s), onDelete: enqueue }));
    this.run((key) => this.sync(key), workers, (err) => ctx.onError(err));
  }

  private async sync(key: string): Promise<void> {
    // Judged on complete caches only: a partial list would call live accounts gone.
    if (!(await this.synced(this.accounts, this.secrets))) return;
    if (key.startsWith('sa/')) {
      const [namespace, name, uid] = JSON.parse(key.slice(3)) as [string, string, string];
      return this.syncAccount(namespace, name, uid);
    }
    return this.syncSecret(JSON.parse(key.slice('secret/'.length)) as SecretKey);
  }

  /** The account `name` with `uid` (any uid when ''), from the cache or, when `live`, the server. */
  private async account(namespace: string, name: string, uid: string, live: boolean): Promise<KubeObject | undefined> {
    const cached = this.accounts.get(namespace, name);
    if (cached && (uid === '' || cached.metadata?.uid === uid)) return cached;
    if (!live) return undefined;
    let fresh: KubeObject;
    try {
      fresh = await this.ctx.client.get(SERVICE_ACCOUNTS, namespace, name);
    } catch (err) {
      if (isApiError(err) && err.code === 404) return undefined;
      throw err;
    }
    return uid === '' || fresh.metadata?.uid === uid ? fresh : undefined;
  }

  private async syncAccount(namespace: string, name: string, uid: string): Promise<void> {
    if (await this.account(namespace, name, uid, false)) return;
    const errors: unknown[] = [];
    for (const secret of this.secrets.list()) {
      if (secret.metadata?.namespace !== namespace || !isTokenOf(secret, { name, uid })) continue;
      await this.deleteToken(namespace, secret.metadata.name ?? '', secret.metadata.uid ?? '').catch((err: unknown) => errors.push(err));
    }
    if (errors.length > 0) throw errors[0];
  }

  private async syncSecret(key: SecretKey): Promise<void> {
    // Validation requires the annotation; without it there is no account to judge by.
    if (key.account === '') return;
    const secret = this.secrets.get(key.namespace, key.name);
    const current = secret && (key.uid === '' || secret.metadata?.uid === key.uid) ? secret : undefined;
    if (!current) {
      if (await this.account(key.namespace, key.account, key.accountUid, false)) await this.removeReference(key);
      return;
    }
    if (!(await this.account(key.namespace, key.account, key.accountUid, true))) await this.deleteToken(key.namespace, key.name, key.uid);
  }

  private async deleteToken(namespace: string, name: string, uid: string): Promise<void> {
    try {
      await this.ctx.client.delete(SECRETS, namespace, name, uid ? { preconditions: { uid } } : {});
    } catch (err) {
      // Gone already, or another Secret of that name now (the uid precondition failed).
      if (isApiError(err) && (err.code === 404 || err.code === 409)) return;
      throw err;
    }
  }

  /** Drops a deleted token from its account's `secrets`; a conflict is retried through the queue. */
  private async removeReference(key: SecretKey): Promise<void> {
    let sa: KubeObject;
    try {
      sa = await this.ctx.client.get(SERVICE_ACCOUNTS, key.namespace, key.account);
    } catch (err) {
      if (isApiError(err) && err.code === 404) return;
      throw err;
    }
    if (key.accountUid !== '' && sa.metadata?.uid !== key.accountUid) return;
    const refs = Array.isArray(sa['secrets']) ? (sa['secrets'] as unknown[]) : [];
    const kept = refs.filter((ref) => !(isPlainObject(ref) && ref['name'] === key.name));
    if (kept.length === refs.length) return;
    await this.ctx.client.update(SERVICE_ACCOUNTS, key.namespace, { ...sa, secrets: kept });
  }
}

/** Starts the controller over the context's informers (`--concurrent-serviceaccount-token-syncs`, 5 by default). */
export function startServiceAccountTokens(ctx: ControllerContext, workers = 5): RunningController {
  return new ServiceAccountTokensController(ctx, workers);
}
