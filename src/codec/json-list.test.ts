// A streamed list is the same bytes as the whole list encoded at once, whatever the list
// holds and however small the chunks are.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jsonListChunks, type StoredSplice, type StreamedList } from './json-list.js';
import { jsonSerializer } from './serializer.js';

function configMap(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  // Built out of Go's order on purpose: the encoder must reorder each item as the whole encode does.
  return { data: { b: '2', a: '1' }, metadata: { resourceVersion: '7', namespace: 'ns', name }, apiVersion: 'v1', kind: 'ConfigMap', ...extra };
}

function protoKeyed(): Record<string, unknown> {
  // JSON.parse makes `__proto__` an own key, as a decoded request body has it.
  const data = JSON.parse('{"__proto__":"not a prototype","constructor":"x"}') as Record<string, unknown>;
  return configMap('proto', { data });
}

const cases: { name: string; list: Record<string, unknown> }[] = [
  { name: 'empty list', list: { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '5' }, items: [] } },
  { name: 'one item', list: { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '5' }, items: [configMap('a')] } },
  {
    name: 'continue and remainingItemCount, envelope out of order',
    list: { items: [configMap('a'), configMap('b')], metadata: { remainingItemCount: 12, continue: 'eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ', resourceVersion: '9' }, apiVersion: 'v1', kind: 'ConfigMapList' },
  },
  {
    name: 'unicode, escapes and lone surrogates',
    list: { kind: 'ConfigMapList', apiVersion: 'v1', metadata: {}, items: [configMap('u', { data: { 'ключ': 'значение 🚀', quote: '"\\\n\t\u2028', lone: '\ud800' } })] },
  },
  {
    name: 'bigint values',
    list: { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items: [configMap('n', { data: { big: 9223372036854775807n } }), configMap('m')] },
  },
  { name: '__proto__ keys in an item', list: { kind: 'ConfigMapList', apiVersion: 'v1', metadata: {}, items: [protoKeyed(), configMap('b')] } },
  {
    name: 'custom resource list (keys sorted)',
    list: { kind: 'WidgetList', apiVersion: 'example.com/v1', metadata: { resourceVersion: '3' }, items: [{ spec: { z: 1, a: [{ y: 2, b: 3 }] }, kind: 'Widget', apiVersion: 'example.com/v1', metadata: { name: 'w' } }] },
  },
  {
    name: 'omitted zero fields and empty maps in items',
    list: { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '' }, items: [configMap('z', { immutable: false, binaryData: {}, data: {} })] },
  },
  {
    name: 'items that are not objects',
    list: { kind: 'List', apiVersion: 'v1', metadata: {}, items: [null, 1, 'two', [3], { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'x' } }] },
  },
  { name: 'no kind at all', list: { metadata: {}, items: [{ b: 1, a: 2 }, { c: 3 }] } },
];

function streamed(list: Record<string, unknown>, pretty: boolean, chunkBytes?: number): { text: string; chunks: number } {
  const items = list.items as unknown[];
  const source: StreamedList = { envelope: list, key: 'items', count: items.length, element: (i) => items[i] };
  const chunks = [...jsonListChunks(source, pretty, chunkBytes)];
  return { text: Buffer.concat(chunks).toString(), chunks: chunks.length };
}

const whole = (list: unknown, pretty: boolean): string => Buffer.from(jsonSerializer.encode(list, { pretty })).toString();

describe('streamed JSON lists', () => {
  for (const { name, list } of cases) {
    for (const pretty of [false, true]) {
      for (const chunkBytes of [1, 100, undefined]) {
        it(`${name}: byte-identical to the whole encode (pretty=${pretty}, chunks of ${chunkBytes ?? 'default'})`, () => {
          assert.equal(streamed(list, pretty, chunkBytes).text, whole(list, pretty));
        });
      }
    }
  }

  it('writes a large list in chunks of about the size asked for', () => {
    const items = Array.from({ length: 2000 }, (_, i) => configMap(`cm-${i}`));
    const list = { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items };
    const out = streamed(list, false, 16 * 1024);
    assert.equal(out.text, whole(list, false));
    // Each chunk holds at least the size asked for and at most about two (one batch past it).
    const most = Math.ceil(Buffer.byteLength(out.text) / (16 * 1024));
    assert.ok(out.chunks >= most / 3 && out.chunks <= most, `${out.chunks} chunks, at most ${most} expected`);
  });

  it('encodes items only as chunks are pulled', () => {
    let built = 0;
    const source: StreamedList = {
      envelope: { kind: 'ConfigMapList', apiVersion: 'v1', metadata: {} },
      key: 'items',
      count: 1000,
      element: (i) => {
        built++;
        return configMap(`cm-${i}`);
      },
    };
    const it = jsonListChunks(source, false, 1024);
    it.next();
    assert.ok(built > 0 && built < 20, `${built} items built for the first chunk`);
  });

  it('throws from the pull that meets an item it cannot encode', () => {
    const cyclic: Record<string, unknown> = configMap('loop');
    cyclic.self = cyclic;
    const source: StreamedList = { envelope: { kind: 'List', apiVersion: 'v1', metadata: {} }, key: 'items', count: 3, element: (i) => (i === 2 ? cyclic : configMap(`cm-${i}`)) };
    const it = jsonListChunks(source, false, 1);
    assert.equal(it.next().done, false, 'the envelope goes out before the bad item is met');
    assert.throws(() => {
      for (;;) if (it.next().done) break;
    }, TypeError);
  });

  it('does not mistake client text for the items placeholder', () => {
    const list = { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { continue: '"orch-list-items-"' }, items: [configMap('a', { data: { k: 'orch-list-items-' } })] };
    assert.equal(streamed(list, false).text, whole(list, false));
  });
});

describe('streamed JSON lists copied from stored bytes', () => {
  const envelope = { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '50' } };
  // Stored as the server stores objects: Go's order, without the resource version.
  const storedText = (name: string, data: Record<string, string>): string => JSON.stringify({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name, namespace: 'ns', uid: 'u-1', creationTimestamp: '2026-01-01T00:00:00Z', labels: { resourceVersion: '7' } }, data });
  const items = (n: number) =>
    Array.from({ length: n }, (_, i) => {
      const text = i % 5 === 3 ? JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` } }) : storedText(`cm-${i}`, { k: `é-${i}` });
      return { key: `k${i}`, value: Buffer.from(text), revision: String(i + 1) };
    });
  const answer = (it: { value: Uint8Array; revision: string }): Record<string, unknown> => {
    const obj = JSON.parse(Buffer.from(it.value).toString()) as { metadata: Record<string, unknown> };
    obj.metadata.resourceVersion = it.revision;
    return obj;
  };

  it('writes the bytes of the whole encode, and encodes each stored item once to learn where its resource version goes', () => {
    const stored = items(2000);
    const whole = Buffer.from(jsonSerializer.encode({ ...envelope, items: stored.map(answer) }, { pretty: false })).toString();
    const splices = new WeakMap<object, StoredSplice>();
    let built = 0;
    const list: StreamedList = {
      envelope,
      key: 'items',
      count: stored.length,
      element: (i) => (built++, answer(stored[i]!)),
      stored: (i) => ({ item: stored[i]!, bytes: stored[i]!.value, resourceVersion: stored[i]!.revision }),
      splices,
    };
    const first = Buffer.concat([...jsonListChunks(list, false, 4096)]).toString();
    assert.equal(first, whole);
    assert.equal(built, 2000);
    built = 0;
    const second = Buffer.concat([...jsonListChunks(list, false, 4096)]).toString();
    assert.equal(second, whole);
    // Items whose bytes are not their answer (here: type fields out of Go's order) are encoded every time.
    assert.equal(built, 400);
    assert.equal(splices.get(stored[3]!), -1);
    assert.ok((splices.get(stored[0]!) as number) > 0);
    // Indented answers never copy.
    built = 0;
    assert.equal(Buffer.concat([...jsonListChunks(list, true)]).toString(), Buffer.from(jsonSerializer.encode({ ...envelope, items: stored.map(answer) }, { pretty: true })).toString());
    assert.equal(built, 2000);
  });

  it('copies objects whose metadata fields are stored in the order they were set, rearranged into the answer\'s order', () => {
    // As the server stores what it writes: the metadata's fields in the order the request and
    // the Store set them; strings that hold quotes, backslashes, braces and non-ASCII text.
    const tricky = 'a "quoted" {brace} [x], back\\slash é ✓';
    const stored = Array.from({ length: 300 }, (_, i) => {
      const metadata: Record<string, unknown> = { name: `cm-${i}`, labels: { app: tricky, n: String(i) }, namespace: 'ns', uid: `u-${i}`, creationTimestamp: '2026-01-01T00:00:00Z' };
      if (i % 3 === 0) metadata.annotations = { note: `{"json":"inside ${i}"}` };
      // A field the answer leaves out (Go's omitempty), and one the answer writes differently (an escape).
      if (i % 7 === 0) metadata.generateName = '';
      const text = i % 11 === 0 ? JSON.stringify({ kind: 'ConfigMap', apiVersion: 'v1', metadata }).replace('"ns"', '"\\u006es"') : JSON.stringify({ kind: 'ConfigMap', apiVersion: 'v1', metadata, data: { k: `v-${i}` } });
      return { key: `k${i}`, value: Buffer.from(text), revision: String(1000 + i) };
    });
    const whole = Buffer.from(jsonSerializer.encode({ ...envelope, items: stored.map(answer) }, { pretty: false })).toString();
    const splices = new WeakMap<object, StoredSplice>();
    let built = 0;
    const list: StreamedList = {
      envelope,
      key: 'items',
      count: stored.length,
      element: (i) => (built++, answer(stored[i]!)),
      stored: (i) => ({ item: stored[i]!, bytes: stored[i]!.value, resourceVersion: stored[i]!.revision }),
      splices,
    };
    assert.equal(Buffer.concat([...jsonListChunks(list, false, 4096)]).toString(), whole);
    assert.equal(built, 300);
    built = 0;
    assert.equal(Buffer.concat([...jsonListChunks(list, false, 4096)]).toString(), whole);
    // Only the items with an escape the answer writes otherwise are encoded again.
    assert.equal(built, stored.filter((_, i) => i % 11 === 0).length);
    assert.ok(splices.get(stored[1]!) instanceof Int32Array, 'learnt as slices');
    assert.equal(splices.get(stored[0]!), -1);
  });

  it('encodes every time the stored bytes it cannot cut into the answer\'s fields (whitespace, a deeply nested field the answer leaves out)', () => {
    const deep = '['.repeat(5000) + ']'.repeat(5000);
    const texts = [
      '{ "kind": "ConfigMap", "apiVersion": "v1", "metadata": { "namespace": "ns", "name": "a" } }',
      `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"namespace":"ns","name":"b","annotations":{"x":"${'\\"'.repeat(10)}"}},"data":{"deep":"${deep}"}}`,
      `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"namespace":"ns","name":"c"},"deep":${deep}}`,
    ];
    const stored = texts.map((text, i) => ({ key: `k${i}`, value: Buffer.from(text), revision: String(i + 1) }));
    const element = (i: number): Record<string, unknown> => {
      const obj = answer(stored[i]!);
      // What a decode would give, without the deep array the answer does not carry.
      delete obj.deep;
      return obj;
    };
    const splices = new WeakMap<object, StoredSplice>();
    const list: StreamedList = { envelope, key: 'items', count: stored.length, element, stored: (i) => ({ item: stored[i]!, bytes: stored[i]!.value, resourceVersion: stored[i]!.revision }), splices };
    const whole = Buffer.from(jsonSerializer.encode({ ...envelope, items: stored.map((_, i) => element(i)) }, { pretty: false })).toString();
    for (let pass = 0; pass < 2; pass++) assert.equal(Buffer.concat([...jsonListChunks(list, false)]).toString(), whole);
    assert.equal(splices.get(stored[0]!), -1, 'whitespace');
    assert.equal(splices.get(stored[2]!), -1, 'a field the answer does not have');
    // The second's metadata fields rearrange into the answer: it is copied.
    assert.ok(splices.get(stored[1]!) instanceof Int32Array);
  });

  it('puts the resource version back after a last metadata field', () => {
    const value = Buffer.from('{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","uid":"x"}}');
    const item = { value };
    const splices = new WeakMap<object, StoredSplice>();
    const element = (): Record<string, unknown> => ({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a', uid: 'x', resourceVersion: '3' } });
    const list: StreamedList = { envelope, key: 'items', count: 1, element, stored: () => ({ item, bytes: value, resourceVersion: '3' }), splices };
    const whole = Buffer.from(jsonSerializer.encode({ ...envelope, items: [element()] }, { pretty: false })).toString();
    assert.equal(Buffer.concat([...jsonListChunks(list, false)]).toString(), whole);
    assert.equal(Buffer.concat([...jsonListChunks(list, false)]).toString(), whole);
    assert.equal((splices.get(item) as number) & 1, 0, 'the comma goes before the field');
  });
});
