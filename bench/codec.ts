// The binary envelope codec against JSON on a realistic Pod (as a server stores it: defaulted,
// with status and managed fields) and on a 10,000-item PodList, encode and decode, in the
// same run. Rounds interleave the contenders; each figure is the median of its rounds.
//   npm run bench:codec [-- <milliseconds per measurement> [<rounds>]]

import type { KubeList, KubeObject } from '../src/apimachinery/types.js';
import { decodeObject, encodeObject } from '../src/codec/protobuf/index.js';
import { jsonSerializer } from '../src/codec/serializer.js';

const minMs = Number(process.argv[2] ?? '700');
const rounds = Number(process.argv[3] ?? '5');
const textEncoder = new TextEncoder();
const textDecoder = new TextDecoder();

function pod(i: number): KubeObject {
  const name = `web-${i}`;
  const containers = Array.from({ length: 2 }, (_, c) => ({
    name: `app-${c}`,
    image: `registry.example.com/team/app-${c}:1.2.${c}`,
    command: ['/bin/server'],
    args: ['--port=8080', '--log-level=info'],
    ports: [{ name: 'http', containerPort: 8080 + c, protocol: 'TCP' }],
    env: Array.from({ length: 5 }, (_, j) => ({ name: `ENV_${j}`, value: `value-${c}-${j}` })).concat([
      { name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } } as never,
    ]),
    resources: { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m', memory: '128Mi' } },
    volumeMounts: [
      { name: 'data', mountPath: '/data' },
      { name: 'kube-api-access-x7k2p', readOnly: true, mountPath: '/var/run/secrets/serviceaccount' },
    ],
    livenessProbe: { httpGet: { path: '/healthz', port: 8080, scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 },
    readinessProbe: { httpGet: { path: '/ready', port: 'http', scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 5, successThreshold: 1, failureThreshold: 3 },
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
    imagePullPolicy: 'IfNotPresent',
  }));
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      generateName: 'web-',
      namespace: 'production',
      uid: `5b1c7f3e-2a4d-4c8e-9f10-${String(i).padStart(12, '0')}`,
      resourceVersion: String(100000 + i),
      creationTimestamp: '2024-03-01T10:20:30Z',
      labels: { app: 'web', tier: 'frontend', 'pod-template-hash': '7d4b9c8f6d' },
      annotations: { 'example.com/checksum': 'a'.repeat(64) },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-7d4b9c8f6d', uid: '0e5d6c2a-8f1b-4e3a-b7c9-1234567890ab', controller: true, blockOwnerDeletion: true }],
      managedFields: [
        {
          manager: 'kube-controller-manager',
          operation: 'Update',
          apiVersion: 'v1',
          time: '2024-03-01T10:20:30Z',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:metadata': { 'f:generateName': {}, 'f:labels': { '.': {}, 'f:app': {} }, 'f:ownerReferences': {} }, 'f:spec': { 'f:containers': {} } },
        },
      ],
    },
    spec: {
      volumes: [
        { name: 'data', emptyDir: {} },
        { name: 'kube-api-access-x7k2p', projected: { sources: [{ serviceAccountToken: { expirationSeconds: 3607, path: 'token' } }], defaultMode: 420 } },
      ],
      containers,
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      serviceAccountName: 'default',
      serviceAccount: 'default',
      nodeName: `node-${i % 50}`,
      securityContext: {},
      schedulerName: 'default-scheduler',
      tolerations: [
        { key: 'node.example.com/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        { key: 'node.example.com/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      ],
      priority: 0,
      enableServiceLinks: true,
      preemptionPolicy: 'PreemptLowerPriority',
    },
    status: {
      phase: 'Running',
      conditions: ['Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((type) => ({
        type,
        status: 'True',
        lastProbeTime: null,
        lastTransitionTime: '2024-03-01T10:20:35Z',
      })),
      hostIP: '10.0.0.12',
      podIP: `10.244.${i % 250}.${i % 200}`,
      podIPs: [{ ip: `10.244.${i % 250}.${i % 200}` }],
      startTime: '2024-03-01T10:20:30Z',
      containerStatuses: containers.map((c) => ({
        name: c.name,
        state: { running: { startedAt: '2024-03-01T10:20:33Z' } },
        lastState: {},
        ready: true,
        restartCount: 0,
        image: c.image,
        imageID: `registry.example.com/team/${c.name}@sha256:${'f'.repeat(64)}`,
        containerID: `containerd://${'c'.repeat(64)}`,
        started: true,
      })),
      qosClass: 'Burstable',
    },
  };
}

function podList(n: number): KubeList {
  return { apiVersion: 'v1', kind: 'PodList', metadata: { resourceVersion: '200000' }, items: Array.from({ length: n }, (_, i) => pod(i)) };
}

/** Milliseconds per call of one timed loop. */
function timeLoop(fn: () => unknown): number {
  let runs = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < minMs) {
    fn();
    runs++;
    elapsed = performance.now() - start;
  }
  return elapsed / runs;
}

/**
 * Milliseconds per call of each function: the rounds interleave the functions, so that a
 * machine busy with other work slows all of them alike; each figure is a median.
 */
function perOp(fns: (() => unknown)[]): number[] {
  for (const fn of fns) for (let i = 0; i < 3; i++) fn();
  const results: number[][] = fns.map(() => []);
  for (let r = 0; r < rounds; r++) fns.forEach((fn, i) => results[i].push(timeLoop(fn)));
  return results.map((rs) => rs.sort((a, b) => a - b)[Math.floor(rs.length / 2)]);
}

function report(label: string, bytes: number, ms: number, baselineMs?: number): void {
  const perSec = 1000 / ms;
  const mbs = (bytes * perSec) / (1024 * 1024);
  const ratio = baselineMs === undefined ? '' : `  ${(baselineMs / ms).toFixed(2)}x JSON`;
  console.log(`  ${label.padEnd(36)} ${ms < 1 ? `${(ms * 1000).toFixed(1)} µs` : `${ms.toFixed(1)} ms`}/op  ${perSec.toFixed(0).padStart(8)} ops/s  ${mbs.toFixed(0).padStart(5)} MiB/s${ratio}`);
}

function compare(title: string, obj: KubeObject | KubeList): void {
  const json = JSON.stringify(obj);
  const jsonBytes = textEncoder.encode(json);
  const binary = encodeObject(obj as KubeObject);
  console.log(`${title}: JSON ${jsonBytes.length} bytes, binary ${binary.length} bytes`);
  const [jsonEncode, jsonEncodeBytes, serverEncode, binEncode] = perOp([
    () => JSON.stringify(obj),
    () => textEncoder.encode(JSON.stringify(obj)),
    () => jsonSerializer.encode(obj, { pretty: false }),
    () => encodeObject(obj as KubeObject),
  ]);
  report('encode JSON.stringify', jsonBytes.length, jsonEncode);
  report('encode JSON.stringify + UTF-8', jsonBytes.length, jsonEncodeBytes);
  report('encode server JSON (Go field order)', jsonBytes.length, serverEncode, jsonEncode);
  report('encode binary', binary.length, binEncode, jsonEncode);
  const [jsonDecode, jsonDecodeBytes, binDecode] = perOp([
    () => JSON.parse(json),
    () => JSON.parse(textDecoder.decode(jsonBytes)),
    () => decodeObject(binary),
  ]);
  report('decode JSON.parse', jsonBytes.length, jsonDecode);
  report('decode UTF-8 + JSON.parse', jsonBytes.length, jsonDecodeBytes);
  report('decode binary', binary.length, binDecode, jsonDecode);
}

/** The object as a server answers it in JSON: every field upstream prints, in upstream order. */
function served<T extends KubeObject | KubeList>(obj: T): T {
  return decodeObject(encodeObject(obj as KubeObject)) as T;
}

/** The server's JSON encoding of objects built out of Go's field order (`apiVersion` first), which it reorders. */
function reordered(title: string, obj: KubeObject | KubeList): void {
  const bytes = jsonSerializer.encode(obj, { pretty: false }).length;
  console.log(`${title}, built out of order:`);
  const [plain, server] = perOp([() => textEncoder.encode(JSON.stringify(obj)), () => jsonSerializer.encode(obj, { pretty: false })]);
  report('encode JSON.stringify + UTF-8', bytes, plain);
  report('encode server JSON (Go field order)', bytes, server, plain);
}

compare('Pod', served(pod(1)));
compare('PodList (10,000 pods)', served(podList(10_000)));
reordered('Pod', pod(1));
reordered('PodList (10,000 pods)', podList(10_000));
