// One informer per resource and scope, shared by every controller (and admission plugin)
// that asks for it, so the server lists and watches each resource once however many
// consumers it has.
import type { GroupVersionResource } from '../apimachinery/types.js';
import type { ApiClient } from './types.js';
import { Informer, type InformerOptions } from './informer.js';

export type SharedInformerOptions = Pick<InformerOptions, 'namespace' | 'labelSelector' | 'fieldSelector' | 'metadataOnly'>;

export class SharedInformerFactory {
  private readonly informers = new Map<string, Informer>();
  private started = false;
  private stopped = false;

  constructor(
    private readonly client: ApiClient,
    private readonly defaults: Omit<InformerOptions, keyof SharedInformerOptions> = {},
  ) {}

  /** The informer of a resource and scope; started at once when the factory already runs. */
  informerFor(r: GroupVersionResource, opts: SharedInformerOptions = {}): Informer {
    const keyOf = (metadataOnly: boolean): string =>
      JSON.stringify([r.group, r.version, r.resource, opts.namespace ?? '', opts.labelSelector ?? '', opts.fieldSelector ?? '', metadataOnly]);
    const key = keyOf(opts.metadataOnly === true);
    // Whole objects serve a reader of metadata too: one watch where a whole informer exists already.
    let informer = this.informers.get(key) ?? (opts.metadataOnly ? this.informers.get(keyOf(false)) : undefined);
    if (!informer) {
      informer = new Informer(this.client, r, { ...this.defaults, ...opts });
      this.informers.set(key, informer);
      if (this.started && !this.stopped) informer.start();
    }
    return informer;
  }

  /** Starts every informer asked for so far, and later ones as they are asked for. */
  start(): void {
    if (this.stopped) return;
    this.started = true;
    for (const informer of this.informers.values()) informer.start();
  }

  /** True once every informer asked for so far has its first list (and has told its handlers). */
  hasSynced(): boolean {
    for (const informer of this.informers.values()) if (!informer.hasSynced()) return false;
    return true;
  }

  async waitForSync(): Promise<void> {
    await Promise.all([...this.informers.values()].map((i) => i.waitForSync()));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all([...this.informers.values()].map((i) => i.stop()));
  }
}
