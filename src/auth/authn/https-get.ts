// A GET of a JSON document over HTTPS with an optional CA bundle (OIDC discovery and keys).
import { get } from 'node:https';
import { isPlainObject } from '../../apimachinery/types.js';

export function getJson(url: string, caPem: string | undefined, timeoutMs = 10_000): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    if (u.protocol !== 'https:') {
      reject(new Error(`refusing to fetch ${url}: https required`));
      return;
    }
    const req = get(u, { ca: caPem, timeout: timeoutMs, headers: { Accept: 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        if ((res.statusCode ?? 0) !== 200) {
          reject(new Error(`GET ${url}: HTTP ${res.statusCode ?? 0}`));
          return;
        }
        try {
          const doc: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          if (!isPlainObject(doc)) throw new Error('not an object');
          resolve(doc);
        } catch {
          reject(new Error(`GET ${url}: not a JSON object`));
        }
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${url}: timed out`)));
    req.on('error', reject);
  });
}
