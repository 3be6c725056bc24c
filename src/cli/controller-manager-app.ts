// orch-controller-manager's work, apart from the process entry point so tests can run it:
// the controllers of the manager, out of process, over HTTPS from a kubeconfig, with
// discovery from the server's endpoints and leader election on by default.
import { readFileSync } from 'node:fs';
import type { Clock } from '../apimachinery/clock.js';
import type { FlagDefinition, ParsedFlags } from '../apimachinery/flags.js';
import { HttpClient } from '../client/http.js';
import { execPluginApiVersion, readKubeconfig, type ClientConfig } from '../client/kubeconfig.js';
import { builtinControllers, ControllerManager, discoverFromServer, type ControllerDescriptor, type ControllerManagerOptions, type DiscoveryTransport } from '../controllers/index.js';
import { flavorOfGroup, setFlavor, type Flavor } from '../naming/index.js';
import { controllerFlagDefinitions, controllerManagerFlags } from './flags.js';

export const controllerManagerFlagDefinitions: FlagDefinition[] = [
  { name: 'help', type: 'boolean', default: false, usage: 'Print the flags and exit.' },
  { name: 'version', type: 'boolean', default: false, usage: 'Print the version and exit.' },
  { name: 'kubeconfig', type: 'string', usage: 'Path to kubeconfig file with authorization and master location information.' },
  {
    name: 'compat',
    type: 'string',
    usage: "Naming flavor of the server: orch or kubernetes. Unset, it is read from the server's discovery.",
  },
  {
    name: 'root-ca-file',
    type: 'string',
    usage: "If set, this root certificate authority will be included in service account's token secret. This must be a valid PEM-encoded CA bundle (the kubeconfig's CA when unset).",
  },
  ...controllerFlagDefinitions,
];

export interface ControllerManagerRunOptions {
  log?: (line: string) => void;
  clock?: Clock;
  /** The controllers to choose from (the built-in ones by default). */
  descriptors?: readonly ControllerDescriptor[];
  /** Told when the Lease is lost while running (the entry point exits then, as kube-controller-manager does). */
  onLeadershipLost?: () => void;
}

export interface RunningControllerManager {
  manager: ControllerManager;
  stop(): Promise<void>;
}

/** The flavor whose protocol the kubeconfig's credential plugin names, if it runs one of either. */
export function flavorOfExecPlugin(kubeconfig: string): Flavor | undefined {
  const apiVersion = execPluginApiVersion(kubeconfig) ?? '';
  const slash = apiVersion.lastIndexOf('/');
  return slash < 0 ? undefined : flavorOfGroup(apiVersion.slice(0, slash));
}

/** The flavor a server speaks, from the groups its discovery lists. */
export async function detectFlavor(t: DiscoveryTransport): Promise<Flavor> {
  const res = await t.request('GET', '/apis');
  if (res.statusCode !== 200) throw new Error(`discovery: GET /apis: status ${res.statusCode}`);
  const list = JSON.parse(res.body.toString('utf8')) as { groups?: { name?: string }[] };
  return (list.groups ?? []).some((g) => typeof g.name === 'string' && flavorOfGroup(g.name) === 'kubernetes') ? 'kubernetes' : 'orch';
}

export async function startControllerManager(flags: ParsedFlags, opts: ControllerManagerRunOptions = {}): Promise<RunningControllerManager> {
  const settings = controllerManagerFlags(flags);
  return startAgainstServer(flags, { role: 'the controller manager', userAgent: 'orch-controller-manager' }, opts, (config) => {
    const rootCAFile = flags.string('root-ca-file');
    const rootCA = rootCAFile ? readFileSync(rootCAFile, 'utf8') : config.caPem;
    return {
      descriptors: opts.descriptors ?? builtinControllers({ rootCA: () => rootCA, ...(settings.nodeIpam ? { nodeIpam: settings.nodeIpam } : {}) }),
      controllers: settings.controllers,
      options: settings.options,
      leaderElection: settings.leaderElection,
    };
  });
}

/** What a component's manager runs: its controllers and how it campaigns. */
export type ComponentManagerOptions = Pick<ControllerManagerOptions, 'descriptors' | 'controllers' | 'leaderElection'> & Partial<Pick<ControllerManagerOptions, 'options'>>;

/**
 * A controller manager over HTTPS against the server a kubeconfig names (`--kubeconfig`,
 * `--compat`), shared by the out-of-process components; `build` says what it runs once the
 * flavor is settled.
 */
export async function startAgainstServer(
  flags: ParsedFlags,
  who: { role: string; userAgent: string },
  opts: Pick<ControllerManagerRunOptions, 'clock' | 'log' | 'onLeadershipLost'>,
  build: (config: ClientConfig) => ComponentManagerOptions,
): Promise<RunningControllerManager> {
  const kubeconfig = flags.string('kubeconfig');
  if (!kubeconfig) throw new Error(`--kubeconfig is required: ${who.role} runs against an API server`);
  const compat = flags.string('compat');
  if (compat !== undefined && compat !== 'orch' && compat !== 'kubernetes') throw new Error(`--compat: must be orch or kubernetes, not "${compat}"`);
  // The flavor is chosen before the kubeconfig is read: a credential plugin speaks the
  // flavor's protocol (`client.authentication.<domain>`, its ExecCredential in the flavor's
  // environment variable). Unset, the plugin's own group names it, else the server's discovery.
  const pluginFlavor = compat === undefined ? flavorOfExecPlugin(kubeconfig) : undefined;
  const chosen = (compat as Flavor | undefined) ?? pluginFlavor;
  if (chosen) setFlavor(chosen);
  const config = readKubeconfig(kubeconfig);
  const client = new HttpClient(config, { userAgent: who.userAgent });
  try {
    if (compat === undefined) {
      const detected = await detectFlavor(client);
      if (pluginFlavor && detected !== pluginFlavor) {
        throw new Error(`--compat: the kubeconfig's credential plugin speaks the ${pluginFlavor} flavor's protocol, but the server serves the ${detected} flavor`);
      }
      setFlavor(detected);
    }
    const manager = new ControllerManager({
      client,
      ...build(config),
      discover: () => discoverFromServer(client),
      ...(opts.clock ? { clock: opts.clock } : {}),
      ...(opts.log ? { log: opts.log } : {}),
      ...(opts.onLeadershipLost ? { onLeadershipLost: opts.onLeadershipLost } : {}),
    });
    manager.start();
    return {
      manager,
      async stop() {
        await manager.stop();
        client.close();
      },
    };
  } catch (err) {
    client.close();
    throw err;
  }
}
