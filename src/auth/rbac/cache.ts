// The watch-fed RBAC cache the authorizer reads: roles and bindings indexed by namespace.
import type { GroupVersionResource, KubeObject } from '../../apimachinery/types.js';
import type { ApiClient } from '../../client/types.js';
import { group } from '../../naming/index.js';
import { Reflector } from '../reflector.js';
import type { RBACSource } from './authorizer.js';

export function rbacResource(resource: 'roles' | 'clusterroles' | 'rolebindings' | 'clusterrolebindings'): GroupVersionResource {
  return { group: group('rbac.authorization'), version: 'v1', resource };
}

class NamespacedIndex {
  private readonly byNs = new Map<string, Map<string, KubeObject>>();

  apply(obj: KubeObject, type: 'upsert' | 'delete'): void {
    const ns = obj.metadata?.namespace ?? '';
    const name = obj.metadata?.name ?? '';
    let m = this.byNs.get(ns);
    if (type === 'delete') {
      m?.delete(name);
      if (m && m.size === 0) this.byNs.delete(ns);
      return;
    }
    if (!m) this.byNs.set(ns, (m = new Map()));
    m.set(name, obj);
  }

  get(ns: string, name: string): KubeObject | undefined {
    return this.byNs.get(ns)?.get(name);
  }

  list(ns: string): KubeObject[] {
    return [...(this.byNs.get(ns)?.values() ?? [])];
  }
}

export class RBACCache implements RBACSource {
  readonly roles: Reflector;
  readonly clusterRoles: Reflector;
  readonly roleBindings: Reflector;
  readonly clusterRoleBindings: Reflector;
  private readonly roleIndex = new NamespacedIndex();
  private readonly bindingIndex = new NamespacedIndex();

  constructor(client: ApiClient) {
    this.roles = new Reflector(client, rbacResource('roles'));
    this.clusterRoles = new Reflector(client, rbacResource('clusterroles'));
    this.roleBindings = new Reflector(client, rbacResource('rolebindings'));
    this.clusterRoleBindings = new Reflector(client, rbacResource('clusterrolebindings'));
    this.roles.onChange((o, t) => this.roleIndex.apply(o, t));
    this.roleBindings.onChange((o, t) => this.bindingIndex.apply(o, t));
  }

  private all(): Reflector[] {
    return [this.roles, this.clusterRoles, this.roleBindings, this.clusterRoleBindings];
  }

  start(): void {
    for (const r of this.all()) r.start();
  }

  stop(): void {
    for (const r of this.all()) r.stop();
  }

  async waitForSync(): Promise<void> {
    await Promise.all(this.all().map((r) => r.waitForSync()));
  }

  hasSynced(): boolean {
    return this.all().every((r) => r.hasSynced());
  }

  getRole(namespace: string, name: string): KubeObject | undefined {
    return this.roleIndex.get(namespace, name);
  }

  getClusterRole(name: string): KubeObject | undefined {
    return this.clusterRoles.get(name);
  }

  listRoleBindings(namespace: string): KubeObject[] {
    return this.bindingIndex.list(namespace);
  }

  listClusterRoleBindings(): KubeObject[] {
    return this.clusterRoleBindings.list();
  }
}
