// The scheduler's cache: every node with the pods assigned to it, kept from the informers, and
// pods assumed on a node from the moment their binding is sent (so the next cycle counts them)
// until the informer shows them bound, or the binding fails and they are forgotten.
import type { KubeObject } from '../../apimachinery/types.js';
import type { ClusterSnapshot } from '../framework/interface.js';
import { NodeInfo } from '../framework/node-info.js';
import type { PodInfo } from '../framework/pod-info.js';

export class SchedulerCache implements ClusterSnapshot {
  /** Every NodeInfo by name, including placeholders for pods whose node is not (yet) known. */
  private readonly infos = new Map<string, NodeInfo>();
  private readonly known = new Set<string>();
  private list: NodeInfo[] | undefined;
  /** Pod key to the node it is counted on. */
  private readonly placed = new Map<string, string>();
  private readonly assumed = new Set<string>();

  nodes(): readonly NodeInfo[] {
    this.list ??= [...this.known].map((n) => this.infos.get(n)!);
    return this.list;
  }

  node(name: string): NodeInfo | undefined {
    return this.known.has(name) ? this.infos.get(name) : undefined;
  }

  get nodeCount(): number {
    return this.known.size;
  }

  setNode(node: KubeObject): void {
    const name = node.metadata?.name ?? '';
    const info = this.infos.get(name);
    if (info) info.setNode(node);
    else this.infos.set(name, new NodeInfo(node));
    if (!this.known.has(name)) {
      this.known.add(name);
      this.list = undefined;
    }
  }

  removeNode(name: string): void {
    if (!this.known.delete(name)) return;
    this.list = undefined;
    // Its pods stay counted on a placeholder until they are deleted (podgc's work).
    const info = this.infos.get(name);
    if (info && info.pods.size === 0) this.infos.delete(name);
  }

  /** An assigned pod seen in the informer: counted on its node, confirming an assumption. */
  addPod(pod: PodInfo): void {
    this.assumed.delete(pod.key);
    this.place(pod, pod.nodeName);
  }

  removePod(key: string): void {
    this.assumed.delete(key);
    const node = this.placed.get(key);
    if (node === undefined) return;
    this.placed.delete(key);
    const info = this.infos.get(node);
    info?.removePod(key);
    if (info && !this.known.has(node) && info.pods.size === 0) this.infos.delete(node);
  }

  /** Counts `pod` on `nodeName` before its binding is answered. */
  assume(pod: PodInfo, nodeName: string): void {
    this.assumed.add(pod.key);
    this.place(pod, nodeName);
  }

  /** The binding failed: the assumption is undone. */
  forget(key: string): void {
    if (this.assumed.has(key)) this.removePod(key);
  }

  isAssumed(key: string): boolean {
    return this.assumed.has(key);
  }

  private place(pod: PodInfo, nodeName: string): void {
    const previous = this.placed.get(pod.key);
    if (previous !== undefined && previous !== nodeName) this.removePod(pod.key);
    let info = this.infos.get(nodeName);
    if (!info) {
      info = new NodeInfo({ metadata: { name: nodeName } });
      this.infos.set(nodeName, info);
    }
    info.addPod(pod);
    this.placed.set(pod.key, nodeName);
  }
}
