// Every decoder over hostile input: deep, wide, aliased, prototype-keyed, huge-integer and
// malformed documents. Each must answer a value or a 400, never crash, never pollute
// prototypes, and never take more than a moment.
import { printedDuring } from '../testing/output.js';
import assert from 'node:assert/strict';
import { goJsonSyntaxError } from './go-json.js';
import { describe, it } from 'node:test';
import { ApiError } from '../apimachinery/errors.js';
import { checkApplyVersion, decodeApplyConfiguration, decodeApplyConfigurationAsync } from '../apply/request.js';
import { setFlavor } from '../naming/index.js';
import { jsonCodec } from './storage.js';
import { parseJsonText, stringifyJson } from './json.js';
import { createProtobufSerializer, decodeObject, decodeWatchEventMessage, encodeObject, encodeWatchEvent } from './protobuf/index.js';
import { watchFramer } from './watch-frame.js';
import { jsonSerializer, MalformedBodyError, parseJson, yamlSerializer } from './serializer.js';
import { OFFLOAD_THRESHOLD, readYamlAsync } from './yaml-pool.js';
import { allowedAliasRatio, readYaml } from './yaml.js';

setFlavor('orch');

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
const text = (b: Uint8Array): string => new TextDecoder().decode(b);
const DEPTH = /the object nesting depth exceeds the limit of 100/;
const EXCESSIVE = 'error converting YAML to JSON: yaml: document contains excessive aliasing';

function assertStatus(fn: () => unknown, code: number, message: RegExp | string): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof ApiError, `expected an ApiError, got ${String(e)}`);
    assert.equal(e.code, code);
    if (typeof message === 'string') assert.equal(e.message, message);
    else assert.match(e.message, message);
    return true;
  });
}

async function assertStatusAsync(p: Promise<unknown>, code: number, message: RegExp | string): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof ApiError, `expected an ApiError, got ${String(e)}`);
    assert.equal(e.code, code);
    if (typeof message === 'string') assert.equal(e.message, message);
    else assert.match(e.message, message);
    return true;
  });
}

/** The checks on a decoded `{"__proto__": {"x": 1}}`: an own key, prototypes untouched. */
function assertOwnProtoKey(v: unknown): void {
  const o = v as Record<string, unknown>;
  assert.ok(Object.hasOwn(o, '__proto__'), 'the key is an own property');
  assert.equal(Object.getPrototypeOf(o), Object.prototype);
  assert.deepEqual(Object.getOwnPropertyDescriptor(o, '__proto__')?.value, { x: 1 });
  assert.equal(({} as Record<string, unknown>).x, undefined);
}

const INT64_MIN = -9223372036854775808n;
const BEYOND = 9007199254740993n;

describe('JSON decoder', () => {
  it('refuses deep documents with 400 before parsing (arrays, objects), in the words of Go’s scanner', () => {
    const GO_DEPTH = /^invalid character '\[' exceeded max depth$/;
    assertStatus(() => parseJson(bytes('['.repeat(100_000))), 400, GO_DEPTH);
    assertStatus(() => parseJson(bytes('{"a":'.repeat(2000) + '1' + '}'.repeat(2000))), 400, /^invalid character '\{' exceeded max depth$/);
    // A syntax error before the overflowing bracket comes first, as in Go; one after it does not.
    assertStatus(() => parseJson(bytes('[[x' + '['.repeat(200))), 400, /^invalid character 'x' looking for beginning of value$/);
    assertStatus(() => parseJson(bytes('['.repeat(200) + 'x')), 400, GO_DEPTH);
    // Brackets inside strings do not count.
    assert.ok(parseJson(bytes(`["${'['.repeat(500)}"]`)));
    // 100 levels is the limit, not an error.
    assert.ok(parseJson(bytes('['.repeat(100) + ']'.repeat(100))));
  });

  it('reports Go’s depth error at Go’s own limit too (10,000 levels)', () => {
    const at = (depth: number): string | undefined => goJsonSyntaxError(bytes('['.repeat(depth) + ']'.repeat(depth)));
    assert.equal(at(10_000), undefined);
    assert.equal(at(10_001), "invalid character '[' exceeded max depth");
    assert.equal(goJsonSyntaxError(bytes('{"a":'.repeat(10_001) + '1' + '}'.repeat(10_001))), "invalid character '{' exceeded max depth");
  });

  it('reads wide documents', () => {
    const wide = `[${Array.from({ length: 200_000 }, (_, i) => i).join(',')}]`;
    assert.equal((parseJson(bytes(wide)) as unknown[]).length, 200_000);
  });

  it('keeps __proto__, constructor and prototype as own keys, on both read paths', () => {
    assertOwnProtoKey(parseJson(bytes('{"__proto__":{"x":1}}')));
    // A big integer takes the careful reader.
    const careful = parseJson(bytes('{"__proto__":{"x":1},"n":9007199254740993}')) as Record<string, unknown>;
    assertOwnProtoKey(careful);
    assert.equal(careful.n, BEYOND);
    const other = parseJson(bytes('{"constructor":{"prototype":{"x":1}},"prototype":2}')) as Record<string, unknown>;
    assert.deepEqual(Object.keys(other), ['constructor', 'prototype']);
    assert.equal(({} as Record<string, unknown>).x, undefined);
  });

  it('reads integers beyond 2^53 as exact bigints, everything else as numbers', () => {
    const v = parseJson(
      bytes('{"a":9007199254740993,"b":-9223372036854775808,"c":9223372036854775807,"d":9007199254740991,"e":1.5,"f":9007199254740993.0,"g":"9007199254740993","h":123456789012345678901234567890,"i":[1e21,0]}'),
    ) as Record<string, unknown>;
    assert.equal(v.a, BEYOND);
    assert.equal(v.b, INT64_MIN);
    assert.equal(v.c, 9223372036854775807n);
    assert.equal(v.d, 9007199254740991);
    assert.equal(v.e, 1.5);
    assert.equal(v.f, 9007199254740992);
    assert.equal(v.g, '9007199254740993');
    // Beyond int64 Go decodes a float too.
    assert.equal(v.h, 1.2345678901234568e29);
    assert.deepEqual(v.i, [1e21, 0]);
  });

  it('reads a lone surrogate escape as U+FFFD, in values and keys; pairs and escaped backslashes stay', () => {
    const v = parseJson(bytes('{"a":"x\\ud800y","\\udc00":1,"pair":"\\ud83d\\ude00","lit":"\\\\ud800"}')) as Record<string, unknown>;
    assert.equal(v.a, 'x\ufffdy');
    assert.equal(v['\ufffd'], 1);
    assert.equal(v.pair, '\u{1f600}');
    assert.equal(v.lit, '\\ud800');
  });

  it('words malformed documents as Go does', () => {
    assert.throws(
      () => parseJson(bytes('{"a":')),
      (e: unknown) => e instanceof MalformedBodyError && e.message === 'unexpected end of JSON input',
    );
    assert.throws(
      () => parseJson(bytes('{"a":1}x')),
      (e: unknown) => e instanceof MalformedBodyError && e.message === "invalid character 'x' after top-level value",
    );
  });

  it('writes bigints exactly, and everything else as JSON.stringify does (compact and pretty)', () => {
    const plain = { a: [1, { b: 2 }, null, 'x'], c: {}, d: [], e: 'q"', f: true, u: undefined, date: new Date(0) };
    const withBig = { ...plain, a: [1, { b: 2n }, null, 'x'] };
    assert.equal(stringifyJson(withBig), JSON.stringify(plain));
    assert.equal(stringifyJson(withBig, 2), JSON.stringify(plain, null, 2));
    assert.equal(stringifyJson({ n: INT64_MIN, m: BEYOND }), '{"n":-9223372036854775808,"m":9007199254740993}');
    assert.equal(text(jsonSerializer.encode({ n: BEYOND }, { pretty: false })), '{"n":9007199254740993}\n');
    const cyclic: Record<string, unknown> = { n: 1n };
    cyclic.self = cyclic;
    assert.throws(() => stringifyJson(cyclic), TypeError);
  });

  it('round-trips __proto__ keys and bigints through the encoders and the storage codec', () => {
    const v = parseJsonText('{"__proto__":{"x":1},"n":-9223372036854775808}');
    const again = parseJson(jsonSerializer.encode(v, { pretty: true }));
    assertOwnProtoKey(again);
    assert.equal((again as Record<string, unknown>).n, INT64_MIN);
    const stored = jsonCodec.decode(jsonCodec.encode(v as never));
    assertOwnProtoKey(stored);
    assert.equal((stored as Record<string, unknown>).n, INT64_MIN);
  });
});

describe('YAML decoder', () => {
  it('refuses deep documents with 400: flow, block, and nesting made by aliases', () => {
    assertStatus(() => yamlSerializer.decode(bytes('['.repeat(100_000))), 400, DEPTH);
    const block = Array.from({ length: 150 }, (_, i) => `${' '.repeat(i)}a:`).join('\n') + ' 1\n';
    assertStatus(() => yamlSerializer.decode(bytes(block)), 400, DEPTH);
    // 60 levels written, aliased inside another 60: 120 once expanded.
    const nest = (n: number, inner: string): string => '['.repeat(n) + inner + ']'.repeat(n);
    assertStatus(() => readYaml(`a: &x ${nest(60, '1')}\nb: ${nest(60, '*x')}\n`), 400, DEPTH);
  });

  it('reads wide documents', () => {
    const wide = Array.from({ length: 20_000 }, (_, i) => `k${i}: v${i}`).join('\n');
    assert.equal(Object.keys(readYaml(wide) as object).length, 20_000);
  });

  it('refuses alias expansion far beyond the document, by count and by size', () => {
    // 21 KB whose args are 100 aliases of one 20 KB string: 2 MB once expanded.
    const longString = `a: &s ${'x'.repeat(20_000)}\nargs: [${Array(100).fill('*s').join(', ')}]\n`;
    assertStatus(() => yamlSerializer.decode(bytes(longString)), 400, EXCESSIVE);
    // 300 KB that would store 30 MB.
    const larger = `a: &s ${'y'.repeat(300_000)}\nargs: [${Array(100).fill('*s').join(', ')}]\n`;
    assertStatus(() => yamlSerializer.decode(bytes(larger)), 400, EXCESSIVE);
    // Billion laughs: nodes, not bytes.
    const laughs = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 9; i++) laughs.push(`${'abcdefghi'[i]}: &${'abcdefghi'[i]} [${Array(9).fill(`*${'abcdefghi'[i - 1]}`).join(',')}]`);
    assertStatus(() => yamlSerializer.decode(bytes(laughs.join('\n'))), 400, EXCESSIVE);
  });

  it('accepts ordinary aliases and merge keys, each use its own copy', () => {
    const v = readYaml('base: &b {k: v, n: 1}\nuse: *b\nmerged:\n  <<: *b\n  n: 2\n') as Record<string, Record<string, unknown>>;
    assert.deepEqual(v.use, { k: 'v', n: 1 });
    assert.notEqual(v.use, v.base);
    assert.deepEqual(v.merged, { k: 'v', n: 2 });
    // Many aliases of something small are fine, as in Kubernetes.
    const many = `a: &a x\nl: [${Array(500).fill('*a').join(',')}]\n`;
    assert.equal(((readYaml(many) as Record<string, unknown[]>).l ?? []).length, 500);
  });

  it("follows go-yaml's alias ratio: 99% up to 400,000, 10% from 4,000,000, linear between", () => {
    assert.equal(allowedAliasRatio(1000), 0.99);
    assert.equal(allowedAliasRatio(400_000), 0.99);
    assert.ok(Math.abs(allowedAliasRatio(2_200_000) - 0.545) < 1e-9);
    assert.equal(allowedAliasRatio(4_000_000), 0.1);
  });

  it('keeps __proto__ as an own key, merge keys included', () => {
    assertOwnProtoKey(yamlSerializer.decode(bytes('__proto__: {x: 1}\n')));
    const merged = readYaml('a: &a {__proto__: {x: 1}}\nb:\n  <<: *a\n') as Record<string, unknown>;
    assertOwnProtoKey(merged.b);
    // The JSON fast path too.
    assertOwnProtoKey(yamlSerializer.decode(bytes('{"__proto__": {"x": 1}}')));
  });

  it('round-trips __proto__ keys and bigints through the YAML encoder', () => {
    const v = readYaml('__proto__: {x: 1}\nn: -9223372036854775808\nm: 9007199254740993\ns: 1\n') as Record<string, unknown>;
    assert.equal(v.n, INT64_MIN);
    assert.equal(v.m, BEYOND);
    assert.equal(v.s, 1);
    const again = yamlSerializer.decode(yamlSerializer.encode(v, { pretty: false })) as Record<string, unknown>;
    assertOwnProtoKey(again);
    assert.equal(again.n, INT64_MIN);
    assert.equal(again.m, BEYOND);
  });

  it('reads unknown tags as their plain value and never prints (a warning quotes the secret)', async () => {
    const printed = await printedDuring(() => {
      const v = yamlSerializer.decode(bytes('data:\n  password: !vault s3cret\n  other: !!binary aGVsbG8=\n')) as { data: Record<string, unknown> };
      assert.deepEqual(v.data, { password: 's3cret', other: 'hello' });
      yamlSerializer.encode(v, { pretty: false });
    });
    assert.deepEqual(printed, []);
  });

  it('reads JSON bodies with the JSON reader, and YAML that only looks like JSON with the YAML one', () => {
    assert.deepEqual(yamlSerializer.decode(bytes('{"a": [1, "x"], "b": null}')), { a: [1, 'x'], b: null });
    assert.deepEqual(yamlSerializer.decode(bytes('{a: 1, b: [x, y]}')), { a: 1, b: ['x', 'y'] });
    assert.equal((yamlSerializer.decode(bytes('{"n": 9007199254740993}')) as Record<string, unknown>).n, BEYOND);
    assert.equal((yamlSerializer.decode(bytes('s: "\\ud800"')) as Record<string, unknown>).s, '\ufffd');
  });

  it('words malformed documents with the serializer prefix, and apply with its own', () => {
    assert.throws(
      () => yamlSerializer.decode(bytes('a: [1, 2\n')),
      (e: unknown) => e instanceof MalformedBodyError && e.message.startsWith('error converting YAML to JSON: '),
    );
    assertStatus(() => decodeApplyConfiguration(bytes('a: [1, 2\n')), 400, /^error decoding YAML: error converting YAML to JSON: /);
  });

  it('reads large documents on a worker, with the same result and the same refusals', async () => {
    const doc = 'items:\n' + Array.from({ length: 3000 }, (_, i) => `- name: item-${i}\n  n: ${i === 7 ? '-9223372036854775808' : i}\n  __proto__: {x: 1}\n`).join('');
    assert.ok(doc.length > OFFLOAD_THRESHOLD);
    const onWorker = (await readYamlAsync(doc)) as { items: Record<string, unknown>[] };
    assert.deepEqual(onWorker, readYaml(doc));
    assert.equal(onWorker.items[7]!.n, INT64_MIN);
    assertOwnProtoKey(onWorker.items[0]);
    const aliased = `a: &s ${'x'.repeat(OFFLOAD_THRESHOLD)}\nargs: [${Array(200).fill('*s').join(', ')}]\n`;
    await assertStatusAsync(yamlSerializer.decodeAsync!(bytes(aliased)), 400, EXCESSIVE);
    await assertStatusAsync(decodeApplyConfigurationAsync(bytes(aliased)), 400, `error decoding YAML: ${EXCESSIVE}`);
    const deep = Array.from({ length: 150 }, (_, i) => `${' '.repeat(i)}a:`).join('\n') + ` ${'z'.repeat(OFFLOAD_THRESHOLD)}\n`;
    await assertStatusAsync(yamlSerializer.decodeAsync!(bytes(deep)), 400, DEPTH);
  });
});

describe('apply decoder', () => {
  it('refuses 100,000 [ with 400, twice (the second used to abort the process)', async () => {
    for (let i = 0; i < 2; i++) {
      assertStatus(() => decodeApplyConfiguration(bytes('['.repeat(100_000))), 400, DEPTH);
      await assertStatusAsync(decodeApplyConfigurationAsync(bytes('['.repeat(100_000))), 400, DEPTH);
    }
  });

  it('refuses alias amplification with the apply wording', () => {
    const amplified = `a: &s ${'x'.repeat(20_000)}\nargs: [${Array(100).fill('*s').join(', ')}]\n`;
    assertStatus(() => decodeApplyConfiguration(bytes(amplified)), 400, `error decoding YAML: ${EXCESSIVE}`);
  });

  it('refuses a body of another kind than the resource, as Kubernetes words it', () => {
    assertStatus(() => checkApplyVersion({ apiVersion: 'apps/v1', kind: 'StatefulSet' }, 'apps/v1', 'Deployment'), 400, 'invalid object type: apps/v1, Kind=StatefulSet');
    assertStatus(() => checkApplyVersion({ apiVersion: 'v1' }, 'v1', 'ConfigMap'), 400, 'invalid object type: /v1, Kind=');
    assert.doesNotThrow(() => checkApplyVersion({ apiVersion: 'apps/v1', kind: 'Deployment' }, 'apps/v1', 'Deployment'));
  });
});

/** A length-delimited field. */
function field(n: number, body: Uint8Array): Uint8Array {
  const len: number[] = [];
  let v = body.length;
  while (v > 0x7f) {
    len.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  len.push(v);
  return Uint8Array.from([(n << 3) | 2, ...len, ...body]);
}

function concat(...parts: Uint8Array[]): Uint8Array {
  return Uint8Array.from(parts.flatMap((p) => [...p]));
}

/** A binary envelope around raw message bytes. */
function envelope(apiVersion: string, kind: string, raw: Uint8Array): Uint8Array {
  return concat(Uint8Array.from([0x6b, 0x38, 0x73, 0x00]), field(1, concat(field(1, bytes(apiVersion)), field(2, bytes(kind)))), field(2, raw));
}

describe('protobuf decoder', () => {
  it('keeps map keys such as __proto__ as own keys (data and labels), and encodes them back', () => {
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'p', labels: JSON.parse('{"__proto__":"l"}') as Record<string, string> }, data: JSON.parse('{"__proto__":"d","constructor":"c"}') as Record<string, string> };
    const back = decodeObject(encodeObject(cm));
    const data = back.data as Record<string, unknown>;
    assert.ok(Object.hasOwn(data, '__proto__'));
    assert.equal(Object.getOwnPropertyDescriptor(data, '__proto__')?.value, 'd');
    assert.equal(data.constructor, 'c');
    assert.equal(Object.getPrototypeOf(data), Object.prototype);
    const labels = back.metadata?.labels as Record<string, unknown>;
    assert.equal(Object.getOwnPropertyDescriptor(labels, '__proto__')?.value, 'l');
    assert.equal(({} as Record<string, unknown>).x, undefined);
    // And through JSON and back again.
    const again = decodeObject(encodeObject(parseJson(jsonSerializer.encode(back, { pretty: false })) as never));
    assert.equal(Object.getOwnPropertyDescriptor(again.data, '__proto__')?.value, 'd');
  });

  it('reads and writes int64 beyond 2^53 exactly', () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: {
        containers: [{ name: 'c', image: 'i' }],
        tolerations: [
          { key: 'a', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: BEYOND },
          { key: 'b', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: INT64_MIN },
          { key: 'c', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: -1 },
        ],
      },
    };
    const back = decodeObject(encodeObject(pod as never));
    const tolerations = (back.spec as { tolerations: { tolerationSeconds: unknown }[] }).tolerations;
    assert.deepEqual(
      tolerations.map((t) => t.tolerationSeconds),
      [BEYOND, INT64_MIN, -1],
    );
  });

  it('frames watch events with int64 beyond 2^53 exactly, in JSON and binary', () => {
    const object = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'w' }, spec: { containers: [], tolerations: [{ key: 'k', tolerationSeconds: INT64_MIN }] } };
    assert.match(text(watchFramer(jsonSerializer).frame({ type: 'ADDED', object })), /"tolerationSeconds":-9223372036854775808\}/);
    const event = decodeWatchEventMessage(encodeWatchEvent({ type: 'ADDED', object: object as never }).subarray(4));
    assert.equal((event.object.spec as { tolerations: { tolerationSeconds: unknown }[] }).tolerations[0]!.tolerationSeconds, INT64_MIN);
  });

  it('refuses deeply nested unknown groups with 400 instead of recursing', () => {
    const cm = concat(field(1, field(1, bytes('x'))), new Uint8Array(100_000).fill((15 << 3) | 3));
    const serializer = createProtobufSerializer();
    assertStatus(() => serializer.decode(envelope('v1', 'ConfigMap', cm)), 400, DEPTH);
    // A few nested groups, closed, are skipped.
    const ok = concat(field(1, field(1, bytes('x'))), Uint8Array.from([(14 << 3) | 3, (13 << 3) | 3, (13 << 3) | 4, (14 << 3) | 4]));
    assert.equal((serializer.decode(envelope('v1', 'ConfigMap', ok)) as { metadata: { name: string } }).metadata.name, 'x');
  });

  it('refuses deep JSON carried in an envelope', () => {
    const raw = bytes('{"metadata":' + '{"a":'.repeat(500) + '1' + '}'.repeat(501));
    const env = concat(Uint8Array.from([0x6b, 0x38, 0x73, 0x00]), field(1, concat(field(1, bytes('v1')), field(2, bytes('ConfigMap')))), field(2, raw), field(4, bytes('application/json')));
    assertStatus(() => decodeObject(env), 400, DEPTH);
  });

  it('refuses malformed bodies with 400', () => {
    const serializer = createProtobufSerializer();
    for (const body of [Uint8Array.from([0x6b, 0x38, 0x73, 0x00, 0x12, 0xff]), envelope('v1', 'ConfigMap', Uint8Array.from([0x0a, 0x05, 0x0a])), envelope('v1', 'ConfigMap', Uint8Array.from([0x0f]))]) {
      assert.throws(
        () => serializer.decode(body),
        (e: unknown) => e instanceof ApiError && e.code === 400,
      );
    }
  });
});
