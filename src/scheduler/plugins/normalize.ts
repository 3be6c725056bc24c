// Score normalization shared by plugins: raw scores mapped onto 0..100.
import { MAX_NODE_SCORE } from '../framework/interface.js';

/** Highest raw score gets 100, others in proportion (all zero stays zero). */
export function normalizeDefault(scores: number[]): void {
  const max = Math.max(0, ...scores);
  for (let i = 0; i < scores.length; i++) scores[i] = max === 0 ? 0 : Math.floor((scores[i] * MAX_NODE_SCORE) / max);
}

/** Lowest raw score gets 100: fewer is better (all zero gives every node 100). */
export function normalizeReverse(scores: number[]): void {
  const max = Math.max(0, ...scores);
  for (let i = 0; i < scores.length; i++) scores[i] = max === 0 ? MAX_NODE_SCORE : MAX_NODE_SCORE - Math.floor((scores[i] * MAX_NODE_SCORE) / max);
}
