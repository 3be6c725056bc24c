import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createCacher } from './cacher.js';
import { describeStorageConformance } from '../testing/storage-conformance.js';
import { EtcdStorage, prefixEnd } from './etcd.js';
import { etcdInstallHint, etcdSkip, freePort, startEtcd, type EtcdServer, type EtcdTlsFiles } from '../testing/etcd.js';
import { createCA, issueCert } from '../testing/pki.js';
import { createStorage } from './index.js';
import { StorageError } from './interface.js';

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
const text = (b: Uint8Array | undefined): string | undefined => (b === undefined ? undefined : new TextDecoder().decode(b));
const skip = etcdSkip();

describe('etcd prefix ranges', () => {
  it('ends a prefix range after every key that starts with it', () => {
    assert.deepEqual([...prefixEnd(Buffer.from('/a/'))], [...Buffer.from('/a0')]);
    assert.deepEqual([...prefixEnd(Buffer.from([0x61, 0xff, 0xff]))], [0x62]);
    assert.deepEqual([...prefixEnd(Buffer.from([0xff]))], [0], 'all 0xff: to the end of the keyspace');
    assert.deepEqual([...prefixEnd(Buffer.alloc(0))], [0]);
  });
});

describe('etcd tests without an etcd server', () => {
  it('the backend refuses to open without a reachable etcd, saying where it looked', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    await assert.rejects(EtcdStorage.open({ servers: [url], dialTimeoutMs: 2000 }), (err: unknown) => {
      assert.ok(err instanceof StorageError);
      assert.ok(err.message.startsWith(`cannot reach etcd at ${url}: `), err.message);
      return true;
    });
  });

  const noEtcd = { PATH: '/nonexistent' };
  it('skip with the install hint outside CI', () => {
    assert.equal(etcdSkip(noEtcd), etcdInstallHint);
  });
  it('run under CI, and fail with the install hint', async () => {
    assert.equal(etcdSkip({ ...noEtcd, CI: 'true' }), false);
    const path = process.env.PATH;
    process.env.PATH = noEtcd.PATH;
    try {
      await assert.rejects(startEtcd(), { message: etcdInstallHint });
    } finally {
      process.env.PATH = path;
    }
  });
});

describe('etcd storage backend', { skip }, () => {
  let etcd: EtcdServer | undefined;
  let stores = 0;
  const server = (): EtcdServer => {
    assert.ok(etcd !== undefined, 'the test etcd started');
    return etcd;
  };
  before(async () => {
    etcd = await startEtcd();
  });
  after(async () => {
    await etcd?.stop();
  });

  // Every store of the suite gets its own key prefix on the one etcd, and an offset that makes
  // its first revision 0 as the suite expects of a fresh store (etcd's revision is global).
  describeStorageConformance('etcd', {
    durable: true,
    async open(opts = {}) {
      const keyPrefix = `/conformance-${++stores}`;
      const probe = await EtcdStorage.open({ servers: [server().clientUrl], keyPrefix });
      const revisionOffset = await probe.revision();
      await probe.close();
      const config = { servers: [server().clientUrl], keyPrefix, revisionOffset, ...opts };
      let storage = await EtcdStorage.open(config);
      return {
        storage,
        async reopen() {
          await storage.close();
          storage = await EtcdStorage.open(config);
          return storage;
        },
        dispose: () => storage.close(),
      };
    },
  });

  it('keeps clusters under different key prefixes apart on one etcd', async () => {
    const a = await EtcdStorage.open({ servers: [server().clientUrl], keyPrefix: '/cluster-a' });
    const b = await EtcdStorage.open({ servers: [server().clientUrl], keyPrefix: '/cluster-b' });
    try {
      await a.create('/pods/x', bytes('a'));
      await b.create('/pods/x', bytes('b'));
      assert.deepEqual((await a.list('')).items.map((i) => `${i.key}=${text(i.value)}`), ['/pods/x=a']);
      assert.deepEqual((await b.list('')).items.map((i) => `${i.key}=${text(i.value)}`), ['/pods/x=b']);
      assert.equal(await a.revision(), await b.revision(), 'one etcd, one revision');
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('lists and fills a watch cache from more than the gRPC default of 4 MiB in one answer', async () => {
    const storage = await EtcdStorage.open({ servers: [server().clientUrl], keyPrefix: '/large' });
    try {
      // Six objects of 1 MiB (under etcd's 1.5 MiB request limit), 6 MiB in one range.
      const big = new Uint8Array(1024 * 1024).fill(0x61);
      for (let i = 0; i < 6; i++) await storage.create(`/configmaps/ns/big-${i}`, big);
      const all = await storage.list('/configmaps/');
      assert.equal(all.items.length, 6);
      assert.equal(all.items[5]?.value.length, big.length);
      const cache = createCacher(storage, '/configmaps/');
      try {
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('the cache did not fill in 20 s')), 20_000);
        });
        await Promise.race([cache.ready(), late]).finally(() => clearTimeout(timer));
        assert.equal(cache.list({ prefix: '/configmaps/' }).items.length, 6);
      } finally {
        await cache.stop();
      }
    } finally {
      await storage.close();
    }
  });

  it('is created by createStorage with the etcd options', async () => {
    const storage = await createStorage({ backend: 'etcd', etcdServers: [server().clientUrl] });
    try {
      const item = await storage.create('/factory/k', bytes('v'));
      assert.equal(item.modRevision, await storage.revision(), 'store revision is etcd revision by default');
      const all = await storage.list('');
      assert.ok(all.items.some((i) => i.key === '/factory/k'), 'without a key prefix the empty prefix lists all of etcd');
      assert.ok(all.items.some((i) => i.key.startsWith('/conformance-')));
    } finally {
      await storage.close();
    }
    await assert.rejects(createStorage({ backend: 'etcd' }), (err: unknown) => {
      assert.ok(err instanceof StorageError);
      assert.match(err.message, /needs at least one etcd server/);
      return true;
    });
  });

  it('keeps a watch exact across an etcd restart', async () => {
    const storage = await EtcdStorage.open({ servers: [server().clientUrl], keyPrefix: '/restart' });
    const ctl = new AbortController();
    const timer = setTimeout(() => ctl.abort(), 30_000);
    try {
      const start = await storage.revision();
      const seen: number[] = [];
      const watching = (async () => {
        for await (const event of storage.watch('/', start, ctl.signal)) {
          seen.push(event.revision);
          if (seen.length === 6) break;
        }
      })();
      const written: number[] = [];
      for (let i = 0; i < 3; i++) written.push((await storage.create(`/before/${i}`, bytes('x'))).modRevision);
      await server().restart();
      for (let i = 0; i < 3; i++) written.push((await storage.create(`/after/${i}`, bytes('x'))).modRevision);
      await watching;
      assert.deepEqual(seen, written, 'every write once, in order, across the restart');
    } finally {
      clearTimeout(timer);
      ctl.abort();
      await storage.close();
    }
  });

  it('lets two servers watch caches see each other\u2019s writes', async () => {
    const config = { servers: [server().clientUrl], keyPrefix: '/two-servers' };
    const [one, two] = [await EtcdStorage.open(config), await EtcdStorage.open(config)];
    const cacheOne = createCacher(one, '/pods/', { freshTimeoutMs: 10_000 });
    const cacheTwo = createCacher(two, '/pods/', { freshTimeoutMs: 10_000 });
    try {
      await Promise.all([cacheOne.ready(), cacheTwo.ready()]);
      const a = await one.create('/pods/a', bytes('from one'));
      const b = await two.create('/pods/b', bytes('from two'));
      assert.ok((await cacheTwo.waitForFresh()) >= a.modRevision);
      assert.ok((await cacheOne.waitForFresh()) >= b.modRevision);
      for (const cache of [cacheOne, cacheTwo]) {
        assert.deepEqual(cache.list().items.map((i) => `${i.key}=${text(i.value)}`), ['/pods/a=from one', '/pods/b=from two']);
      }
      const updated = await two.update('/pods/a', bytes('changed by two'), a.modRevision);
      await cacheOne.waitForRevision(updated.modRevision);
      assert.equal(text(cacheOne.get('/pods/a')?.value), 'changed by two');

      // Writes elsewhere in etcd move the revision; a consistent read still completes, through
      // the watch's progress reports, since no event of the cached prefix will ever come.
      await one.create('/services/s', bytes('elsewhere'));
      const elsewhere = await two.create('/services/t', bytes('elsewhere'));
      const fresh = await cacheOne.waitForFresh();
      assert.ok(fresh >= elsewhere.modRevision, `the cache reached ${fresh}, the store ${elsewhere.modRevision}`);
      assert.equal(cacheOne.list().items.length, 2);

      // A consistent read right after another server's write always sees that write.
      for (let i = 0; i < 50; i++) {
        const written = await (i % 2 === 0 ? one : two).create(`/pods/n${i}`, bytes(String(i)));
        if (i % 5 === 0) await one.create(`/services/n${i}`, bytes('elsewhere'));
        const reader = i % 2 === 0 ? cacheTwo : cacheOne;
        await reader.waitForFresh();
        assert.equal(text(reader.get(`/pods/n${i}`)?.value), String(i), `write ${i} at ${written.modRevision} is seen`);
      }
      for (let i = 0; i < 50; i++) await one.delete(`/pods/n${i}`);

      const events: string[] = [];
      const ctl = new AbortController();
      const from = await cacheTwo.waitForFresh();
      const watching = (async () => {
        for await (const event of cacheTwo.watch('/pods/', from, ctl.signal)) {
          if (event.type !== 'bookmark') events.push(`${event.type} ${event.key}`);
          if (events.length === 1) ctl.abort();
        }
      })();
      await one.delete('/pods/b');
      const timer = setTimeout(() => ctl.abort(), 10_000);
      await watching;
      clearTimeout(timer);
      assert.deepEqual(events, ['delete /pods/b']);
    } finally {
      await cacheOne.stop();
      await cacheTwo.stop();
      await one.close();
      await two.close();
    }
  });
});

describe('etcd storage backend over TLS', { skip }, () => {
  it('talks to an etcd that serves TLS and asks for a client certificate', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'orch-etcd-tls-'));
    let etcd: EtcdServer | undefined;
    try {
      const ca = await createCA('etcd-ca');
      const serving = await issueCert(ca, 'etcd', { usage: 'both', ips: ['127.0.0.1'] });
      const client = await issueCert(ca, 'apiserver-etcd-client');
      const files: EtcdTlsFiles = {
        caFile: join(dir, 'ca.crt'),
        certFile: join(dir, 'server.crt'),
        keyFile: join(dir, 'server.key'),
        client: { ca: bytes(ca.certPem), cert: bytes(client.certPem), key: bytes(client.keyPem) },
      };
      writeFileSync(files.caFile, ca.certPem);
      writeFileSync(files.certFile, serving.certPem);
      writeFileSync(files.keyFile, serving.keyPem);
      etcd = await startEtcd({ tls: files });
      assert.match(etcd.clientUrl, /^https:/);
      const storage = await createStorage({ backend: 'etcd', etcdServers: [etcd.clientUrl], etcdTls: files.client });
      try {
        const item = await storage.create('/registry/tls', bytes('secure'));
        assert.equal(text((await storage.get('/registry/tls')).item?.value), 'secure');
        assert.equal(item.modRevision, await storage.revision());
      } finally {
        await storage.close();
      }
      const stranger = await createCA('someone-else');
      await assert.rejects(
        EtcdStorage.open({ servers: [etcd.clientUrl], tls: { ca: bytes(stranger.certPem) }, dialTimeoutMs: 2000 }),
        (err: unknown) => err instanceof StorageError && /cannot reach etcd/.test(err.message),
        'a member whose certificate no trusted CA signed is refused',
      );
    } finally {
      await etcd?.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
