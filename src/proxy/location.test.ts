import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { escapePath, isGlobalUnicast, joinPreserveTrailingSlash, splitSchemeNamePort } from './location.js';

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
