// Strategic merge patch, table-driven. Expected results follow Kubernetes' documented
// behaviour (the API conventions' patch section, the strategic merge patch and "preserve
// order" design documents, the kubectl patch task page) and the fixture cases of
// k8s.io/apimachinery's strategicpatch package, re-expressed on Pod and Deployment shapes.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { applyStrategicMergePatch } from './strategic-merge-patch.js';
import { fixtureSchema, TYPE } from '../testing/patch/schema-fixture.js';
import { ApiError } from '../apimachinery/errors.js';

type Json = Record<string, unknown>;

interface Case {
  name: string;
  type?: string;
  original: Json;
  patch: unknown;
  expected?: Json;
  error?: { code: number; reason?: string; message: string };
}

function run(cases: Case[]): void {
  for (const c of cases) {
    it(c.name, () => {
      const schema = fixtureSchema(c.type ?? TYPE.pod);
      const originalCopy = structuredClone(c.original);
      const patchCopy = structuredClone(c.patch);
      if (c.error) {
        assert.throws(
          () => applyStrategicMergePatch(c.original, c.patch, schema),
          (e: unknown) => {
            assert.ok(e instanceof ApiError, `expected ApiError, got ${String(e)}`);
            assert.equal(e.status.code, c.error!.code);
            assert.equal(e.status.reason, c.error!.reason);
            assert.equal(e.status.message, c.error!.message);
            return true;
          },
        );
      } else {
        assert.deepEqual(applyStrategicMergePatch(c.original, c.patch, schema), c.expected);
      }
      // Pure: neither input changes.
      assert.deepEqual(c.original, originalCopy);
      assert.deepEqual(c.patch, patchCopy);
    });
  }
}

const podSpec = (spec: Json): Json => ({ spec });
const containers = (...list: Json[]): Json => podSpec({ containers: list });
const web = { name: 'web', image: 'nginx:1.25' };
const log = { name: 'log', image: 'busybox:1.36' };

describe('strategic merge patch: containers (merge key name)', () => {
  run([
    {
      name: 'merges the patch element into the container with the same name, others untouched',
      original: containers({ ...web, args: ['-g'] }, log),
      patch: containers({ name: 'web', image: 'nginx:1.26' }),
      expected: containers({ name: 'web', image: 'nginx:1.26', args: ['-g'] }, log),
    },
    {
      // The kubectl patch task page shows the added container listed first.
      name: 'puts a new container before the existing ones when no order is given',
      original: containers(web),
      patch: containers({ name: 'sidecar', image: 'envoy' }),
      expected: containers({ name: 'sidecar', image: 'envoy' }, web),
    },
    {
      name: '$patch: delete removes the element with that merge key',
      original: containers(web, log),
      patch: containers({ name: 'log', $patch: 'delete' }),
      expected: containers(web),
    },
    {
      name: '$patch: delete of a missing element changes nothing',
      original: containers(web),
      patch: containers({ name: 'gone', $patch: 'delete' }),
      expected: containers(web),
    },
    {
      name: '$patch: replace makes the list the patch elements',
      original: containers(web, log),
      patch: containers({ $patch: 'replace' }, { name: 'only', image: 'x' }),
      expected: containers({ name: 'only', image: 'x' }),
    },
    {
      name: '$patch: replace with no other element empties the list',
      original: containers(web, log),
      patch: containers({ $patch: 'replace' }),
      expected: containers(),
    },
    {
      name: 'null on the field deletes the whole list',
      original: podSpec({ containers: [web], initContainers: [log] }),
      patch: podSpec({ initContainers: null }),
      expected: podSpec({ containers: [web] }),
    },
    {
      name: 'null inside an element deletes that member',
      original: containers({ ...web, args: ['-g'] }),
      patch: containers({ name: 'web', args: null }),
      expected: containers(web),
    },
    {
      name: 'maps inside an element merge, null deletes a key',
      original: containers({ ...web, resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '500m' } } }),
      patch: containers({ name: 'web', resources: { limits: { cpu: '2', memory: null } } }),
      expected: containers({ ...web, resources: { limits: { cpu: '2' }, requests: { cpu: '500m' } } }),
    },
    {
      name: 'a list without a patch strategy inside an element is replaced',
      original: containers({ ...web, args: ['a', 'b'] }),
      patch: containers({ name: 'web', args: ['c'] }),
      expected: containers({ ...web, args: ['c'] }),
    },
    {
      name: 'a list that is absent from the original is taken from the patch, nulls dropped',
      original: podSpec({}),
      patch: containers({ name: 'web', image: 'nginx', args: null }),
      expected: containers({ name: 'web', image: 'nginx' }),
    },
    {
      name: 'an element without the merge key is a 500 naming the key',
      original: containers(web),
      patch: containers({ image: 'x' }),
      error: { code: 500, message: 'map: map[image:x] does not contain declared merge key: name' },
    },
    {
      name: '$patch: delete without the merge key is a 500',
      original: containers(web),
      patch: containers({ $patch: 'delete' }),
      error: { code: 500, message: 'map: map[$patch:delete] does not contain declared merge key: name' },
    },
    {
      name: '$patch: merge in a list is refused',
      original: containers(web),
      patch: containers({ $patch: 'merge' }),
      error: { code: 500, message: 'merging lists cannot yet be specified in the patch' },
    },
    {
      name: 'an unknown $patch value in a list element is refused',
      original: containers(web),
      patch: containers({ name: 'web', $patch: 'bogus' }),
      error: { code: 500, message: 'unknown patch type: bogus in map: map[$patch:bogus name:web]' },
    },
  ]);
});

const ports = (...list: Json[]): Json => containers({ ...web, ports: list });

describe('strategic merge patch: ports (merge key containerPort; list keys containerPort+protocol)', () => {
  run([
    {
      name: 'adds a port',
      original: ports({ containerPort: 80, protocol: 'TCP' }),
      patch: containers({ name: 'web', ports: [{ containerPort: 443, protocol: 'TCP' }] }),
      expected: ports({ containerPort: 443, protocol: 'TCP' }, { containerPort: 80, protocol: 'TCP' }),
    },
    {
      name: 'merges a port with the same containerPort',
      original: ports({ containerPort: 80, protocol: 'TCP' }),
      patch: containers({ name: 'web', ports: [{ containerPort: 80, name: 'http' }] }),
      expected: ports({ containerPort: 80, protocol: 'TCP', name: 'http' }),
    },
    {
      // The patch merge key is containerPort alone: a second protocol on the same port number
      // merges into the existing entry (the known limitation of strategic merge patch that
      // server-side apply's list-map keys lift).
      name: 'the same containerPort with another protocol merges into one entry',
      original: ports({ containerPort: 53, protocol: 'TCP' }),
      patch: containers({ name: 'web', ports: [{ containerPort: 53, protocol: 'UDP' }] }),
      expected: ports({ containerPort: 53, protocol: 'UDP' }),
    },
    {
      name: '$patch: delete by containerPort',
      original: ports({ containerPort: 80, protocol: 'TCP' }, { containerPort: 8080, protocol: 'TCP' }),
      patch: containers({ name: 'web', ports: [{ containerPort: 8080, $patch: 'delete' }] }),
      expected: ports({ containerPort: 80, protocol: 'TCP' }),
    },
    {
      name: 'kubectl apply: add one port and drop another, ordered by $setElementOrder',
      original: ports({ containerPort: 80, protocol: 'TCP' }, { containerPort: 8080, protocol: 'TCP' }),
      patch: containers({
        name: 'web',
        '$setElementOrder/ports': [{ containerPort: 8443 }, { containerPort: 80 }],
        ports: [
          { containerPort: 8443, protocol: 'TCP' },
          { containerPort: 8080, $patch: 'delete' },
        ],
      }),
      expected: ports({ containerPort: 8443, protocol: 'TCP' }, { containerPort: 80, protocol: 'TCP' }),
    },
  ]);
});

const env = (...list: Json[]): Json => containers({ ...web, env: list });
const A = { name: 'A', value: '1' };
const B = { name: 'B', value: '2' };
const C = { name: 'C', value: '3' };

describe('strategic merge patch: env (order matters)', () => {
  run([
    {
      name: 'changing one variable keeps every position',
      original: env(A, B, C),
      patch: containers({ name: 'web', env: [{ name: 'B', value: 'two' }] }),
      expected: env(A, { name: 'B', value: 'two' }, C),
    },
    {
      name: '$setElementOrder reorders, a server-only variable keeps its place after its predecessor',
      original: env(A, B, C, { name: 'X', value: 'server' }),
      patch: containers({ name: 'web', '$setElementOrder/env': [{ name: 'C' }, { name: 'A' }, { name: 'B' }] }),
      expected: env(C, A, B, { name: 'X', value: 'server' }),
    },
    {
      name: '$setElementOrder places a new variable where the order says',
      original: env(A, C),
      patch: containers({ name: 'web', '$setElementOrder/env': [{ name: 'A' }, { name: 'B' }, { name: 'C' }], env: [B] }),
      expected: env(A, B, C),
    },
    {
      name: 'switching value to valueFrom',
      original: env(A),
      patch: containers({ name: 'web', env: [{ name: 'A', value: null, valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }] }),
      expected: env({ name: 'A', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }),
    },
    {
      name: 'a patch list out of $setElementOrder order is a 500',
      original: env(A, B, C),
      patch: containers({
        name: 'web',
        '$setElementOrder/env': [{ name: 'A' }, { name: 'B' }, { name: 'C' }],
        env: [C, A],
      }),
      error: {
        code: 500,
        message:
          'The order in patch list:\n[map[name:C value:3] map[name:A value:1]]\n doesn\'t match $setElementOrder list:\n[map[name:A] map[name:B] map[name:C]]\n',
      },
    },
    {
      name: '$setElementOrder that is not a list is a 500',
      original: env(A),
      patch: containers({ name: 'web', '$setElementOrder/env': 'A' }),
      error: { code: 500, message: 'expected a []interface {}, but received a string' },
    },
    {
      name: 'a malformed $setElementOrder key is a 400',
      original: env(A),
      patch: containers({ name: 'web', $setElementOrderenv: [] }),
      error: { code: 400, reason: 'BadRequest', message: 'invalid patch format of setElementOrder list' },
    },
    {
      name: 'elements of different types are a 500',
      original: env(A),
      patch: containers({ name: 'web', env: ['A=1'] }),
      error: { code: 500, message: 'list element types are not identical: [[map[name:A value:1]] [A=1]]' },
    },
  ]);
});

const volumes = (...list: Json[]): Json => podSpec({ volumes: list });

describe('strategic merge patch: volumes (merge by name, retainKeys)', () => {
  run([
    {
      name: 'without $retainKeys a second volume source is merged in beside the first',
      original: volumes({ name: 'data', emptyDir: { medium: 'Memory' } }),
      patch: volumes({ name: 'data', configMap: { name: 'cm' } }),
      expected: volumes({ name: 'data', emptyDir: { medium: 'Memory' }, configMap: { name: 'cm' } }),
    },
    {
      name: '$retainKeys clears the members it does not list (switching the volume source)',
      original: volumes({ name: 'data', emptyDir: { medium: 'Memory' } }, { name: 'keep', secret: { secretName: 's' } }),
      patch: volumes({ name: 'data', $retainKeys: ['configMap', 'name'], configMap: { name: 'cm' } }),
      expected: volumes({ name: 'data', configMap: { name: 'cm' } }, { name: 'keep', secret: { secretName: 's' } }),
    },
    {
      name: 'members of inline structs merge (configMap of VolumeSource, name of LocalObjectReference)',
      original: volumes({ name: 'conf', configMap: { name: 'a', defaultMode: 420 } }),
      patch: volumes({ name: 'conf', configMap: { name: 'b' } }),
      expected: volumes({ name: 'conf', configMap: { name: 'b', defaultMode: 420 } }),
    },
    {
      name: '$retainKeys must list every member the patch sets',
      original: volumes({ name: 'data', emptyDir: {} }),
      patch: volumes({ name: 'data', $retainKeys: ['name'], configMap: { name: 'cm' } }),
      error: { code: 400, reason: 'BadRequest', message: 'invalid patch format of retainKeys' },
    },
    {
      name: '$retainKeys that is not a list is a 400',
      original: volumes({ name: 'data', emptyDir: {} }),
      patch: volumes({ name: 'data', $retainKeys: 'name' }),
      error: { code: 400, reason: 'BadRequest', message: 'invalid patch format of retainKeys' },
    },
  ]);
});

describe('strategic merge patch: tolerations (no patch strategy)', () => {
  run([
    {
      // The kubectl patch task page: tolerations are replaced, not merged.
      name: 'the list is replaced',
      original: podSpec({ tolerations: [{ key: 'a', operator: 'Exists', effect: 'NoSchedule' }] }),
      patch: podSpec({ tolerations: [{ key: 'b', operator: 'Equal', value: 'v' }] }),
      expected: podSpec({ tolerations: [{ key: 'b', operator: 'Equal', value: 'v' }] }),
    },
    {
      name: 'an empty list empties it',
      original: podSpec({ tolerations: [{ key: 'a', operator: 'Exists' }] }),
      patch: podSpec({ tolerations: [] }),
      expected: podSpec({ tolerations: [] }),
    },
  ]);
});

const meta = (metadata: Json): Json => ({ metadata });

describe('strategic merge patch: lists of scalars with the merge strategy (finalizers)', () => {
  run([
    {
      name: 'adds without duplicates',
      original: meta({ finalizers: ['x', 'y'] }),
      patch: meta({ finalizers: ['y', 'z'] }),
      expected: meta({ finalizers: ['x', 'y', 'z'] }),
    },
    {
      name: 'a value absent from the original goes before the others',
      original: meta({ finalizers: ['x', 'y'] }),
      patch: meta({ finalizers: ['z'] }),
      expected: meta({ finalizers: ['z', 'x', 'y'] }),
    },
    {
      name: '$deleteFromPrimitiveList removes every occurrence',
      original: meta({ finalizers: ['x', 'y', 'x'] }),
      patch: meta({ '$deleteFromPrimitiveList/finalizers': ['x'] }),
      expected: meta({ finalizers: ['y'] }),
    },
    {
      name: '$deleteFromPrimitiveList never adds a list or a value',
      original: meta({ name: 'n', finalizers: ['x'] }),
      patch: meta({ '$deleteFromPrimitiveList/finalizers': ['q'], '$deleteFromPrimitiveList/other': ['q'] }),
      expected: meta({ name: 'n', finalizers: ['x'] }),
    },
    {
      name: 'add, delete and order in one patch (kubectl apply)',
      original: meta({ finalizers: ['x', 'y', 'server'] }),
      patch: meta({
        '$setElementOrder/finalizers': ['y', 'new'],
        '$deleteFromPrimitiveList/finalizers': ['x'],
        finalizers: ['new'],
      }),
      expected: meta({ finalizers: ['y', 'new', 'server'] }),
    },
    {
      name: 'a malformed $deleteFromPrimitiveList key is a 400',
      original: meta({ finalizers: ['x'] }),
      patch: meta({ $deleteFromPrimitiveList: ['x'] }),
      error: { code: 400, reason: 'BadRequest', message: 'invalid patch format of primitive list' },
    },
    {
      name: 'lists of lists are a 422',
      original: meta({ finalizers: [] }),
      patch: meta({ finalizers: [['x']] }),
      error: { code: 422, reason: 'Invalid', message: 'the server rejected our request due to an error in our request' },
    },
    {
      name: 'ownerReferences merge by uid',
      original: meta({ ownerReferences: [{ uid: '1', kind: 'ReplicaSet', name: 'a' }] }),
      patch: meta({ ownerReferences: [{ uid: '1', name: 'b' }] }),
      expected: meta({ ownerReferences: [{ uid: '1', kind: 'ReplicaSet', name: 'b' }] }),
    },
  ]);
});

describe('strategic merge patch: maps and structs', () => {
  run([
    {
      name: 'map members merge and null deletes one',
      original: meta({ labels: { app: 'web', tier: 'front' } }),
      patch: meta({ labels: { tier: null, env: 'prod' } }),
      expected: meta({ labels: { app: 'web', env: 'prod' } }),
    },
    {
      name: '$patch: replace on a map takes the patch as is',
      original: meta({ labels: { app: 'web', tier: 'front' } }),
      patch: meta({ labels: { $patch: 'replace', only: '1' } }),
      expected: meta({ labels: { only: '1' } }),
    },
    {
      name: '$patch: delete on a map empties it',
      original: meta({ name: 'p', labels: { app: 'web' } }),
      patch: meta({ labels: { $patch: 'delete' } }),
      expected: meta({ name: 'p', labels: {} }),
    },
    {
      name: '$patch: replace at the top replaces the whole object',
      original: { metadata: { name: 'p' }, spec: { containers: [web] } },
      patch: { $patch: 'replace', metadata: { name: 'q' } },
      expected: { metadata: { name: 'q' } },
    },
    {
      name: '$patch: merge on a map is refused',
      original: meta({ labels: { app: 'web' } }),
      patch: meta({ labels: { $patch: 'merge' } }),
      error: { code: 500, message: 'unknown patch type: merge in map: map[$patch:merge]' },
    },
    {
      name: 'a $patch that is not a string is named as Go prints it',
      original: meta({ labels: { app: 'web' } }),
      patch: meta({ labels: { $patch: 1 } }),
      error: { code: 500, message: 'unknown patch type: %!s(int64=1) in map: map[$patch:1]' },
    },
    {
      name: 'a map with no patch strategy merges even when its list type is atomic (nodeSelector)',
      original: podSpec({ nodeSelector: { disk: 'ssd' } }),
      patch: podSpec({ nodeSelector: { zone: 'a' } }),
      expected: podSpec({ nodeSelector: { disk: 'ssd', zone: 'a' } }),
    },
    {
      name: 'the replace strategy replaces a struct (PodDisruptionBudget selector)',
      type: 'io.k8s.api.policy.v1.PodDisruptionBudget',
      original: { spec: { minAvailable: 1, selector: { matchLabels: { a: '1', b: '2' } } } },
      patch: { spec: { selector: { matchLabels: { c: '3' } } } },
      expected: { spec: { minAvailable: 1, selector: { matchLabels: { c: '3' } } } },
    },
    {
      name: 'a value of another type replaces the original, and the result that does not fit the type is a 422 on patch',
      original: podSpec({ containers: [web], nodeSelector: { disk: 'ssd' } }),
      patch: podSpec({ nodeSelector: 'none' }),
      error: { code: 422, reason: 'Invalid', message: ' "" is invalid: patch: Invalid value: "map[spec:map[nodeSelector:none]]": cannot restore map from string' },
    },
    {
      name: 'a null patch changes nothing',
      original: meta({ name: 'p' }),
      patch: null,
      expected: meta({ name: 'p' }),
    },
    {
      name: 'a patch that is not an object is a 400',
      original: meta({ name: 'p' }),
      patch: ['x'],
      error: { code: 400, reason: 'BadRequest', message: 'json: cannot unmarshal array into Go value of type map[string]interface {}' },
    },
    {
      name: 'an unknown field on both sides is a 500 naming the struct',
      original: podSpec({ bogus: { a: 1 } }),
      patch: podSpec({ bogus: { b: 2 } }),
      error: { code: 500, message: 'unable to find api field in struct PodSpec for the json field "bogus"' },
    },
    {
      name: 'an unknown field only in the patch is taken as is',
      original: podSpec({}),
      patch: podSpec({ bogus: { b: 2 } }),
      expected: podSpec({ bogus: { b: 2 } }),
    },
    {
      name: 'scalar members of a raw extension merge',
      type: TYPE.controllerRevision,
      original: { data: { a: 1, b: 2 }, revision: 1 },
      patch: { data: { b: 3, a: null }, revision: 2 },
      expected: { data: { b: 3 }, revision: 2 },
    },
    {
      name: 'nested objects of a raw extension cannot be merged',
      type: TYPE.controllerRevision,
      original: { data: { spec: { a: 1 } } },
      patch: { data: { spec: { b: 2 } } },
      error: { code: 500, message: 'unable to find api field in struct RawExtension for the json field "spec"' },
    },
  ]);
});

const named = (...names: (string | Json)[]): Json =>
  containers(...names.map((n) => (typeof n === 'string' ? { name: n } : n)));

// Ordering facts of the strategicpatch fixture cases, on containers.
describe('strategic merge patch: element order', () => {
  run([
    {
      name: 'server-only elements stay after the element they followed; an unknown one goes last',
      original: named('c1', 'c3', 'c4', 'c2', 'c9'),
      patch: podSpec({ '$setElementOrder/containers': [{ name: 'c4' }, { name: 'c2' }, { name: 'c3' }, { name: 'c1' }] }),
      expected: named('c4', 'c2', 'c3', 'c1', 'c9'),
    },
    {
      name: '$setElementOrder may name elements that exist nowhere',
      original: named('c1', 'c3'),
      patch: podSpec({
        '$setElementOrder/containers': [{ name: 'c3' }, { name: 'c2' }, { name: 'c1' }],
        containers: [{ name: 'c3', image: '3' }, { name: 'c1', image: '1' }],
      }),
      expected: named({ name: 'c3', image: '3' }, { name: 'c1', image: '1' }),
    },
    {
      // The server merges in place: the deleted c1's slot is taken by the added c3, so c3 is
      // ordered against c4 by that slot.
      name: 'an added element takes the slot of a deleted one when ordering server-only elements',
      original: named('c1', { name: 'c2', image: 'b' }, { name: 'c4', image: 'c' }),
      patch: podSpec({
        '$setElementOrder/containers': [{ name: 'c2' }, { name: 'c3' }],
        containers: [{ name: 'c3' }, { name: 'c1', $patch: 'delete' }],
      }),
      expected: named({ name: 'c2', image: 'b' }, { name: 'c4', image: 'c' }, 'c3'),
    },
    {
      name: 'a server-only element stays first when the freed slot puts it before the patch elements',
      original: named({ name: 'c1', image: 'a' }, { name: 'c4', image: 'c' }),
      patch: podSpec({
        '$setElementOrder/containers': [{ name: 'c2' }, { name: 'c3' }],
        containers: [{ name: 'c2' }, { name: 'c3' }, { name: 'c1', $patch: 'delete' }],
      }),
      expected: named({ name: 'c4', image: 'c' }, 'c2', 'c3'),
    },
    {
      name: '$patch: delete removes every element with the key',
      original: named('c1', 'c1', { name: 'c2', image: 'a' }, 'c3', 'c3'),
      patch: named({ name: 'c1', $patch: 'delete' }, { name: 'c3', $patch: 'delete' }),
      expected: named({ name: 'c2', image: 'a' }),
    },
    {
      name: 'duplicates of a key are kept together where the first one is ordered',
      original: named('c1', { name: 'c2', image: 'dup1' }, 'c3', { name: 'c2', image: 'dup2' }, 'c4'),
      patch: podSpec({
        '$setElementOrder/containers': [{ name: 'c2' }, { name: 'c1' }, { name: 'c4' }, { name: 'c3' }, { name: 'c2' }],
      }),
      expected: named({ name: 'c2', image: 'dup1' }, { name: 'c2', image: 'dup2' }, 'c1', 'c4', 'c3'),
    },
    {
      name: 'scalars: $setElementOrder with a deletion keeps an unknown server value last',
      original: meta({ finalizers: ['1', '2', '3', '4'] }),
      patch: meta({ '$setElementOrder/finalizers': ['1', '2'], '$deleteFromPrimitiveList/finalizers': ['3'] }),
      expected: meta({ finalizers: ['1', '2', '4'] }),
    },
  ]);
});

describe('strategic merge patch: kubectl apply on a Deployment', () => {
  const deployment = (containerList: Json[], strategy: Json = { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%' } }) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', labels: { app: 'web' } },
    spec: {
      replicas: 2,
      strategy,
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: containerList } },
    },
  });
  const live = deployment([
    { name: 'web', image: 'nginx:1.25', ports: [{ containerPort: 80, protocol: 'TCP' }], env: [A, B] },
    { name: 'log', image: 'busybox:1.36' },
  ]);
  run([
    {
      // Last applied: web(nginx:1.25, env A B) and log; new manifest: web(nginx:1.26, env A C),
      // metrics added, log removed. This is the patch kubectl computes for that change.
      name: 'updates, adds and removes containers in the manifest order',
      type: TYPE.deployment,
      original: live,
      patch: {
        spec: {
          template: {
            spec: {
              '$setElementOrder/containers': [{ name: 'web' }, { name: 'metrics' }],
              containers: [
                {
                  name: 'web',
                  image: 'nginx:1.26',
                  '$setElementOrder/env': [{ name: 'A' }, { name: 'C' }],
                  env: [C, { name: 'B', $patch: 'delete' }],
                },
                { name: 'metrics', image: 'exporter:2' },
                { name: 'log', $patch: 'delete' },
              ],
            },
          },
        },
      },
      expected: deployment([
        { name: 'web', image: 'nginx:1.26', ports: [{ containerPort: 80, protocol: 'TCP' }], env: [A, C] },
        { name: 'metrics', image: 'exporter:2' },
      ]),
    },
    {
      name: 'switching the strategy type clears rollingUpdate through $retainKeys',
      type: TYPE.deployment,
      original: live,
      patch: { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate', rollingUpdate: null } } },
      expected: { ...live, spec: { ...(live.spec as Json), strategy: { type: 'Recreate' } } },
    },
  ]);
});

describe('strategic merge patch: kinds without strategic information', () => {
  it('is a 415 listing the patch types a custom resource accepts', () => {
    const schema = fixtureSchema('com.example.v1.Widget');
    assert.throws(
      () => applyStrategicMergePatch({ spec: {} }, { spec: { a: 1 } }, schema),
      (e: unknown) => {
        assert.ok(e instanceof ApiError);
        assert.deepEqual(e.status, {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message:
            'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
          reason: 'UnsupportedMediaType',
          code: 415,
        });
        return true;
      },
    );
  });
});
