import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FieldSet, fieldElement as f, formatPath, keyElement, valueElement } from './fieldpath.js';

describe('FieldSet and the FieldsV1 encoding', () => {
  it('encodes leaves as {} and members with children with "."', () => {
    const s = FieldSet.of([
      [f('metadata'), f('labels')],
      [f('metadata'), f('labels'), f('app')],
      [f('spec'), f('replicas')],
      [f('metadata'), f('finalizers'), valueElement('a/b')],
    ]);
    assert.deepEqual(s.toFieldsV1(), {
      'f:metadata': { 'f:finalizers': { 'v:"a/b"': {} }, 'f:labels': { '.': {}, 'f:app': {} } },
      'f:spec': { 'f:replicas': {} },
    });
  });

  it('writes list-map keys sorted by name and reads its own encoding back', () => {
    const pe = keyElement({ protocol: 'TCP', containerPort: 80 });
    assert.equal(pe, 'k:{"containerPort":80,"protocol":"TCP"}');
    const s = FieldSet.of([[f('ports'), pe], [f('ports'), pe, f('containerPort')]]);
    const back = FieldSet.fromFieldsV1(JSON.parse(JSON.stringify(s.toFieldsV1())));
    assert.ok(back.equals(s));
    assert.ok(back.has([f('ports'), pe]));
    assert.ok(!back.has([f('ports')]));
  });

  it('rejects what is not FieldsV1', () => {
    assert.throws(() => FieldSet.fromFieldsV1({ 'x:a': {} }), /unexpected path element/);
    assert.throws(() => FieldSet.fromFieldsV1([]), /JSON object/);
  });

  it('prints paths the way conflict messages do', () => {
    assert.equal(formatPath([f('spec'), f('replicas')]), '.spec.replicas');
    assert.equal(formatPath([f('spec'), f('containers'), keyElement({ name: 'app' }), f('image')]), '.spec.containers[name="app"].image');
    assert.equal(formatPath([f('metadata'), f('finalizers'), valueElement('x')]), '.metadata.finalizers[="x"]');
  });

  it('computes union, difference, intersection and recursive difference', () => {
    const a = FieldSet.of([[f('a')], [f('b'), f('c')], [f('b'), f('d')]]);
    const b = FieldSet.of([[f('b'), f('c')], [f('e')]]);
    assert.deepEqual(a.union(b).paths().map(formatPath), ['.a', '.b.c', '.b.d', '.e']);
    assert.deepEqual(a.difference(b).paths().map(formatPath), ['.a', '.b.d']);
    assert.deepEqual(a.intersection(b).paths().map(formatPath), ['.b.c']);
    assert.deepEqual(a.recursiveDifference(FieldSet.of([[f('b')]])).paths().map(formatPath), ['.a']);
    assert.ok(a.hasAtOrBelow([f('b')]));
    assert.ok(!a.hasAtOrBelow([f('e')]));
  });
});
