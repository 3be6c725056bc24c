// The controller manager (kube-controller-manager's shape): a registry of controller
// descriptors, `--controllers` selection, leader election on a Lease, and the context the
// controllers share (client, informers, clock, event recorders, discovery, options).
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { realClock, type Clock } from '../apimachinery/clock.js';
import type { FeatureGate } from '../apimachinery/features.js';
import { EventBroadcaster } from '../client/events.js';
import { SharedInformerFactory } from '../client/informer-factory.js';
import type { ApiClient } from '../client/types.js';
import { systemNamespace } from '../naming/index.js';
import {
  DEFAULT_LEASE_DURATION_MS,
  DEFAULT_RENEW_DEADLINE_MS,
  DEFAULT_RETRY_PERIOD_MS,
  LeaderElector,
  type LeaderElectionConfig,
} from './leader-election.js';
import {
  DEFAULT_CONTROLLER_OPTIONS,
  type ControllerContext,
  type ControllerDescriptor,
  type ControllerOptions,
  type DiscoveredResource,
  type RunningController,
} from './types.js';

/**
 * Every controller name kube-controller-manager 1.27 knows (`--controllers` refuses others,
 * and accepts these even where this product has no such controller).
 */
export const KNOWN_CONTROLLERS: readonly string[] = [
  'attachdetach',
  'bootstrapsigner',
  'cloud-node-lifecycle',
  'clusterrole-aggregation',
  'cronjob',
  'csrapproving',
  'csrcleaner',
  'csrsigning',
  'daemonset',
  'deployment',
  'disruption',
  'endpoint',
  'endpointslice',
  'endpointslicemirroring',
  'ephemeral-volume',
  'garbagecollector',
  'horizontalpodautoscaling',
  'job',
  'namespace',
  'nodeipam',
  'nodelifecycle',
  'persistentvolume-binder',
  'persistentvolume-expander',
  'podgc',
  'pv-protection',
  'pvc-protection',
  'replicaset',
  'replicationcontroller',
  'resource-claim-controller',
  'resourcequota',
  'root-ca-cert-publisher',
  'route',
  'service',
  'serviceaccount',
  'serviceaccount-token',
  'statefulset',
  'storage-version-gc',
  'ttl',
  'ttl-after-finished',
];

/** Off unless `--controllers` names them. */
export const DISABLED_BY_DEFAULT_CONTROLLERS: readonly string[] = ['bootstrapsigner', 'tokencleaner'];

export const DEFAULT_LEASE_NAME = 'kube-controller-manager';

/** kube-controller-manager's `--controllers` check: one error per unknown name. */
export function validateControllers(controllers: readonly string[], known: readonly string[]): string[] {
  const all = new Set(known);
  const errors: string[] = [];
  for (const entry of controllers) {
    if (entry === '*') continue;
    const name = entry.startsWith('-') ? entry.slice(1) : entry;
    if (!all.has(name)) errors.push(`${JSON.stringify(name)} is not in the list of known controllers`);
  }
  return errors;
}

/**
 * Whether `--controllers` turns `name` on: the first explicit `name` or `-name` decides;
 * otherwise `*` turns on every controller that is not off by default; nothing else is on.
 */
export function isControllerEnabled(name: string, disabledByDefault: ReadonlySet<string>, controllers: readonly string[]): boolean {
  let star = false;
  for (const entry of controllers) {
    if (entry === name) return true;
    if (entry === `-${name}`) return false;
    if (entry === '*') star = true;
  }
  return star && !disabledByDefault.has(name);
}

/** The descriptors `--controllers` turns on; throws (naming every unknown entry) when one is unknown. */
export function selectControllers(descriptors: readonly ControllerDescriptor[], controllers: readonly string[] = ['*']): ControllerDescriptor[] {
  const known = [...new Set([...KNOWN_CONTROLLERS, ...DISABLED_BY_DEFAULT_CONTROLLERS, ...descriptors.map((d) => d.name)])];
  const errors = validateControllers(controllers, known);
  // A controller kube-controller-manager has but this server does not run may be turned off
  // (`-deployment`, so copied flags keep working) but not asked for by name: it would do nothing.
  const runnable = new Set(descriptors.map((d) => d.name));
  for (const entry of controllers) {
    if (entry !== '*' && !entry.startsWith('-') && known.includes(entry) && !runnable.has(entry)) {
      errors.push(`${JSON.stringify(entry)} is a kube-controller-manager controller this server does not run`);
    }
  }
  if (errors.length > 0) throw new Error(`--controllers: ${errors.join(', ')}`);
  const off = new Set([...DISABLED_BY_DEFAULT_CONTROLLERS, ...descriptors.filter((d) => d.disabledByDefault).map((d) => d.name)]);
  return descriptors.filter((d) => isControllerEnabled(d.name, off, controllers));
}

/** `<hostname>_<uuid>`, kube-controller-manager's holder identity. */
export function leaderIdentity(host = hostname()): string {
  return `${host}_${randomUUID()}`;
}

export interface ManagerLeaderElection {
  /** `--leader-elect-resource-namespace` (the system namespace). */
  namespace?: string;
  /** `--leader-elect-resource-name` (`kube-controller-manager`). */
  name?: string;
  identity?: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  jitter?: number;
}

export interface ControllerManagerOptions {
  client: ApiClient;
  descriptors: readonly ControllerDescriptor[];
  /** `--controllers` (default `*`). */
  controllers?: readonly string[];
  options?: Partial<ControllerOptions>;
  /** The feature gates the controllers read (1.27's defaults when absent). */
  features?: FeatureGate;
  clock?: Clock;
  discover(): Promise<DiscoveredResource[]>;
  /** Tells of changes to the served resources, where they can be seen (the resource table). */
  onResourcesChanged?(listener: () => void): () => void;
  /** Leader election on a Lease (kube-controller-manager's default), or false to run at once. */
  leaderElection?: ManagerLeaderElection | false;
  /**
   * Informers shared with other consumers (admission), used in every term and never stopped
   * here; without them each leadership term lists and watches afresh with its own.
   */
  informers?: SharedInformerFactory;
  /** Informer resync period (kube-controller-manager's --min-resync-period is 12h; here 5 min). */
  resyncMs?: number;
  /** Where Events go (the client by default). */
  events?: EventBroadcaster;
  log?: (line: string) => void;
  /** Told about every error a controller recovered from (after the manager counted it). */
  onError?: (controller: string, err: unknown) => void;
  /**
   * Told when the Lease is lost other than by `stop()` (it could not be renewed within the
   * renew deadline); kube-controller-manager exits then, and so does its entry point here.
   */
  onLeadershipLost?: () => void;
}

interface Term {
  informers: SharedInformerFactory;
  running: { name: string; controller: RunningController }[];
  /** Settles once every selected controller has been started (or failed to start). */
  starting: Promise<void>;
  done: boolean;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export class ControllerManager {
  private readonly selected: ControllerDescriptor[];
  private readonly clock: Clock;
  private readonly options: ControllerOptions;
  private readonly events: EventBroadcaster;
  private readonly ownsEvents: boolean;
  private readonly elector: LeaderElector | undefined;
  private readonly errorCounts = new Map<string, number>();
  private term: Term | undefined;
  private stopping: Promise<void> | undefined;
  /** The previous term's stop, awaited before a new term starts. */
  private ending: Promise<void> = Promise.resolve();
  private started = false;
  /** Set by `stop()` and `kill()`: leadership ending then is not a loss. */
  private shuttingDown = false;

  constructor(private readonly opts: ControllerManagerOptions) {
    this.selected = selectControllers(opts.descriptors, opts.controllers ?? ['*']);
    this.clock = opts.clock ?? realClock;
    this.options = { ...DEFAULT_CONTROLLER_OPTIONS, ...opts.options };
    this.ownsEvents = !opts.events;
    this.events = opts.events ?? new EventBroadcaster(opts.client, { clock: this.clock, onError: (err) => this.recordError('events', err) });
    if (opts.leaderElection !== false) {
      const le = opts.leaderElection ?? {};
      const config: LeaderElectionConfig = {
        namespace: le.namespace ?? systemNamespace('system'),
        name: le.name ?? DEFAULT_LEASE_NAME,
        identity: le.identity ?? leaderIdentity(),
        leaseDurationMs: le.leaseDurationMs ?? DEFAULT_LEASE_DURATION_MS,
        renewDeadlineMs: le.renewDeadlineMs ?? DEFAULT_RENEW_DEADLINE_MS,
        retryPeriodMs: le.retryPeriodMs ?? DEFAULT_RETRY_PERIOD_MS,
        ...(le.jitter !== undefined ? { jitter: le.jitter } : {}),
      };
      this.elector = new LeaderElector(opts.client, this.clock, config, {
        onStartedLeading: () => {
          this.log(`${config.identity} became leader`);
          this.beginTerm();
        },
        onStoppedLeading: () => {
          if (this.shuttingDown) {
            this.log(`${config.identity} stopped leading`);
            this.endTerm();
            return;
          }
          this.log(`leaderelection lost: ${config.identity}`);
          this.endTerm();
          this.opts.onLeadershipLost?.();
        },
        onNewLeader: (id) => {
          if (id !== config.identity) this.log(`new leader elected: ${id}`);
        },
        onError: (err) => this.recordError('leader-election', err),
      });
    }
  }

  /** The names of the controllers `--controllers` selected. */
  selectedControllers(): string[] {
    return this.selected.map((d) => d.name);
  }

  /** Campaigns for the Lease (controllers start when it is won), or starts them at once. */
  start(): void {
    if (this.started) return;
    this.started = true;
    if (this.elector) this.elector.start();
    else this.beginTerm();
  }

  isLeader(): boolean {
    return this.elector ? this.elector.isLeader() : this.term !== undefined;
  }

  /** The controllers running now. */
  runningControllers(): string[] {
    return this.term?.running.map((r) => r.name) ?? [];
  }

  /** Errors counted per controller. */
  errors(): ReadonlyMap<string, number> {
    return this.errorCounts;
  }

  /**
   * True when no controller is starting, their informers have told them of every object
   * (until then an empty queue means only that nothing has arrived yet), and every running
   * one has nothing queued or in flight.
   */
  idle(): boolean {
    const term = this.term;
    if (!term) return true;
    if (!term.done || !term.informers.hasSynced()) return false;
    return term.running.every((r) => r.controller.idle?.() ?? true);
  }

  /** Resolves once the controllers of the current term have all been started. */
  async waitForStart(): Promise<void> {
    await this.term?.starting;
  }

  private log(line: string): void {
    this.opts.log?.(line);
  }

  private recordError(controller: string, err: unknown): void {
    this.errorCounts.set(controller, (this.errorCounts.get(controller) ?? 0) + 1);
    if (this.opts.onError) this.opts.onError(controller, err);
    else this.log(`controller ${controller}: ${message(err)}`);
  }

  private context(name: string, informers: SharedInformerFactory): ControllerContext {
    return {
      client: this.opts.client,
      informers,
      clock: this.clock,
      eventRecorder: (component) => this.events.newRecorder(component),
      discover: () => this.opts.discover(),
      onResourcesChanged: (listener) => this.opts.onResourcesChanged?.(listener) ?? (() => {}),
      options: this.options,
      ...(this.opts.features ? { features: this.opts.features } : {}),
      onError: (err) => this.recordError(name, err),
      log: (line) => this.log(`${name}: ${line}`),
    };
  }

  private beginTerm(): void {
    const informers =
      this.opts.informers ??
      new SharedInformerFactory(this.opts.client, {
        resyncMs: this.opts.resyncMs ?? 5 * 60_000,
        // As kube-controller-manager and kube-scheduler do from 1.28: their informers hold no managedFields.
        dropManagedFields: true,
        onError: (err) => this.recordError('informer', err),
      });
    const term: Term = { informers, running: [], starting: Promise.resolve(), done: false };
    this.term = term;
    term.starting = (async () => {
      await this.ending;
      const served = this.selected.some((d) => d.requires?.length) ? await this.servedResources() : new Set<string>();
      for (const d of this.selected) {
        if (this.term !== term) break;
        const missing = (d.requires ?? []).filter((r) => !served.has(`${r.group}/${r.resource}`));
        if (missing.length > 0) {
          this.log(`skipping "${d.name}": ${missing.map((r) => (r.group ? `${r.resource}.${r.group}` : r.resource)).join(', ')} not served`);
          continue;
        }
        try {
          const controller = await d.start(this.context(d.name, informers));
          term.running.push({ name: d.name, controller });
        } catch (err) {
          this.recordError(d.name, err);
          this.log(`error starting "${d.name}": ${message(err)}`);
        }
      }
      informers.start();
      term.done = true;
    })();
  }

  private async servedResources(): Promise<Set<string>> {
    try {
      return new Set((await this.opts.discover()).map((r) => `${r.group}/${r.resource}`));
    } catch (err) {
      this.recordError('discovery', err);
      return new Set();
    }
  }

  private endTerm(): void {
    const term = this.term;
    if (!term) return;
    this.term = undefined;
    const previous = this.ending;
    this.ending = (async () => {
      await previous;
      await term.starting;
      for (const { name, controller } of term.running.reverse()) {
        try {
          await controller.stop();
        } catch (err) {
          this.recordError(name, err);
        }
      }
      if (term.informers !== this.opts.informers) await term.informers.stop();
    })();
  }

  /** Stops the controllers, releases the Lease and writes the queued Events. */
  stop(): Promise<void> {
    this.shuttingDown = true;
    return (this.stopping ??= (async () => {
      if (this.elector) await this.elector.stop({ release: true });
      this.endTerm();
      await this.ending;
      if (this.ownsEvents) await this.events.stop();
    })());
  }

  /** Stops without releasing the Lease or writing more (a crash, for tests of take-over). */
  kill(): Promise<void> {
    this.shuttingDown = true;
    return (this.stopping ??= (async () => {
      if (this.elector) await this.elector.stop({ release: false });
      this.endTerm();
      await this.ending;
      if (this.ownsEvents) await this.events.stop();
    })());
  }
}
