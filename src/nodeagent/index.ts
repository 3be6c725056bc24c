// Simulated nodes (KWOK's conventions): the node agent, its configuration and the pure stage engine.
export { NodeAgent, isSimulatedNode, DEFAULT_KUBELET_VERSION, DEFAULT_NODE_CIDR, DEFAULT_POD_CIDR, type NodeAgentOptions } from './agent.js';
export {
  configFromDocuments,
  emptyConfig,
  loadSimulatedNodeConfig,
  parseConfigText,
  SimulatedNodeConfigError,
  type ConfigDocument,
  type SimulatedNodeConfig,
} from './config.js';
export { chooseStage, playStage, stageDelayMs, stageMatches, type Stage, type StageOutcome } from './stage.js';
export { defaultNodeStages, defaultPodStages } from './defaults.js';
