// Lists whose items are produced on demand (`StoreList.lazy`): `items` builds them all when
// first read, so a caller that wants an array gets one, while the LIST handler encodes them
// one at a time from `lazy` and never builds the array.
import type { KubeObject } from '../apimachinery/types.js';
import type { LazyItems } from '../rest/index.js';

/** `head` with `items` built from `lazy` on first read and `lazy` itself (not enumerable: never encoded). */
export function withLazyItems<H extends object>(head: H, lazy: LazyItems): H & { items: KubeObject[]; readonly lazy: LazyItems } {
  let built: KubeObject[] | undefined;
  Object.defineProperty(head, 'items', {
    enumerable: true,
    configurable: true,
    get(): KubeObject[] {
      if (built === undefined) {
        built = new Array<KubeObject>(lazy.count);
        for (let i = 0; i < lazy.count; i++) built[i] = lazy.at(i) as KubeObject;
      }
      return built;
    },
    set(items: KubeObject[]) {
      built = items;
    },
  });
  Object.defineProperty(head, 'lazy', { enumerable: false, value: lazy });
  return head as H & { items: KubeObject[]; lazy: LazyItems };
}
