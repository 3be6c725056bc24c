// Allocated service IPs and node ports, recorded in the store: one key per allocated
// value, created atomically, so that several API servers on one store never hand out the
// same address or port (the store's create refuses an existing key). Releasing deletes the
// key. Records name their service and when they were taken: a record whose service does not
// hold the value (a server stopped between allocating and writing the service) is taken
// over once it is older than a write can take, guarded by the record's revision.
import { randomInt } from 'node:crypto';
import type { Storage } from '../../storage/interface.js';
import { isKeyExists, isStorageConflict, isStorageNotFound } from '../errors.js';
import type { PortRange, ServiceIPRange } from '../../apis/core/service-ip.js';

const IP_PREFIX = '/registry/ranges/serviceips/';
const PORT_PREFIX = '/registry/ranges/servicenodeports/';
const encoder = new TextEncoder();

export interface AllocationOwner {
  namespace: string;
  name: string;
}

/** What a record reserves: a cluster IP or a node port. */
export type Allocated = { ip: string } | { port: number };

export interface ServiceAllocationsOptions {
  /** Whether `owner` still holds `value`; without it, records are never taken over. */
  isHeld?: (owner: AllocationOwner, value: Allocated) => Promise<boolean>;
  /** How old an unheld record must be before it is taken over (ms; default one minute). */
  leakAfterMs?: number;
  now?: () => Date;
}

interface AllocationRecord extends AllocationOwner {
  createdAt?: string;
}

/** Why an allocation failed; the service layer words it as Kubernetes does. */
export type AllocationFailure = 'notInRange' | 'allocated' | 'full';

export class AllocationError extends Error {
  constructor(readonly failure: AllocationFailure) {
    super(failure);
  }
}

const decoder = new TextDecoder();

function parseRecord(bytes: Uint8Array): AllocationRecord | undefined {
  try {
    const v = JSON.parse(decoder.decode(bytes)) as unknown;
    if (typeof v !== 'object' || v === null) return undefined;
    const r = v as Record<string, unknown>;
    return {
      namespace: typeof r.namespace === 'string' ? r.namespace : '',
      name: typeof r.name === 'string' ? r.name : '',
      createdAt: typeof r.createdAt === 'string' ? r.createdAt : undefined,
    };
  } catch {
    return undefined;
  }
}

/** Picks free offsets at random: the preferred part of a range first, then the rest. */
function* candidates(size: number, preferredFrom: number): Generator<number> {
  const spans: Array<[number, number]> = preferredFrom > 0 && preferredFrom < size ? [[preferredFrom, size], [0, preferredFrom]] : [[0, size]];
  for (const [lo, hi] of spans) {
    const n = hi - lo;
    if (n <= 0) continue;
    // A random start and a walk over the span visit every offset once.
    const start = randomInt(n);
    for (let i = 0; i < n; i++) yield lo + ((start + i) % n);
  }
}

export class ServiceAllocations {
  private readonly isHeld: ServiceAllocationsOptions['isHeld'];
  private readonly leakAfterMs: number;
  private readonly now: () => Date;

  constructor(
    private readonly storage: Storage,
    opts: ServiceAllocationsOptions = {},
  ) {
    this.isHeld = opts.isHeld;
    this.leakAfterMs = opts.leakAfterMs ?? 60_000;
    this.now = opts.now ?? (() => new Date());
  }

  private record(owner: AllocationOwner): Uint8Array {
    return encoder.encode(JSON.stringify({ namespace: owner.namespace, name: owner.name, createdAt: this.now().toISOString() }));
  }

  private ipKey(ip: string): string {
    return `${IP_PREFIX}${ip}`;
  }

  private portKey(port: number): string {
    return `${PORT_PREFIX}${port}`;
  }

  private async take(key: string, owner: AllocationOwner, value: Allocated): Promise<boolean> {
    try {
      await this.storage.create(key, this.record(owner));
      return true;
    } catch (e) {
      if (!isKeyExists(e)) throw e;
    }
    return this.takeOver(key, owner, value);
  }

  /** Takes a leaked record: old enough, and its service does not hold the value. */
  private async takeOver(key: string, owner: AllocationOwner, value: Allocated): Promise<boolean> {
    if (!this.isHeld) return false;
    const { item } = await this.storage.get(key);
    if (!item) return false;
    const rec = parseRecord(item.value);
    const takenAt = rec?.createdAt ? Date.parse(rec.createdAt) : NaN;
    if (!rec || Number.isNaN(takenAt) || this.now().getTime() - takenAt < this.leakAfterMs) return false;
    if (await this.isHeld(rec, value)) return false;
    try {
      await this.storage.update(key, this.record(owner), item.modRevision);
      return true;
    } catch (e) {
      if (isStorageConflict(e) || isStorageNotFound(e)) return false;
      throw e;
    }
  }

  private async taken(prefix: string): Promise<Set<string>> {
    const out = new Set<string>();
    let startKey: string | undefined;
    for (;;) {
      const page = await this.storage.list(prefix, { startKey, limit: 1000 });
      for (const item of page.items) out.add(item.key.slice(prefix.length));
      if (!page.more || page.items.length === 0) return out;
      startKey = `${page.items[page.items.length - 1]?.key ?? ''}\u0000`;
    }
  }

  private async release(key: string): Promise<void> {
    try {
      await this.storage.delete(key);
    } catch (e) {
      if (!isStorageNotFound(e)) throw e;
    }
  }

  /** Reserves `ip` of `range`. A dry run checks only the range, as Kubernetes does. */
  async allocateIP(range: ServiceIPRange, ip: string, owner: AllocationOwner, dryRun: boolean): Promise<string> {
    const offset = range.offsetOf(ip);
    if (offset === undefined) throw new AllocationError('notInRange');
    const canonical = range.at(offset);
    if (dryRun) return ip;
    if (!(await this.take(this.ipKey(canonical), owner, { ip: canonical }))) throw new AllocationError('allocated');
    return ip;
  }

  /** Reserves a free address of `range`; a dry run answers the network address. */
  async allocateNextIP(range: ServiceIPRange, owner: AllocationOwner, dryRun: boolean): Promise<string> {
    if (dryRun) return range.networkAddress();
    const used = await this.taken(IP_PREFIX);
    for (const offset of candidates(range.size, range.staticOffset)) {
      const ip = range.at(offset);
      if (used.has(ip)) continue;
      if (await this.take(this.ipKey(ip), owner, { ip })) return ip;
    }
    // Full: only a leaked record can still be had.
    for (const ip of used) {
      if (range.offsetOf(ip) !== undefined && (await this.takeOver(this.ipKey(ip), owner, { ip }))) return ip;
    }
    throw new AllocationError('full');
  }

  async releaseIP(range: ServiceIPRange, ip: string): Promise<void> {
    const offset = range.offsetOf(ip);
    if (offset === undefined) return;
    await this.release(this.ipKey(range.at(offset)));
  }

  async allocatePort(range: PortRange, port: number, owner: AllocationOwner, dryRun: boolean): Promise<void> {
    const inRange = Number.isInteger(port) && port >= range.base && port < range.base + range.size;
    if (dryRun) {
      // Kubernetes' dry run refuses only a port it knows to be taken.
      if (inRange && (await this.storage.get(this.portKey(port))).item) throw new AllocationError('allocated');
      return;
    }
    if (!inRange) throw new AllocationError('notInRange');
    if (!(await this.take(this.portKey(port), owner, { port }))) throw new AllocationError('allocated');
  }

  async allocateNextPort(range: PortRange, owner: AllocationOwner): Promise<number> {
    const used = await this.taken(PORT_PREFIX);
    for (const offset of candidates(range.size, 0)) {
      const port = range.base + offset;
      if (used.has(String(port))) continue;
      if (await this.take(this.portKey(port), owner, { port })) return port;
    }
    for (const text of used) {
      const port = Number(text);
      if (port >= range.base && port < range.base + range.size && (await this.takeOver(this.portKey(port), owner, { port }))) return port;
    }
    throw new AllocationError('full');
  }

  async releasePort(range: PortRange, port: number): Promise<void> {
    if (!Number.isInteger(port) || port < range.base || port >= range.base + range.size) return;
    await this.release(this.portKey(port));
  }

  /** Whether `ip` is recorded as allocated (for tests and repair). */
  async hasIP(ip: string): Promise<boolean> {
    return (await this.storage.get(this.ipKey(ip))).item !== undefined;
  }

  async hasPort(port: number): Promise<boolean> {
    return (await this.storage.get(this.portKey(port))).item !== undefined;
  }
}
