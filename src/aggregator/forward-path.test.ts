import { test } from 'node:test';
import assert from 'node:assert/strict';
import { forwardedPath, upstreamURL } from './forward-path.js';

const decodeAll = (p: string): string[] => p.split('/').map((x) => decodeURIComponent(x));

test('a forwarded path keeps the authorized segments; dot segments and bad escapes are refused', () => {
  assert.equal(forwardedPath('/apis/g/v/namespaces/a/x/..\\..\\b'), '/apis/g/v/namespaces/a/x/..%5C..%5Cb');
  assert.equal(forwardedPath('/apis/g/v/namespaces/a/x%2F..%2Fb'), '/apis/g/v/namespaces/a/x%2F..%2Fb');
  assert.equal(forwardedPath('/apis/g/v/namespaces/a/%2e%2e/b'), undefined);
  assert.equal(forwardedPath('/apis/g/v/%E0%A4%A'), undefined);
  assert.equal(upstreamURL('https://10.0.0.1:443', '/a/..\\b', '')?.pathname, undefined, 'a path the parser would rewrite is refused');
});

test('fuzz: every forwarded path reaches the upstream with the same segments', () => {
  const alphabet = ['a', '/', '\\', '.', '..', '%2F', '%2f', '%5C', '%2e', '%25', '%', '?', '#', ':', '@', ';', ' ', '\t', 'é', '%00', '//'];
  let seed = 7;
  const rand = (n: number): number => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n);
  for (let i = 0; i < 20_000; i++) {
    let tail = '';
    for (let j = 0, n = 1 + rand(10); j < n; j++) tail += alphabet[rand(alphabet.length)];
    const raw = `/apis/g/v/namespaces/a/things/${tail}`.replace(/[?#]/g, '');
    const path = forwardedPath(raw);
    if (path === undefined) continue;
    const url = upstreamURL('https://10.0.0.1:443', path, '');
    assert.ok(url, `${raw} -> ${path}`);
    assert.deepEqual(decodeAll(url.pathname), decodeAll(raw).map((s) => s), raw);
    assert.equal(url.hostname, '10.0.0.1');
  }
});
