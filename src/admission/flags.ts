// The admission flags, named as kube-apiserver names them.
import type { FlagDefinition } from '../apimachinery/flags.js';

export const admissionFlagDefinitions: FlagDefinition[] = [
  {
    name: 'enable-admission-plugins',
    type: 'stringList',
    default: [],
    usage: 'admission plugins that should be enabled in addition to default enabled ones (comma list; order is irrelevant)',
  },
  {
    name: 'disable-admission-plugins',
    type: 'stringList',
    default: [],
    usage: 'admission plugins that should be disabled although they are in the default enabled plugins list (comma list)',
  },
  {
    name: 'admission-control-config-file',
    type: 'string',
    usage: 'file with admission control configuration (an AdmissionConfiguration, YAML or JSON)',
  },
];
