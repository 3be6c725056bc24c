// Integers beyond 2^53 reach the semantics as bigint (the decoders keep them exact). They are
// valid where an int64 is, out of range where an int32 is, and plain scalars to merge.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../apimachinery/errors.js';
import { checkObject } from './validate.js';
import { applyMergePatch } from '../patch/merge-patch.js';
import { applyStrategicMergePatch } from '../patch/strategic-merge-patch.js';
import { applyJsonPatch } from '../patch/json-patch.js';
import { catalogPatchSchema } from '../patch/catalog-schema.js';
import { fieldManagerForKind } from '../apply/catalog.js';
import type { KubeObject } from '../apimachinery/types.js';

const BIG = 2n ** 62n + 1n;
const POD = { group: '', version: 'v1', kind: 'Pod' };

function pod(spec: Record<string, unknown>): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i' }], ...spec } };
}

describe('bigint integers', () => {
  it('validate as int64 and fail as int32 (and int-or-string) with the number in the message', () => {
    assert.deepEqual(checkObject(pod({ activeDeadlineSeconds: BIG }), POD, { fieldValidation: 'Strict' }).errors, []);
    assert.throws(
      () => checkObject(pod({ activeDeadlineSeconds: 2n ** 63n }), POD, { fieldValidation: 'Ignore' }),
      (e: unknown) => e instanceof ApiError && /cannot unmarshal number 9223372036854775808 into Go struct field PodSpec\.spec\.activeDeadlineSeconds of type int64/.test(e.message),
    );
    const port = pod({ containers: [{ name: 'c', image: 'i', ports: [{ containerPort: BIG }] }] });
    assert.throws(
      () => checkObject(port, POD, { fieldValidation: 'Ignore' }),
      (e: unknown) => e instanceof ApiError && e.code === 400 && /cannot unmarshal number 4611686018427387905 into Go struct field .* of type int32/.test(e.message),
    );
  });

  it('merge, strategic merge and JSON patches carry them as scalars', () => {
    const schema = catalogPatchSchema('io.k8s.api.core.v1.Pod');
    const merged = applyMergePatch(pod({}), { spec: { activeDeadlineSeconds: BIG } }) as { spec: Record<string, unknown> };
    assert.equal(merged.spec.activeDeadlineSeconds, BIG);
    const again = applyMergePatch(merged, { spec: { activeDeadlineSeconds: BIG + 1n } }) as { spec: Record<string, unknown> };
    assert.equal(again.spec.activeDeadlineSeconds, BIG + 1n);
    const strategic = applyStrategicMergePatch(merged, { spec: { activeDeadlineSeconds: 5 } }, schema) as { spec: Record<string, unknown> };
    assert.equal(strategic.spec.activeDeadlineSeconds, 5);
    const back = applyStrategicMergePatch(strategic, { spec: { activeDeadlineSeconds: BIG } }, schema) as { spec: Record<string, unknown> };
    assert.equal(back.spec.activeDeadlineSeconds, BIG);
    const copied = applyJsonPatch(back, [
      { op: 'test', path: '/spec/activeDeadlineSeconds', value: BIG },
      { op: 'copy', from: '/spec/activeDeadlineSeconds', path: '/spec/terminationGracePeriodSeconds' },
    ]) as { spec: Record<string, unknown> };
    assert.equal(copied.spec.terminationGracePeriodSeconds, BIG);
  });

  it('server-side apply owns, compares and merges them', () => {
    const fm = fieldManagerForKind({ group: '', version: 'v1', kind: 'Pod', apiVersion: 'v1', resetFields: ['status'], now: () => new Date(0) });
    const live = fm.apply(undefined, pod({ activeDeadlineSeconds: BIG }) as KubeObject, 'a', false);
    assert.equal((live.spec as Record<string, unknown>).activeDeadlineSeconds, BIG);
    const same = fm.apply(live, pod({ activeDeadlineSeconds: BIG }) as KubeObject, 'a', false);
    assert.equal((same.spec as Record<string, unknown>).activeDeadlineSeconds, BIG);
    assert.throws(() => fm.apply(live, pod({ activeDeadlineSeconds: BIG + 1n }) as KubeObject, 'b', false), (e: unknown) => e instanceof ApiError && e.code === 409);
    const updated = fm.update(live, pod({ activeDeadlineSeconds: BIG, terminationGracePeriodSeconds: BIG }) as KubeObject, 'u');
    assert.equal((updated.spec as Record<string, unknown>).terminationGracePeriodSeconds, BIG);
  });
});
