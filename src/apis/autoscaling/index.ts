// The autoscaling group.
import type { VersionConversion } from '../../rest/index.js';
import type { KindSpec } from '../strategy.js';
import { horizontalPodAutoscalers, hpaV1Conversion } from './hpa.js';

export const autoscalingKinds: Record<string, KindSpec> = { HorizontalPodAutoscaler: horizontalPodAutoscalers };

export const autoscalingConversions: Record<string, VersionConversion> = {
  'autoscaling/v1/HorizontalPodAutoscaler': hpaV1Conversion,
};
