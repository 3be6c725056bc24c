// The bootstrap signer: keeps one detached JWS of cluster-info's kubeconfig per bootstrap token
// that may sign (`jws-kubeconfig-<token-id>`), adding, replacing and removing them as tokens
// and cluster-info change. All changes collapse into one queue key, cluster-info itself.
import { isApiError } from '../../apimachinery/errors.js';
import { getOwn, setOwn } from '../../apimachinery/own.js';
import { isPlainObject, type KubeObject } from '../../apimachinery/types.js';
import type { Informer } from '../../client/informer.js';
import type { ControllerContext, RunningController } from '../types.js';
import { bootstrapTokenNamespace, bootstrapTokenSecretType, signingToken, tokenExpiration } from './bootstrap-token.js';
import { CLUSTER_INFO, clusterInfoNamespace, CONFIG_MAPS, JWS_KEY_PREFIX, KUBECONFIG_KEY } from './cluster-info.js';
import { detachedSignature } from './jws.js';
import { KeyedLoop } from '../keyed-loop.js';

export const SECRETS = { group: '', version: 'v1', resource: 'secrets' };

/**
 * cluster-info's data with one signature per token (id to secret) and no other
 * `jws-kubeconfig-` key, or undefined when it already is so (or has no kubeconfig to sign).
 */
export async function signedClusterInfoData(data: Readonly<Record<string, unknown>>, tokens: ReadonlyMap<string, string>): Promise<Record<string, unknown> | undefined> {
  const content = getOwn(data, KUBECONFIG_KEY);
  if (typeof content !== 'string') return undefined;
  const next: Record<string, unknown> = {};
  const old = new Map<string, unknown>();
  for (const [key, value] of Object.entries(data)) {
    if (key.startsWith(JWS_KEY_PREFIX)) old.set(key.slice(JWS_KEY_PREFIX.length), value);
    else setOwn(next, key, value);
  }
  let changed = false;
  for (const [id, secret] of [...tokens].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const signature = await detachedSignature(content, id, secret);
    if (old.get(id) !== signature) changed = true;
    old.delete(id);
    setOwn(next, JWS_KEY_PREFIX + id, signature);
  }
  // Signatures of tokens that are gone, expired or no longer for signing.
  if (old.size > 0) changed = true;
  return changed ? next : undefined;
}

class BootstrapSigner extends KeyedLoop {
  private readonly secrets: Informer;
  private readonly configMaps: Informer;
  private readonly key = `${clusterInfoNamespace()}/${CLUSTER_INFO}`;

  constructor(private readonly ctx: ControllerContext) {
    super(ctx.clock, 'bootstrap_signer_queue');
    this.secrets = ctx.informers.informerFor(SECRETS, { namespace: bootstrapTokenNamespace() });
    this.configMaps = ctx.informers.informerFor(CONFIG_MAPS, { namespace: clusterInfoNamespace(), fieldSelector: `metadata.name=${CLUSTER_INFO}` });
    const poke = (): void => this.queue.add(this.key);
    const pokeForToken = (secret: KubeObject): void => {
      if (secret['type'] === bootstrapTokenSecretType()) poke();
    };
    this.onStop(this.configMaps.addEventHandler({ onAdd: poke, onUpdate: poke }));
    this.onStop(this.secrets.addEventHandler({ onAdd: pokeForToken, onUpdate: (_old, s) => pokeForToken(s), onDelete: pokeForToken }));
    this.run(() => this.sync(), 1, (err) => ctx.onError(err));
  }

  private async sync(): Promise<void> {
    // Both caches must be complete: a partial list of tokens would drop good signatures.
    if (!(await this.synced(this.secrets, this.configMaps))) return;
    const now = this.ctx.clock.now();
    const tokens = new Map<string, string>();
    let nextExpiry = Infinity;
    for (const secret of this.secrets.list()) {
      const token = signingToken(secret, now);
      if (!token || tokens.has(token.id)) continue;
      tokens.set(token.id, token.secret);
      const { remainingMs } = tokenExpiration(secret, now);
      if (remainingMs > 0) nextExpiry = Math.min(nextExpiry, remainingMs);
    }
    // An expired token signs no more: look again when the first one expires.
    if (Number.isFinite(nextExpiry)) this.wakeAfter(this.key, nextExpiry);
    else this.cancelWake(this.key);

    const cm = this.configMaps.get(clusterInfoNamespace(), CLUSTER_INFO);
    if (!cm || !isPlainObject(cm['data'])) return;
    const data = await signedClusterInfoData(cm['data'], tokens);
    if (!data) return;
    try {
      await this.ctx.client.update(CONFIG_MAPS, clusterInfoNamespace(), { ...cm, data });
    } catch (err) {
      // A newer cluster-info (its event queues another pass) or none at all.
      if (isApiError(err) && (err.code === 409 || err.code === 404)) return;
      throw err;
    }
  }
}

/** Starts the signer over the context's informers. */
export function startBootstrapSigner(ctx: ControllerContext): RunningController {
  return new BootstrapSigner(ctx);
}
