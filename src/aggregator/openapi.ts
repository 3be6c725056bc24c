// OpenAPI aggregation: the v3 documents of available remote group-versions, fetched when
// their availability is checked and served by the OpenAPI handler beside the local ones.
import { createHash } from 'node:crypto';
import type { RemoteOpenApiDocument } from '../schema/openapi/index.js';
import { getJSON, type RemoteEndpoint } from './remote.js';

/** kube's discovery check allows this long per attempt; the document fetch is bounded the same. */
export const DISCOVERY_CHECK_TIMEOUT_MS = 5_000;

/** The remote documents, by `apis/<group>/<version>`. */
export class RemoteOpenApi {
  private readonly documents = new Map<string, RemoteOpenApiDocument>();

  /** Fetches the remote's document of its group-version; a remote without one is listed without it. */
  async fetch(ep: RemoteEndpoint, group: string, version: string): Promise<void> {
    const key = `apis/${group}/${version}`;
    try {
      const answer = await getJSON(ep, `/openapi/v3/${key}`, DISCOVERY_CHECK_TIMEOUT_MS);
      if (answer.status !== 200 || typeof answer.body !== 'object' || answer.body === null || Array.isArray(answer.body)) {
        this.documents.delete(key);
        return;
      }
      const json = Buffer.from(JSON.stringify(answer.body));
      this.documents.set(key, { json, hash: createHash('sha512').update(json).digest('hex').toUpperCase() });
    } catch {
      this.documents.delete(key);
    }
  }

  /** Drops the document of a group-version that is no longer available. */
  forget(group: string, version: string): void {
    this.documents.delete(`apis/${group}/${version}`);
  }

  all(): ReadonlyMap<string, RemoteOpenApiDocument> {
    return this.documents;
  }
}
