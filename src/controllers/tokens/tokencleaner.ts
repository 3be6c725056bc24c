// The token cleaner: deletes a bootstrap token Secret once its `expiration` has passed (at
// once when it does not parse), waking up on the controller's clock at the time it expires.
import { isApiError } from '../../apimachinery/errors.js';
import type { Informer } from '../../client/informer.js';
import { splitKey, keyOf } from '../../client/informer.js';
import type { KubeObject } from '../../apimachinery/types.js';
import type { ControllerContext, RunningController } from '../types.js';
import { bootstrapTokenNamespace, bootstrapTokenSecretType, tokenExpiration } from './bootstrap-token.js';
import { KeyedLoop } from '../keyed-loop.js';
import { SECRETS } from './bootstrapsigner.js';

class TokenCleaner extends KeyedLoop {
  private readonly secrets: Informer;

  constructor(private readonly ctx: ControllerContext) {
    super(ctx.clock, 'token_cleaner');
    this.secrets = ctx.informers.informerFor(SECRETS, { namespace: bootstrapTokenNamespace() });
    const enqueue = (secret: KubeObject): void => {
      if (secret['type'] === bootstrapTokenSecretType()) this.queue.add(keyOf(secret));
    };
    this.onStop(this.secrets.addEventHandler({ onAdd: enqueue, onUpdate: (_old, s) => enqueue(s) }));
    this.run((key) => this.sync(key), 1, (err) => ctx.onError(err));
  }

  private async sync(key: string): Promise<void> {
    const secret = this.secrets.getByKey(key);
    if (!secret || secret['type'] !== bootstrapTokenSecretType()) {
      this.cancelWake(key);
      return;
    }
    const { expired, remainingMs } = tokenExpiration(secret, this.ctx.clock.now());
    if (!expired) {
      if (remainingMs > 0) this.wakeAfter(key, remainingMs);
      else this.cancelWake(key);
      return;
    }
    this.cancelWake(key);
    const { namespace, name } = splitKey(key);
    const uid = secret.metadata?.uid;
    try {
      // The uid precondition spares a token recreated under the same name meanwhile.
      await this.ctx.client.delete(SECRETS, namespace, name, uid ? { preconditions: { uid } } : {});
    } catch (err) {
      if (isApiError(err) && (err.code === 404 || err.code === 409)) return;
      throw err;
    }
  }
}

/** Starts the cleaner over the context's informers. */
export function startTokenCleaner(ctx: ControllerContext): RunningController {
  return new TokenCleaner(ctx);
}
