import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { escapePath, isGlobalUnicast, joinPreserveTrailingSlash, splitSchemeNamePort, targetURL, TargetError } from './location.js';

describe('proxy target rules', () => {
  it("isGlobalUnicast is Go's rule", () => {
    const cases: [string, boolean][] = [
      ['10.1.2.3', true],
      ['192.0.2.2', true],
      ['8.8.8.8', true],
      ['127.0.0.1', false],
      ['127.9.9.9', false],
      ['169.254.169.254', false],
      ['0.0.0.0', false],
      ['255.255.255.255', false],
      ['224.0.0.1', false],
      ['::1', false],
      ['::', false],
      ['fe80::1', false],
      ['ff02::1', false],
      ['::ffff:127.0.0.1', false],
      ['::ffff:169.254.169.254', false],
      ['fd00::2', true],
      ['2001:db8::1', true],
      ['', false],
      ['localhost', false],
      ['fe80::1%eth0', false],
    ];
    for (const [ip, want] of cases) assert.equal(isGlobalUnicast(ip), want, ip);
  });

  it('splitSchemeNamePort accepts the three forms only', () => {
    assert.deepEqual(splitSchemeNamePort('web'), { scheme: '', name: 'web', port: '' });
    assert.deepEqual(splitSchemeNamePort('web:8080'), { scheme: '', name: 'web', port: '8080' });
    assert.deepEqual(splitSchemeNamePort('https:web:443'), { scheme: 'https', name: 'web', port: '443' });
    for (const bad of ['ftp:web:21', ':80', 'a:b:c:d', 'https::443']) assert.equal(splitSchemeNamePort(bad), undefined, bad);
  });

  it('the proxied path is cleaned and keeps its trailing slash', () => {
    const cases: [string, string][] = [
      ['', ''],
      ['/', '/'],
      ['/a/b', '/a/b'],
      ['/a/b/', '/a/b/'],
      ['/a/../../../etc/passwd', '/etc/passwd'],
      ['/a/./b//c/', '/a/b/c/'],
      ['/..', '/'],
    ];
    for (const [p, want] of cases) assert.equal(joinPreserveTrailingSlash('', p), want, p);
  });

  it('paths are escaped as Go writes them', () => {
    assert.equal(escapePath('/a b/c?d#e/%/ü'), '/a%20b/c%3Fd%23e/%25/%C3%BC');
    assert.equal(escapePath('/x:y@z;a=b,c+d$&'), '/x:y@z;a=b,c+d$&');
  });
});

describe('proxy targets are built from checked parts (hostile input)', () => {
  it('an id whose port or name carries URL syntax is refused', () => {
    for (const id of ['p:80@127.0.0.1', 'p:80#x', 'p@127.0.0.1', 'p/..:80', 'p:80/x', 'p:0', 'p:65536', 'p:-http', 'p:a--b', 'p:abcdefghijklmnop', 'p:80?x', 'p\\x:80', 'p[::1]:80', 'p:%34%30']) {
      assert.equal(splitSchemeNamePort(id), undefined, id);
    }
    assert.deepEqual(splitSchemeNamePort('https:web:8443'), { scheme: 'https', name: 'web', port: '8443' });
    assert.deepEqual(splitSchemeNamePort('web:http-alt'), { scheme: '', name: 'web', port: 'http-alt' });
  });

  it('targetURL names exactly the address and port it was given, or throws', () => {
    const allow = (): boolean => true;
    assert.equal(targetURL('http', '10.0.0.5', '8080', '/a/b', 'x=1', allow).href, 'http://10.0.0.5:8080/a/b?x=1');
    assert.equal(targetURL('https', 'fd00::1', '443', '', '', allow).href, 'https://[fd00::1]/');
    assert.throws(() => targetURL('http', '10.0.0.5', '80@127.0.0.1', '/', '', allow), TargetError);
    assert.throws(() => targetURL('http', '10.0.0.5@127.0.0.1', '80', '/', '', allow), TargetError);
    assert.throws(() => targetURL('http', 'example.com', '80', '/', '', allow), TargetError);
    assert.throws(() => targetURL('http', '127.0.0.1', '80', '/', '', isGlobalUnicast), TargetError);
  });

  it('fuzz: no generated id leads anywhere but the pod address it was checked against', () => {
    const alphabet = ['p', ':', '@', '/', '#', '?', '\\', '.', '[', ']', '%', '8', '0', '1', '2', '7', 'a', 'http', 'https', ' ', '\t', '%40', '..', '::ffff:127.0.0.1'];
    let seed = 12345;
    const rand = (n: number): number => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n);
    for (let i = 0; i < 20_000; i++) {
      let id = '';
      const len = 1 + rand(8);
      for (let j = 0; j < len; j++) id += alphabet[rand(alphabet.length)];
      const parts = splitSchemeNamePort(id);
      if (!parts) continue;
      const port = parts.port === '' || /^\d+$/.test(parts.port) ? parts.port : '80';
      try {
        const url = targetURL(parts.scheme || 'http', '10.0.0.5', port, escapePath(`/${id}`), '', isGlobalUnicast);
        assert.equal(url.hostname, '10.0.0.5', id);
        assert.equal(url.username + url.password, '', id);
      } catch (err) {
        assert.ok(err instanceof TargetError, `${id}: ${String(err)}`);
      }
    }
  });
});
