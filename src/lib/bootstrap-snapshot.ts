// What a memory server holds when it becomes ready (RBAC policy, priority and fairness
// objects, APIServices, system namespaces, about 150 writes) depends only on its flags and
// its PKI. The first server of a process with a given set runs that bootstrap; the next
// ones start from a snapshot of its store taken at ready, so their start-up hooks find
// everything in place and write nothing. A test cannot tell: the objects are those a fresh
// server makes, but for their uids and timestamps.
import type { MemorySnapshot } from '../storage/index.js';

// Objects that name the server itself (its URL, its port): left out, each server makes its own.
const SERVER_SPECIFIC = ['/configmaps/kube-public/cluster-info', '/endpoints/default/kubernetes', '/endpointslices/default/kubernetes'];

/** Snapshots by the flags (less the port) and PKI directory they were made under. */
export class BootstrapSnapshots {
  private readonly byKey = new Map<string, MemorySnapshot>();

  /** The key of a server's flags: everything that shapes its bootstrap, which the port does not. */
  static key(flags: readonly string[], pkiDir: string): string {
    return JSON.stringify([pkiDir, ...flags.filter((f) => !f.startsWith('--secure-port'))]);
  }

  get(key: string): MemorySnapshot | undefined {
    return this.byKey.get(key);
  }

  /** Keeps the first snapshot taken under `key`, without the server-specific objects. */
  remember(key: string, snapshot: MemorySnapshot): void {
    if (this.byKey.has(key)) return;
    const items = snapshot.items.filter((item) => !SERVER_SPECIFIC.some((suffix) => item.key.endsWith(suffix)));
    this.byKey.set(key, Object.freeze({ revision: snapshot.revision, items: Object.freeze(items) }));
  }
}
