// `npm run bench:lib`: the library in one process. First start (module loading included,
// measured from before the import), then start-to-ready and stop of fresh memory servers
// (median and p90 of BENCH_LIB_RUNS, 20 by default), with and without one CRD to await.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const RUNS = Number(process.env.BENCH_LIB_RUNS ?? 20);

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

const t0 = performance.now();
const { startApiServer } = await import('../src/lib/index.js');
const loaded = performance.now();
const first = await startApiServer();
const firstReady = performance.now();
await first.stop();
console.log(`first start: module loading ${(loaded - t0).toFixed(0)} ms, start to ready ${(firstReady - loaded).toFixed(0)} ms (PKI made once per process)`);

const dir = mkdtempSync(join(tmpdir(), 'orch-bench-lib-'));
writeFileSync(
  join(dir, 'crd.yaml'),
  `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: widgets.example.com }
spec:
  group: example.com
  names: { kind: Widget, plural: widgets }
  scope: Namespaced
  versions: [{ name: v1, served: true, storage: true, schema: { openAPIV3Schema: { type: object, x-kubernetes-preserve-unknown-fields: true } } }]
`,
);
for (const [label, crds] of [
  ['fresh memory server', []],
  ['with one CRD', [dir]],
] as const) {
  const starts: number[] = [];
  const stops: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const a = performance.now();
    const s = await startApiServer({ crds: [...crds] });
    const b = performance.now();
    await s.stop();
    stops.push(performance.now() - b);
    starts.push(b - a);
  }
  console.log(
    `${label}: start to ready median ${pct(starts, 50).toFixed(1)} ms, p90 ${pct(starts, 90).toFixed(1)} ms (goal 50); ` +
      `stop median ${pct(stops, 50).toFixed(1)} ms, p90 ${pct(stops, 90).toFixed(1)} ms (goal 10)`,
  );
}
rmSync(dir, { recursive: true, force: true });
