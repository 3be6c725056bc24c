// The storage codec over the real registry: objects written in the binary form read back
// as written, and values written in either encoding stay readable after a switch.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { builtinResourceDefinitions } from '../../apis/definitions.js';
import { FlagError, ParsedFlags } from '../../apimachinery/flags.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { group, protobufMediaType, setFlavor } from '../../naming/index.js';
import { buildResourceTable } from '../../registry/index.js';
import { requestContext } from '../../testing/registry.js';
import type { RESTStore } from '../../rest/index.js';
import { MemoryStorage } from '../../storage/index.js';
import { isProtobufPayload, storageCodec, storageCodecFromFlags } from './index.js';

setFlavor('orch');
const ctx = requestContext();
const noDry = { dryRun: false };

function tableOver(storage: MemoryStorage, mediaType: string) {
  const table = buildResourceTable(builtinResourceDefinitions(), storage, { codec: storageCodec(mediaType) });
  const store = (g: string, version: string, resource: string): RESTStore => {
    const s = table.lookup({ group: g, version }, resource);
    assert.ok(s, `${g}/${version}/${resource} is served`);
    return s;
  };
  return { table, store };
}

async function storedValue(storage: MemoryStorage, suffix: string): Promise<Uint8Array> {
  const page = await storage.list('/');
  const item = page.items.find((i) => i.key.endsWith(suffix));
  assert.ok(item, `no stored key ending in ${suffix}`);
  return item.value;
}

test('objects stored in the binary form read back as written', async () => {
  const storage = new MemoryStorage();
  const { table, store } = tableOver(storage, protobufMediaType());
  try {
    await store('', 'v1', 'namespaces').create!(ctx, '', { metadata: { name: 'bin' } }, noDry);
    const cm = await store('', 'v1', 'configmaps').create!(
      ctx,
      'bin',
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1', labels: { a: 'b' } }, data: { k: 'v', k2: 'grüße' }, binaryData: { b: 'AAE=' } },
      noDry,
    );
    assert.ok(isProtobufPayload(await storedValue(storage, '/configmaps/bin/c1')));
    const got = await store('', 'v1', 'configmaps').get!(ctx, 'bin', 'c1', {});
    assert.deepEqual(got, cm);

    const role = await store(group('rbac.authorization'), 'v1', 'roles').create!(
      ctx,
      'bin',
      { metadata: { name: 'r1' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }] },
      noDry,
    );
    assert.deepEqual(await store(group('rbac.authorization'), 'v1', 'roles').get!(ctx, 'bin', 'r1', {}), role);

    const dep = await store('apps', 'v1', 'deployments').create!(
      ctx,
      'bin',
      {
        metadata: { name: 'd1' },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: 'd1' } },
          template: {
            metadata: { labels: { app: 'd1' } },
            spec: { containers: [{ name: 'c', image: 'nginx', resources: { limits: { cpu: '500m', memory: '1Gi' } }, ports: [{ containerPort: 80 }] }] },
          },
        },
      },
      noDry,
    );
    const depBack = await store('apps', 'v1', 'deployments').get!(ctx, 'bin', 'd1', {});
    assert.deepEqual(spec(depBack).replicas, 2);
    assert.deepEqual(depBack.metadata, dep.metadata);
    assert.deepEqual(spec(depBack).template, spec(dep).template);

    // Kinds stored in another version convert from what the binary form kept.
    const core = await store('', 'v1', 'events').create!(
      ctx,
      'bin',
      { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e1' }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'bin' }, reason: 'Started', message: 'hello', type: 'Normal', count: 3 },
      noDry,
    );
    const other = await store(group('events'), 'v1', 'events').get!(ctx, 'bin', 'e1', {});
    assert.equal(other.note, 'hello');
    assert.equal(other.metadata?.uid, core.metadata?.uid);
    assert.deepEqual(await store('', 'v1', 'events').get!(ctx, 'bin', 'e1', {}), core);
  } finally {
    await table.stop();
    await storage.close();
  }
});

function spec(o: KubeObject): Record<string, unknown> {
  return o.spec as Record<string, unknown>;
}

test('a server switching storage encodings reads what the other wrote', async () => {
  const storage = new MemoryStorage();
  const json = tableOver(storage, 'application/json');
  try {
    await json.store('', 'v1', 'namespaces').create!(ctx, '', { metadata: { name: 'sw' } }, noDry);
    await json.store('', 'v1', 'configmaps').create!(ctx, 'sw', { metadata: { name: 'from-json' }, data: { a: '1' } }, noDry);
    assert.ok(!isProtobufPayload(await storedValue(storage, '/configmaps/sw/from-json')));
  } finally {
    await json.table.stop();
  }
  const bin = tableOver(storage, protobufMediaType());
  try {
    const cms = bin.store('', 'v1', 'configmaps');
    assert.deepEqual((await cms.get!(ctx, 'sw', 'from-json', {})).data, { a: '1' });
    await cms.create!(ctx, 'sw', { metadata: { name: 'from-binary' }, data: { b: '2' } }, noDry);
    assert.ok(isProtobufPayload(await storedValue(storage, '/configmaps/sw/from-binary')));
  } finally {
    await bin.table.stop();
  }
  const back = tableOver(storage, 'application/json');
  try {
    const list = await back.store('', 'v1', 'configmaps').list!(ctx, 'sw', {});
    assert.deepEqual(
      list.items.map((i) => [i.metadata?.name, i.data]),
      [
        ['from-binary', { b: '2' }],
        ['from-json', { a: '1' }],
      ],
    );
  } finally {
    await back.table.stop();
    await storage.close();
  }
});

test('kinds without a binary form are stored as JSON under the binary media type', () => {
  const codec = storageCodec(protobufMediaType());
  const custom = { apiVersion: 'example.test/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 3 } };
  const bytes = codec.encode(custom);
  assert.ok(!isProtobufPayload(bytes));
  assert.deepEqual(codec.decode(bytes), custom);
});

test('--storage-media-type accepts JSON and the binary type, nothing else', () => {
  assert.ok(storageCodecFromFlags(new ParsedFlags(new Map())));
  const bin = storageCodecFromFlags(new ParsedFlags(new Map([['storage-media-type', protobufMediaType()]])));
  assert.ok(isProtobufPayload(bin.encode({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } })));
  assert.throws(() => storageCodec('application/xml'), (e) => e instanceof FlagError && /unsupported media type "application\/xml"/.test(e.message));
  // The other flavor's name of the same bytes is not this flavor's type (the message names the one it is).
  assert.throws(
    () => storageCodec('application/vnd.kubernetes.protobuf'),
    (e) => e instanceof FlagError && e.message.endsWith('supported values: "application/json", "application/vnd.orch.protobuf"'),
  );
});
