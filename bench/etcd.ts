// etcd backend benchmark: creates per second from 1 and 64 concurrent writers against an etcd
// this program starts on loopback (a single member, its data on the temporary directory's disk).
//   npm run bench:etcd [-- <seconds per measurement>]

import { EtcdStorage } from '../src/storage/etcd.js';
import { startEtcd } from '../src/testing/etcd.js';

const seconds = Number(process.argv[2] ?? '3');
const value = new Uint8Array(1024).fill(120);

async function writes(storage: EtcdStorage, writers: number, run: string): Promise<number> {
  const start = performance.now();
  const deadline = start + seconds * 1000;
  let ops = 0;
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      for (let i = 0; performance.now() < deadline; i++) {
        await storage.create(`/registry/bench/${run}/${w}/${i}`, value);
        ops++;
      }
    }),
  );
  return ops / ((performance.now() - start) / 1000);
}

const etcd = await startEtcd();
try {
  const storage = await EtcdStorage.open({ servers: [etcd.clientUrl] });
  try {
    const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
    console.log(`etcd backend benchmark: ${seconds}s per measurement, 1024-byte values`);
    console.log(`1 writer:               ${fmt(await writes(storage, 1, 'one'))} writes/s`);
    console.log(`64 concurrent writers:  ${fmt(await writes(storage, 64, 'many'))} writes/s`);
  } finally {
    await storage.close();
  }
} finally {
  await etcd.stop();
}
