// JSON.parse against the duplicate-aware reader on a typical Pod (about 4 KiB) and a
// large ConfigMap (about 1 MiB). Run: node <build>/bench/json.js

import { parseJsonWithDuplicates } from '../src/codec/strict-json.js';

function pod(indent?: number): string {
  const containers = Array.from({ length: 3 }, (_, i) => ({
    name: `container-${i}`,
    image: `registry.example.com/team/app-${i}:1.2.${i}`,
    command: ['/bin/server', '--port=8080', '--verbose'],
    ports: [{ containerPort: 8080 + i, protocol: 'TCP', name: `http-${i}` }],
    env: Array.from({ length: 6 }, (_, j) => ({ name: `ENV_${j}`, value: `value-${i}-${j}` })),
    resources: { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m', memory: '128Mi' } },
    volumeMounts: [{ name: 'data', mountPath: `/data/${i}` }],
    readinessProbe: { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 10 },
  }));
  const obj = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'web-0',
      namespace: 'default',
      labels: { app: 'web', tier: 'frontend', release: 'stable' },
      annotations: { 'example.com/checksum': 'a'.repeat(64) },
    },
    spec: {
      containers,
      volumes: [{ name: 'data', emptyDir: {} }],
      nodeSelector: { disk: 'ssd' },
      tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'web', effect: 'NoSchedule' }],
    },
  };
  return JSON.stringify(obj, null, indent);
}

function configMap(): string {
  const data: Record<string, string> = {};
  for (let i = 0; data && JSON.stringify(data).length < 1024 * 1024; i++) data[`key-${i}.conf`] = `line ${i}\n`.repeat(40);
  return JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data });
}

function timePerOp(fn: () => void, minMs = 500): number {
  for (let i = 0; i < 20; i++) fn();
  let runs = 0;
  const start = process.hrtime.bigint();
  let elapsed = 0;
  while (elapsed < minMs) {
    fn();
    runs++;
    elapsed = Number(process.hrtime.bigint() - start) / 1e6;
  }
  return elapsed / runs;
}

for (const [name, text] of [
  ['Pod, indented', pod(2)],
  ['Pod, compact', pod()],
  ['ConfigMap', configMap()],
] as const) {
  const base = timePerOp(() => JSON.parse(text));
  const strict = timePerOp(() => parseJsonWithDuplicates(text));
  process.stdout.write(
    `${name} (${(text.length / 1024).toFixed(1)} KiB): JSON.parse ${(base * 1000).toFixed(1)} us, ` +
      `parseJsonWithDuplicates ${(strict * 1000).toFixed(1)} us, ratio ${(strict / base).toFixed(2)}\n`,
  );
}
