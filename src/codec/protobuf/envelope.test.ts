// The envelope and the wire details upstream readers depend on: zero values versus absent
// fields, negative numbers, int-or-string, quantities, map order, and clean errors.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../apimachinery/errors.js';
import { group, metaGroup, setFlavor } from '../../naming/index.js';
import { decodeObject, encodeObject, isProtobufPayload } from './index.js';
import { Writer } from './wire.js';

setFlavor('orch');

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const ascii = (s: string): string => Buffer.from(s).toString('hex');

function rejects(fn: () => unknown, code: number, message: RegExp | string): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof ApiError, String(e));
    assert.equal(e.code, code);
    if (typeof message === 'string') assert.equal(e.message, message);
    else assert.match(e.message, message);
    return true;
  });
}

test('a bare Namespace decodes as kubectl writes it in JSON: zero structs, null time', () => {
  const bytes = encodeObject({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } });
  assert.equal(
    hex(bytes),
    // prefix, typeMeta{v1, Namespace}, raw{metadata{name, 7 empty scalars..., empty time}, spec{}, status{phase ""}}, "", ""
    '6b387300' + '0a0f0a02' + ascii('v1') + '1209' + ascii('Namespace') +
      '121e' + '0a16' + '0a06' + ascii('team-a') + '12001a0022002a003200' + '3800' + '4200' + '1200' + '1a020a00' + '1a002200',
  );
  assert.deepEqual(decodeObject(bytes), {
    kind: 'Namespace',
    apiVersion: 'v1',
    metadata: { name: 'team-a', creationTimestamp: null },
    spec: {},
    status: {},
  });
});

test('pointer fields: absent is not written, a zero value is', () => {
  const absent = encodeObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } });
  const zero = encodeObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, immutable: false });
  assert.equal(zero.length, absent.length + 2);
  assert.ok(hex(zero).includes('2000'));
  assert.equal(decodeObject(absent).immutable, undefined);
  assert.equal(decodeObject(zero).immutable, false);
});

test('negative integers take ten bytes; int-or-string and quantities use their messages', () => {
  const opts = encodeObject({ apiVersion: `${metaGroup()}/v1`, kind: 'DeleteOptions', gracePeriodSeconds: -1 });
  assert.ok(hex(opts).includes('08ffffffffffffffffff01'));
  assert.equal(decodeObject(opts).gracePeriodSeconds, -1);

  const svc = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 's' },
    spec: { ports: [{ port: 80, targetPort: 8080 }, { port: 443, targetPort: 'https' }] },
  };
  const bytes = encodeObject(svc);
  assert.ok(hex(bytes).includes('2207080010903f1a00'), 'targetPort 8080 as {type 0, intVal 8080, strVal ""}');
  assert.ok(hex(bytes).includes('220b08011000' + '1a05' + ascii('https')), 'targetPort "https" as {type 1, intVal 0, strVal}');
  const ports = (decodeObject(bytes).spec as { ports: { targetPort: unknown }[] }).ports;
  assert.deepEqual(ports.map((p) => p.targetPort), [8080, 'https']);

  const quota = encodeObject({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q' }, spec: { hard: { cpu: '1000m', memory: '1024Mi' } } });
  assert.deepEqual((decodeObject(quota).spec as { hard: unknown }).hard, { cpu: '1', memory: '1Gi' });
});

test('map entries are written in key order whatever the object order', () => {
  const a = encodeObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { zeta: '1', alpha: '2', Mid: '3' } });
  const b = encodeObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { Mid: '3', alpha: '2', zeta: '1' } });
  assert.equal(hex(a), hex(b));
  const text = Buffer.from(a).toString('latin1');
  assert.ok(text.indexOf('Mid') < text.indexOf('alpha') && text.indexOf('alpha') < text.indexOf('zeta'));
});

test('served group names travel in the envelope; the catalog type is found through them', () => {
  const role = { apiVersion: `${group('rbac.authorization')}/v1`, kind: 'Role', metadata: { name: 'r' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] };
  const bytes = encodeObject(role);
  assert.ok(Buffer.from(bytes).includes(Buffer.from(`${group('rbac.authorization')}/v1`)));
  assert.deepEqual(decodeObject(bytes), { ...role, kind: 'Role', apiVersion: role.apiVersion, metadata: { name: 'r', creationTimestamp: null } });
});

/** An envelope around hand-written message content. */
function envelope(apiVersion: string, kind: string, content: (w: Writer) => void): Uint8Array {
  const w = new Writer();
  for (const b of [0x6b, 0x38, 0x73, 0x00]) w.byte(b);
  w.byte(0x0a);
  const tm = w.beginLength();
  w.byte(0x0a);
  w.string(apiVersion);
  w.byte(0x12);
  w.string(kind);
  w.endLength(tm);
  w.byte(0x12);
  const raw = w.beginLength();
  content(w);
  w.endLength(raw);
  return w.finish();
}

function dataEntry(w: Writer, key: string, value: string): void {
  w.byte(0x12);
  const entry = w.beginLength();
  w.byte(0x0a);
  w.string(key);
  w.byte(0x12);
  w.string(value);
  w.endLength(entry);
}

test('fields a newer client adds are skipped; a known field of the wrong wire type is an error', () => {
  const bytes = envelope('v1', 'ConfigMap', (w) => {
    w.uvarint((99 << 3) | 2);
    w.string('from the future');
    w.uvarint(98 << 3);
    w.uvarint(12345);
    dataEntry(w, 'k', 'v');
  });
  assert.deepEqual(decodeObject(bytes), { kind: 'ConfigMap', apiVersion: 'v1', metadata: { creationTimestamp: null }, data: { k: 'v' } });
  const wrong = envelope('v1', 'ConfigMap', (w) => {
    w.byte(0x22); // field 4 (immutable, a varint) sent as bytes
    w.string('x');
  });
  rejects(() => decodeObject(wrong), 400, 'proto: wrong wireType = 2 for field immutable');
});

test('malformed payloads are 400s with the upstream wording', () => {
  rejects(() => decodeObject(Buffer.from('{"kind":"ConfigMap"}')), 400, 'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]');
  rejects(() => decodeObject(new Uint8Array(0)), 400, 'empty data');
  rejects(() => decodeObject(Uint8Array.of(0x6b, 0x38, 0x73, 0x00)), 400, 'empty body');
  const good = encodeObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: 'b' } });
  for (let cut = 5; cut < good.length - 4; cut += 3) {
    assert.throws(() => decodeObject(good.subarray(0, cut)), (e: unknown) => e instanceof ApiError && e.code === 400, `cut at ${cut}`);
  }
  rejects(() => decodeObject(envelope('v1', '', () => {})), 400, `Object 'Kind' is missing in 'runtime.TypeMeta{APIVersion:"v1", Kind:""}'`);
  rejects(() => decodeObject(envelope('example.test/v1', 'Widget', () => {})), 400, 'no kind "Widget" is registered for version "example.test/v1"');
  // A body without type information takes the endpoint's kind.
  assert.equal(decodeObject(envelope('', '', (w) => dataEntry(w, 'a', 'b')), { group: '', version: 'v1', kind: 'ConfigMap' }).kind, 'ConfigMap');
});

test('kinds without a binary form are 406, values of the wrong type 500', () => {
  rejects(
    () => encodeObject({ apiVersion: `${metaGroup()}/v1`, kind: 'Table', rows: [] }),
    406,
    'object *v1.Table does not implement the protobuf marshalling interface and cannot be encoded to a protobuf message',
  );
  rejects(
    () => encodeObject({ apiVersion: 'example.test/v1', kind: 'Widget' }),
    406,
    'object *unstructured.Unstructured does not implement the protobuf marshalling interface and cannot be encoded to a protobuf message',
  );
  rejects(() => encodeObject({ apiVersion: 'v1', kind: 'ConfigMap', data: { a: 1 } }), 500, /ConfigMap.*field data: expected string, got number/);
  assert.ok(isProtobufPayload(encodeObject({ apiVersion: 'v1', kind: 'Status', status: 'Failure', code: 404 })));
});

test('deeply nested schemas are bounded', () => {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < 150; i++) schema = { type: 'object', properties: { p: schema } };
  const crd = {
    apiVersion: `${group('apiextensions')}/v1`,
    kind: 'CustomResourceDefinition',
    metadata: { name: 'deep' },
    spec: { versions: [{ name: 'v1', schema: { openAPIV3Schema: schema } }] },
  };
  rejects(() => decodeObject(encodeObject(crd)), 400, /nesting depth exceeds the limit of 100/);
});

test('map keys sort by their UTF-8 bytes, as upstream sorts them', () => {
  // In UTF-16 the emoji (surrogate 0xD83D) sorts before U+FF21; in UTF-8 bytes
  // (F0 9F 98 80 against EF BC A1) it sorts after.
  const bytes = encodeObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { '\u{1F600}': 'emoji', '\uFF21': 'wide', a: 'ascii' } });
  const text = Buffer.from(bytes).toString('utf8');
  assert.ok(text.indexOf('ascii') < text.indexOf('wide') && text.indexOf('wide') < text.indexOf('emoji'), text);
});

test('a map key named __proto__ is an ordinary key both ways', () => {
  const cm = JSON.parse('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","creationTimestamp":null},"data":{"__proto__":"x","a":"b"}}') as Record<string, unknown>;
  const back = decodeObject(encodeObject(cm));
  assert.deepEqual(Object.keys(back.data as object), ['__proto__', 'a']);
  assert.equal(Object.getPrototypeOf(back.data), Object.prototype);
  assert.deepEqual(back, cm);
});
