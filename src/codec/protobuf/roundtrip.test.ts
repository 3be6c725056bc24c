// Every built-in kind with a binary form, every field set to a non-trivial value:
// JSON -> binary -> JSON gives the original back, in both naming flavors.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { apiVersionOf, type KubeObject } from '../../apimachinery/types.js';
import { setFlavor, type Flavor } from '../../naming/index.js';
import { decodeObject, encodeObject, isProtobufPayload } from './index.js';
import { builtinKinds, sampleObject } from '../../testing/protobuf-samples.js';

for (const f of ['orch', 'kubernetes'] as Flavor[]) {
  test(`every built-in kind round-trips through the binary form (${f} flavor)`, () => {
    setFlavor(f);
    const kinds = builtinKinds();
    // Lists, meta kinds and every served group's kinds: one per type, over a hundred and fifty.
    assert.ok(kinds.length > 150, `only ${kinds.length} kinds in the catalog`);
    const failures: string[] = [];
    for (const { id, gvk } of kinds) {
      const obj: KubeObject = { kind: gvk.kind, apiVersion: apiVersionOf(gvk), ...sampleObject(id) };
      try {
        const bytes = encodeObject(obj, gvk);
        assert.ok(isProtobufPayload(bytes));
        assert.deepEqual(decodeObject(bytes), obj);
        // Decoding again must give the same bytes: nothing depends on key order.
        assert.deepEqual(Buffer.from(encodeObject(decodeObject(bytes), gvk)), Buffer.from(bytes));
      } catch (e) {
        failures.push(`${apiVersionOf(gvk)} ${gvk.kind}: ${(e as Error).message.slice(0, 400)}`);
      }
    }
    assert.deepEqual(failures, []);
  });
}

test('samples reach into every kind of value', () => {
  setFlavor('orch');
  const crd = builtinKinds().find((k) => k.gvk.kind === 'CustomResourceDefinition')!;
  const text = JSON.stringify(sampleObject(crd.id));
  // JSON schemas nest, carry booleans-or-schemas and orch-named extensions.
  assert.match(text, /"x-orch-preserve-unknown-fields":true/);
  assert.match(text, /"additionalProperties":(false|\{)/);
  const pod = builtinKinds().find((k) => k.gvk.kind === 'Pod' && k.gvk.group === '')!;
  const podText = JSON.stringify(sampleObject(pod.id));
  for (const s of ['"100m"', '"1Gi"', '"2024-05-06T07:08:09Z"', '8080', '-5', 'grüße', '🚀']) assert.ok(podText.includes(s), s);
});
