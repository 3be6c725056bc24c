// The default profile (kube-scheduler 1.27's, less the volume plugins and ImageLocality):
// its plugins in kube's order and its score weights.
import type { FilterPlugin, PreFilterPlugin, ScorePlugin } from './interface.js';
import { nodeUnschedulable } from '../plugins/nodeunschedulable/nodeunschedulable.js';
import { nodeName } from '../plugins/nodename/nodename.js';
import { tainttoleration } from '../plugins/tainttoleration/tainttoleration.js';
import { nodeAffinity } from '../plugins/nodeaffinity/nodeaffinity.js';
import { nodePorts } from '../plugins/nodeports/nodeports.js';
import { nodeResourcesBalancedAllocation, nodeResourcesFit } from '../plugins/noderesources/fit.js';
import { podTopologySpread } from '../plugins/podtopologyspread/podtopologyspread.js';
import { interPodAffinity } from '../plugins/interpodaffinity/interpodaffinity.js';

export interface Profile {
  schedulerName: string;
  preFilters: PreFilterPlugin[];
  filters: FilterPlugin[];
  scores: { plugin: ScorePlugin; weight: number }[];
}

export function defaultProfile(): Profile {
  return {
    schedulerName: 'default-scheduler',
    preFilters: [podTopologySpread, interPodAffinity],
    filters: [nodeUnschedulable, nodeName, tainttoleration, nodeAffinity, nodePorts, nodeResourcesFit, podTopologySpread, interPodAffinity],
    scores: [
      { plugin: tainttoleration, weight: 3 },
      { plugin: nodeAffinity, weight: 2 },
      { plugin: podTopologySpread, weight: 2 },
      { plugin: interPodAffinity, weight: 2 },
      { plugin: nodeResourcesFit, weight: 1 },
      { plugin: nodeResourcesBalancedAllocation, weight: 1 },
    ],
  };
}
