// A minimal Reflect metadata store (define/get/has/metadata), installed only when absent.
type Key = string | symbol;
const store = new WeakMap<object, Map<Key | undefined, Map<unknown, unknown>>>();

function table(target: object, prop: Key | undefined, create: boolean): Map<unknown, unknown> | undefined {
  let byProp = store.get(target);
  if (!byProp) {
    if (!create) return undefined;
    byProp = new Map();
    store.set(target, byProp);
  }
  let t = byProp.get(prop);
  if (!t && create) {
    t = new Map();
    byProp.set(prop, t);
  }
  return t;
}

function getMetadata(key: unknown, target: object, prop?: Key): unknown {
  for (let o: object | null = target; o; o = Object.getPrototypeOf(o) as object | null) {
    const t = table(o, prop, false);
    if (t?.has(key)) return t.get(key);
  }
  return undefined;
}

const api = {
  defineMetadata(key: unknown, value: unknown, target: object, prop?: Key): void {
    table(target, prop, true)!.set(key, value);
  },
  getMetadata,
  getOwnMetadata(key: unknown, target: object, prop?: Key): unknown {
    return table(target, prop, false)?.get(key);
  },
  hasMetadata(key: unknown, target: object, prop?: Key): boolean {
    return getMetadata(key, target, prop) !== undefined;
  },
  metadata(key: unknown, value: unknown) {
    return (target: object, prop?: Key): void => api.defineMetadata(key, value, target, prop);
  },
};

const reflect = Reflect as unknown as Record<string, unknown>;
for (const [name, fn] of Object.entries(api)) if (typeof reflect[name] !== 'function') reflect[name] = fn;
