import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileTemplate, RenderError, TemplateError, type TemplateEnv } from './template.js';

const env: TemplateEnv = {
  now: () => new Date(Date.UTC(2024, 0, 1, 0, 0, 5, 250)),
  startTime: () => new Date(Date.UTC(2024, 0, 1)),
  version: () => 'v1.27.16',
  nodeConditions: () => [
    { type: 'Ready', status: 'True' },
    { type: 'MemoryPressure', status: 'False' },
  ],
  nodeIP: () => '192.0.2.1',
  nodeName: () => 'node-000000',
  nodePort: () => 0,
  podIP: () => '10.0.0.9',
  nodeIPWith: (n) => (n === 'node-000000' ? '192.0.2.1' : ''),
  nodeIPsWith: () => ['192.0.2.1'],
  podIPWith: (_n, host) => (host ? '192.0.2.1' : '10.0.0.1'),
  podIPsWith: (_n, host) => (host ? ['192.0.2.1'] : ['10.0.0.1']),
};

const render = (t: string, data: unknown = {}): string => compileTemplate(t).render(data, env);

test('fields, variables, pipelines and the KWOK functions', () => {
  const pod = { metadata: { name: 'p', uid: 'u' }, spec: { nodeName: 'node-000000', containers: [{ name: 'a', image: 'nginx' }, { name: 'b', image: 'busybox' }] } };
  assert.equal(render('{{ .metadata.name }}', pod), 'p');
  assert.equal(render('{{ $now := Now }}{{ $now | Quote }}'), '"2024-01-01T00:00:05Z"');
  assert.equal(render('{{ NodeIP }} {{ PodIP }} {{ NodeName }} {{ Version }}'), '192.0.2.1 10.0.0.9 node-000000 v1.27.16');
  assert.equal(render('{{ NodeIPWith .spec.nodeName | Quote }}', pod), '"192.0.2.1"');
  assert.equal(render('{{ PodIPWith .spec.nodeName ( or .spec.hostNetwork false ) ( or .metadata.uid "" ) ( or .metadata.name "" ) ( or .metadata.namespace "" ) }}', pod), '10.0.0.1');
  assert.equal(render('{{ range $i, $c := .spec.containers }}[{{ $i }}:{{ $c.name }}={{ .image }}]{{ end }}', pod), '[0:a=nginx][1:b=busybox]');
  assert.equal(render('{{ $root := . }}{{ range .spec.containers }}{{ $root.metadata.name }}/{{ .name }} {{ end }}', pod), 'p/a p/b ');
  assert.equal(render('{{ with $x := index .spec.containers 1 }}{{ $x.name }}{{ end }}', pod), 'b');
  assert.equal(render('{{ range NodeConditions }}{{ if eq .type "Ready" }}R{{ else if eq .status "False" }}F{{ else }}?{{ end }}{{ end }}'), 'RF');
  assert.equal(render('{{ $a := 1 }}{{ if true }}{{ $a = 2 }}{{ end }}{{ $a }}'), '2');
  assert.equal(render('{{ range .xs }}{{ if eq . 2 }}{{ continue }}{{ end }}{{ if eq . 4 }}{{ break }}{{ end }}{{ . }}{{ end }}', { xs: [1, 2, 3, 4, 5] }), '13');
  assert.equal(render('{{ range .none }}x{{ else }}empty{{ end }}'), 'empty');
  assert.equal(render('{{ with .missing }}x{{ else }}none{{ end }}'), 'none');
  assert.equal(render('{{ .missing }}'), '<no value>');
  assert.equal(render('{{ .missing.deeper }}'), '<no value>');
  assert.equal(render('{{ printf "%s-%d-%v-%q" "a" 3 true "x" }}'), 'a-3-true-"x"');
  assert.equal(render('{{ len .xs }} {{ index .m "k" }} {{ not .f }}', { xs: [1, 2], m: { k: 'v' }, f: false }), '2 v true');
  assert.equal(render('{{ add 1 2 3 }} {{ sub 5 2 }} {{ add1 .n }} {{ default "d" .e }} {{ default "d" "set" }}', { n: 4, e: '' }), '6 3 5 d set');
  assert.equal(render('{{ $m := dict "a" 1 "b" "x" }}{{ $m.b }}{{ hasKey $m "a" }}'), 'xtrue');
  assert.equal(render('{{ or .a "fallback" }} {{ and 1 0 }} {{ lt 1 2 }} {{ ge "b" "a" }}'), 'fallback 0 true true');
  assert.equal(render('{{ Quote 1 }} {{ Quote "s" }} {{ Quote nil }}'), '"1" "s" "null"');
  assert.equal(render('a {{- " b " -}} c'), 'a b c');
  assert.equal(render('x{{/* a comment */}}y {{- /* trimmed */ -}} z'), 'xyz');
  assert.equal(render('{{ `raw "q"` }}'), 'raw "q"');
  assert.equal(render('{{ .m }}', { m: { b: 1, a: [1, 'x'] } }), 'map[a:[1 x] b:1]');
});

test('YAML renders the value with keys sorted, indented as KWOK indents it', () => {
  const data = { status: { allocatable: { pods: '110', cpu: '32' } } };
  assert.equal(render('allocatable:{{ YAML .status.allocatable 1 }}', data), 'allocatable:\n  cpu: "32"\n  pods: "110"\n  ');
  assert.equal(render('{{ YAML .status.allocatable }}', data), 'cpu: "32"\npods: "110"\n');
});

test('and/or evaluate lazily; the piped value is the last argument', () => {
  // `index nil 1` would be nil; the failing call after a decided `or` is never made.
  assert.equal(render('{{ or "x" (div 1 0) }}'), 'x');
  assert.throws(() => render('{{ and "x" (div 1 0) }}'), RenderError);
  assert.equal(render('{{ "a" | printf "%s%s" "b" }}'), 'ba');
});

test('what is not supported or malformed is refused when the template loads, naming the line', () => {
  const refused = (t: string, re: RegExp): void => assert.throws(() => compileTemplate(t), (e: unknown) => e instanceof TemplateError && re.test(e.message), t);
  refused('{{ sprigOnly . }}', /function "sprigOnly" is not supported/);
  refused('line one\n{{ if .a }}', /line 2: unexpected EOF in \{\{if\}\}/);
  refused('{{ end }}', /unexpected \{\{end\}\}/);
  refused('{{ $undefined }}', /undefined variable "\$undefined"/);
  refused('{{ template "x" }}', /not supported/);
  refused('{{ define "x" }}{{ end }}', /not supported/);
  refused('{{ break }}', /outside \{\{range\}\}/);
  refused('{{ .a .b }}', /not a function/);
  refused('{{ "x" | .a }}', /not a function/);
  refused('{{ .a', /unclosed action/);
  refused('{{ "a }}', /unterminated/);
  refused('{{ (.a }}', /unclosed left paren/);
  refused("{{ 'c' }}", /character constants/);
  refused('{{/* open', /unclosed comment/);
  refused('{{ if 1 }}{{ else }}{{ else }}{{ end }}', /unexpected \{\{else\}\}|expected \{\{end\}\}/);
  refused(`${'{{ if 1 }}'.repeat(100)}${'{{ end }}'.repeat(100)}`, /nested more than/);
  refused('x'.repeat(300 * 1024), /longer than/);
});

test('rendering is bounded in steps and output, and reads only own properties', () => {
  assert.throws(() => render('{{ range 100000 }}{{ range 100 }}x{{ end }}{{ end }}'), (e: unknown) => e instanceof RenderError && /steps|output/.test(e.message));
  const big = { s: 'y'.repeat(600 * 1024) };
  assert.throws(() => render('{{ .s }}{{ .s }}', big), (e: unknown) => e instanceof RenderError && /output larger/.test(e.message));
  assert.equal(render('{{ .constructor }}|{{ .toString }}|{{ index . "__proto__" }}', {}), '<no value>|<no value>|<no value>');
  const hostile = JSON.parse('{"__proto__": {"x": "own"}}') as unknown;
  assert.equal(render('{{ index . "__proto__" "x" }}', hostile), 'own');
  assert.throws(() => render('{{ div 1 0 }}'), /division by zero/);
  assert.throws(() => render('{{ Now 1 }}'), /wrong number of args/);
});
