// Golden bytes: objects from the upstream serialization fixtures (release 1.27 API types)
// written as literals, with the exact bytes the upstream encoder produced for each, read
// off those fixtures. Encoding must reproduce the bytes and decoding must give the object.
// Together they cover strings, integers, booleans, pointers, maps (strings, bytes, quantities,
// times, string lists), int-or-string, quantities, times, micro-times, byte fields, raw
// extensions, fieldsV1, inline structs, and lists of each.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { apiVersionOf, type GroupVersionKind, type KubeObject } from '../../apimachinery/types.js';
import { group, setFlavor } from '../../naming/index.js';
import { decodeObject, encodeObject } from './index.js';

// The fixtures carry the stock group names.
setFlavor('kubernetes');

/** The object metadata every fixture shares: every field set. */
function fixtureMetadata(): Record<string, unknown> {
  return {
    name: 'nameValue',
    generateName: 'generateNameValue',
    namespace: 'namespaceValue',
    selfLink: 'selfLinkValue',
    uid: 'uidValue',
    resourceVersion: 'resourceVersionValue',
    generation: 7,
    creationTimestamp: '2008-01-01T01:01:01Z',
    deletionTimestamp: '2009-01-01T01:01:01Z',
    deletionGracePeriodSeconds: 10,
    labels: {
      labelsKey: 'labelsValue',
    },
    annotations: {
      annotationsKey: 'annotationsValue',
    },
    ownerReferences: [
      {
        apiVersion: 'apiVersionValue',
        kind: 'kindValue',
        name: 'nameValue',
        uid: 'uidValue',
        controller: true,
        blockOwnerDeletion: true,
      },
    ],
    finalizers: [
      'finalizersValue',
    ],
    managedFields: [
      {
        manager: 'managerValue',
        operation: 'operationValue',
        apiVersion: 'apiVersionValue',
        time: '2004-01-01T01:01:01Z',
        fieldsType: 'fieldsTypeValue',
        fieldsV1: {},
        subresource: 'subresourceValue',
      },
    ],
  };
}

interface Golden {
  gvk: GroupVersionKind;
  object: Record<string, unknown>;
  hex: string;
}

const cases: Golden[] = [
  {
    gvk: { group: '', version: 'v1', kind: 'ConfigMap' },
    object: {
      metadata: fixtureMetadata(),
      immutable: true,
      data: {
        dataKey: 'dataValue',
      },
      binaryData: {
        binaryDataKey: 'Aw==',
      },
    },
    hex:
      '6b3873000a0f0a0276311209436f6e6669674d6170128f030ae0020a096e616d6556616c7565121167656e6572617465' +
      '4e616d6556616c75651a0e6e616d65737061636556616c7565220d73656c664c696e6b56616c75652a0875696456616c' +
      '756532147265736f7572636556657273696f6e56616c75653807420808cda1e6bb0410004a0808cdabf0ca041000500a' +
      '5a180a096c6162656c734b6579120b6c6162656c7356616c756562220a0e616e6e6f746174696f6e734b65791210616e' +
      '6e6f746174696f6e7356616c75656a350a096b696e6456616c75651a096e616d6556616c7565220875696456616c7565' +
      '2a0f61706956657273696f6e56616c756530013801720f66696e616c697a65727356616c75658a01620a0c6d616e6167' +
      '657256616c7565120e6f7065726174696f6e56616c75651a0f61706956657273696f6e56616c7565220808cde2cdff03' +
      '1000320f6669656c64735479706556616c75653a040a027b7d42107375627265736f7572636556616c756512140a0764' +
      '6174614b657912096461746156616c75651a120a0d62696e617279446174614b657912010320011a002200',
  },
  {
    gvk: { group: '', version: 'v1', kind: 'Secret' },
    object: {
      metadata: fixtureMetadata(),
      immutable: true,
      data: {
        dataKey: 'Ag==',
      },
      stringData: {
        stringDataKey: 'stringDataValue',
      },
      type: 'typeValue',
    },
    hex:
      '6b3873000a0c0a027631120653656372657412a0030ae0020a096e616d6556616c7565121167656e65726174654e616d' +
      '6556616c75651a0e6e616d65737061636556616c7565220d73656c664c696e6b56616c75652a0875696456616c756532' +
      '147265736f7572636556657273696f6e56616c75653807420808cda1e6bb0410004a0808cdabf0ca041000500a5a180a' +
      '096c6162656c734b6579120b6c6162656c7356616c756562220a0e616e6e6f746174696f6e734b65791210616e6e6f74' +
      '6174696f6e7356616c75656a350a096b696e6456616c75651a096e616d6556616c7565220875696456616c75652a0f61' +
      '706956657273696f6e56616c756530013801720f66696e616c697a65727356616c75658a01620a0c6d616e6167657256' +
      '616c7565120e6f7065726174696f6e56616c75651a0f61706956657273696f6e56616c7565220808cde2cdff03100032' +
      '0f6669656c64735479706556616c75653a040a027b7d42107375627265736f7572636556616c7565120c0a0764617461' +
      '4b65791201021a097479706556616c756522200a0d737472696e67446174614b6579120f737472696e67446174615661' +
      '6c756528011a002200',
  },
  {
    gvk: { group: '', version: 'v1', kind: 'Namespace' },
    object: {
      metadata: fixtureMetadata(),
      spec: {
        finalizers: [
          'finalizersValue',
        ],
      },
      status: {
        phase: 'phaseValue',
        conditions: [
          {
            type: 'typeValue',
            status: 'statusValue',
            lastTransitionTime: '2004-01-01T01:01:01Z',
            reason: 'reasonValue',
            message: 'messageValue',
          },
        ],
      },
    },
    hex:
      '6b3873000a0f0a02763112094e616d65737061636512c3030ae0020a096e616d6556616c7565121167656e6572617465' +
      '4e616d6556616c75651a0e6e616d65737061636556616c7565220d73656c664c696e6b56616c75652a0875696456616c' +
      '756532147265736f7572636556657273696f6e56616c75653807420808cda1e6bb0410004a0808cdabf0ca041000500a' +
      '5a180a096c6162656c734b6579120b6c6162656c7356616c756562220a0e616e6e6f746174696f6e734b65791210616e' +
      '6e6f746174696f6e7356616c75656a350a096b696e6456616c75651a096e616d6556616c7565220875696456616c7565' +
      '2a0f61706956657273696f6e56616c756530013801720f66696e616c697a65727356616c75658a01620a0c6d616e6167' +
      '657256616c7565120e6f7065726174696f6e56616c75651a0f61706956657273696f6e56616c7565220808cde2cdff03' +
      '1000320f6669656c64735479706556616c75653a040a027b7d42107375627265736f7572636556616c756512110a0f66' +
      '696e616c697a65727356616c75651a4b0a0a706861736556616c7565123d0a097479706556616c7565120b7374617475' +
      '7356616c7565220808cde2cdff0310002a0b726561736f6e56616c7565320c6d65737361676556616c75651a002200',
  },
  {
    gvk: { group: '', version: 'v1', kind: 'Status' },
    object: {
      metadata: {
        selfLink: 'selfLinkValue',
        resourceVersion: 'resourceVersionValue',
        continue: 'continueValue',
        remainingItemCount: 4,
      },
      status: 'statusValue',
      message: 'messageValue',
      reason: 'reasonValue',
      details: {
        name: 'nameValue',
        group: 'groupValue',
        kind: 'kindValue',
        uid: 'uidValue',
        causes: [
          {
            reason: 'reasonValue',
            message: 'messageValue',
            field: 'fieldValue',
          },
        ],
        retryAfterSeconds: 5,
      },
      code: 6,
    },
    hex:
      '6b3873000a0c0a027631120653746174757312bb010a360a0d73656c664c696e6b56616c756512147265736f75726365' +
      '56657273696f6e56616c75651a0d636f6e74696e756556616c75652004120b73746174757356616c75651a0c6d657373' +
      '61676556616c7565220b726561736f6e56616c75652a570a096e616d6556616c7565120a67726f757056616c75651a09' +
      '6b696e6456616c756522270a0b726561736f6e56616c7565120c6d65737361676556616c75651a0a6669656c6456616c' +
      '75652805320875696456616c756530061a002200',
  },
  {
    gvk: { group: '', version: 'v1', kind: 'DeleteOptions' },
    object: {
      gracePeriodSeconds: 1,
      preconditions: {
        uid: 'uidValue',
        resourceVersion: 'resourceVersionValue',
      },
      orphanDependents: true,
      propagationPolicy: 'propagationPolicyValue',
      dryRun: [
        'dryRunValue',
      ],
    },
    hex:
      '6b3873000a130a027631120d44656c6574654f7074696f6e73124b080112200a0875696456616c756512147265736f75' +
      '72636556657273696f6e56616c75651801221670726f7061676174696f6e506f6c69637956616c75652a0b6472795275' +
      '6e56616c75651a002200',
  },
  {
    gvk: { group: '', version: 'v1', kind: 'Service' },
    object: {
      metadata: fixtureMetadata(),
      spec: {
        ports: [
          {
            name: 'nameValue',
            protocol: 'protocolValue',
            appProtocol: 'appProtocolValue',
            port: 3,
            targetPort: 'targetPortValue',
            nodePort: 5,
          },
        ],
        selector: {
          selectorKey: 'selectorValue',
        },
        clusterIP: 'clusterIPValue',
        clusterIPs: [
          'clusterIPsValue',
        ],
        type: 'typeValue',
        externalIPs: [
          'externalIPsValue',
        ],
        sessionAffinity: 'sessionAffinityValue',
        loadBalancerIP: 'loadBalancerIPValue',
        loadBalancerSourceRanges: [
          'loadBalancerSourceRangesValue',
        ],
        externalName: 'externalNameValue',
        externalTrafficPolicy: 'externalTrafficPolicyValue',
        healthCheckNodePort: 12,
        publishNotReadyAddresses: true,
        sessionAffinityConfig: {
          clientIP: {
            timeoutSeconds: 1,
          },
        },
        ipFamilies: [
          'ipFamiliesValue',
        ],
        ipFamilyPolicy: 'ipFamilyPolicyValue',
        allocateLoadBalancerNodePorts: true,
        loadBalancerClass: 'loadBalancerClassValue',
        internalTrafficPolicy: 'internalTrafficPolicyValue',
      },
      status: {
        loadBalancer: {
          ingress: [
            {
              ip: 'ipValue',
              hostname: 'hostnameValue',
              ports: [
                {
                  port: 1,
                  protocol: 'protocolValue',
                  error: 'errorValue',
                },
              ],
            },
          ],
        },
        conditions: [
          {
            type: 'typeValue',
            status: 'statusValue',
            observedGeneration: 3,
            lastTransitionTime: '2004-01-01T01:01:01Z',
            reason: 'reasonValue',
            message: 'messageValue',
          },
        ],
      },
    },
    hex:
      '6b3873000a0d0a02763112075365727669636512ee060ae0020a096e616d6556616c7565121167656e65726174654e61' +
      '6d6556616c75651a0e6e616d65737061636556616c7565220d73656c664c696e6b56616c75652a0875696456616c7565' +
      '32147265736f7572636556657273696f6e56616c75653807420808cda1e6bb0410004a0808cdabf0ca041000500a5a18' +
      '0a096c6162656c734b6579120b6c6162656c7356616c756562220a0e616e6e6f746174696f6e734b65791210616e6e6f' +
      '746174696f6e7356616c75656a350a096b696e6456616c75651a096e616d6556616c7565220875696456616c75652a0f' +
      '61706956657273696f6e56616c756530013801720f66696e616c697a65727356616c75658a01620a0c6d616e61676572' +
      '56616c7565120e6f7065726174696f6e56616c75651a0f61706956657273696f6e56616c7565220808cde2cdff031000' +
      '320f6669656c64735479706556616c75653a040a027b7d42107375627265736f7572636556616c7565128a030a470a09' +
      '6e616d6556616c7565120d70726f746f636f6c56616c756518032215080110001a0f746172676574506f727456616c75' +
      '652805321061707050726f746f636f6c56616c7565121c0a0b73656c6563746f724b6579120d73656c6563746f725661' +
      '6c75651a0e636c7573746572495056616c756522097479706556616c75652a1065787465726e616c49507356616c7565' +
      '3a1473657373696f6e416666696e69747956616c756542136c6f616442616c616e636572495056616c75654a1d6c6f61' +
      '6442616c616e636572536f7572636552616e67657356616c7565521165787465726e616c4e616d6556616c75655a1a65' +
      '787465726e616c54726166666963506f6c69637956616c7565600c680172040a0208018a0113697046616d696c79506f' +
      '6c69637956616c756592010f636c757374657249507356616c75659a010f697046616d696c69657356616c7565a00101' +
      'aa01166c6f616442616c616e636572436c61737356616c7565b2011a696e7465726e616c54726166666963506f6c6963' +
      '7956616c75651a7c0a390a370a07697056616c7565120d686f73746e616d6556616c7565221d0801120d70726f746f63' +
      '6f6c56616c75651a0a6572726f7256616c7565123f0a097479706556616c7565120b73746174757356616c7565180322' +
      '0808cde2cdff0310002a0b726561736f6e56616c7565320c6d65737361676556616c75651a002200',
  },
  {
    gvk: { group: '', version: 'v1', kind: 'LimitRange' },
    object: {
      metadata: fixtureMetadata(),
      spec: {
        limits: [
          {
            type: 'typeValue',
            max: {
              maxKey: '0',
            },
            min: {
              minKey: '0',
            },
            default: {
              defaultKey: '0',
            },
            defaultRequest: {
              defaultRequestKey: '0',
            },
            maxLimitRequestRatio: {
              maxLimitRequestRatioKey: '0',
            },
          },
        ],
      },
    },
    hex:
      '6b3873000a100a027631120a4c696d697452616e676512dd030ae0020a096e616d6556616c7565121167656e65726174' +
      '654e616d6556616c75651a0e6e616d65737061636556616c7565220d73656c664c696e6b56616c75652a087569645661' +
      '6c756532147265736f7572636556657273696f6e56616c75653807420808cda1e6bb0410004a0808cdabf0ca04100050' +
      '0a5a180a096c6162656c734b6579120b6c6162656c7356616c756562220a0e616e6e6f746174696f6e734b6579121061' +
      '6e6e6f746174696f6e7356616c75656a350a096b696e6456616c75651a096e616d6556616c7565220875696456616c75' +
      '652a0f61706956657273696f6e56616c756530013801720f66696e616c697a65727356616c75658a01620a0c6d616e61' +
      '67657256616c7565120e6f7065726174696f6e56616c75651a0f61706956657273696f6e56616c7565220808cde2cdff' +
      '031000320f6669656c64735479706556616c75653a040a027b7d42107375627265736f7572636556616c756512780a76' +
      '0a097479706556616c7565120d0a066d61784b657912030a01301a0d0a066d696e4b657912030a013022110a0a646566' +
      '61756c744b657912030a01302a180a1164656661756c74526571756573744b657912030a0130321e0a176d61784c696d' +
      '697452657175657374526174696f4b657912030a01301a002200',
  },
  {
    gvk: { group: group('coordination'), version: 'v1', kind: 'Lease' },
    object: {
      metadata: fixtureMetadata(),
      spec: {
        holderIdentity: 'holderIdentityValue',
        leaseDurationSeconds: 2,
        acquireTime: '2003-01-01T01:01:01.000003Z',
        renewTime: '2004-01-01T01:01:01.000004Z',
        leaseTransitions: 5,
      },
    },
    hex:
      '6b3873000a1f0a16636f6f7264696e6174696f6e2e6b38732e696f2f763112054c656173651294030ae0020a096e616d' +
      '6556616c7565121167656e65726174654e616d6556616c75651a0e6e616d65737061636556616c7565220d73656c664c' +
      '696e6b56616c75652a0875696456616c756532147265736f7572636556657273696f6e56616c75653807420808cda1e6' +
      'bb0410004a0808cdabf0ca041000500a5a180a096c6162656c734b6579120b6c6162656c7356616c756562220a0e616e' +
      '6e6f746174696f6e734b65791210616e6e6f746174696f6e7356616c75656a350a096b696e6456616c75651a096e616d' +
      '6556616c7565220875696456616c75652a0f61706956657273696f6e56616c756530013801720f66696e616c697a6572' +
      '7356616c75658a01620a0c6d616e6167657256616c7565120e6f7065726174696f6e56616c75651a0f61706956657273' +
      '696f6e56616c7565220808cde2cdff031000320f6669656c64735479706556616c75653a040a027b7d42107375627265' +
      '736f7572636556616c7565122f0a13686f6c6465724964656e7469747956616c756510021a0908cdfbc8f00310b81722' +
      '0908cde2cdff0310a01f28051a002200',
  },
  {
    gvk: { group: group('rbac.authorization'), version: 'v1', kind: 'Role' },
    object: {
      metadata: fixtureMetadata(),
      rules: [
        {
          verbs: [
            'verbsValue',
          ],
          apiGroups: [
            'apiGroupsValue',
          ],
          resources: [
            'resourcesValue',
          ],
          resourceNames: [
            'resourceNamesValue',
          ],
          nonResourceURLs: [
            'nonResourceURLsValue',
          ],
        },
      ],
    },
    hex:
      '6b3873000a240a1c726261632e617574686f72697a6174696f6e2e6b38732e696f2f76311204526f6c6512bb030ae002' +
      '0a096e616d6556616c7565121167656e65726174654e616d6556616c75651a0e6e616d65737061636556616c7565220d' +
      '73656c664c696e6b56616c75652a0875696456616c756532147265736f7572636556657273696f6e56616c7565380742' +
      '0808cda1e6bb0410004a0808cdabf0ca041000500a5a180a096c6162656c734b6579120b6c6162656c7356616c756562' +
      '220a0e616e6e6f746174696f6e734b65791210616e6e6f746174696f6e7356616c75656a350a096b696e6456616c7565' +
      '1a096e616d6556616c7565220875696456616c75652a0f61706956657273696f6e56616c756530013801720f66696e61' +
      '6c697a65727356616c75658a01620a0c6d616e6167657256616c7565120e6f7065726174696f6e56616c75651a0f6170' +
      '6956657273696f6e56616c7565220808cde2cdff031000320f6669656c64735479706556616c75653a040a027b7d4210' +
      '7375627265736f7572636556616c756512560a0a766572627356616c7565120e61706947726f75707356616c75651a0e' +
      '7265736f757263657356616c756522127265736f757263654e616d657356616c75652a146e6f6e5265736f7572636555' +
      '524c7356616c75651a002200',
  },
  {
    gvk: { group: group('events'), version: 'v1', kind: 'Event' },
    object: {
      metadata: fixtureMetadata(),
      eventTime: '2002-01-01T01:01:01.000002Z',
      series: {
        count: 1,
        lastObservedTime: '2002-01-01T01:01:01.000002Z',
      },
      reportingController: 'reportingControllerValue',
      reportingInstance: 'reportingInstanceValue',
      action: 'actionValue',
      reason: 'reasonValue',
      regarding: {
        kind: 'kindValue',
        namespace: 'namespaceValue',
        name: 'nameValue',
        uid: 'uidValue',
        apiVersion: 'apiVersionValue',
        resourceVersion: 'resourceVersionValue',
        fieldPath: 'fieldPathValue',
      },
      related: {
        kind: 'kindValue',
        namespace: 'namespaceValue',
        name: 'nameValue',
        uid: 'uidValue',
        apiVersion: 'apiVersionValue',
        resourceVersion: 'resourceVersionValue',
        fieldPath: 'fieldPathValue',
      },
      note: 'noteValue',
      type: 'typeValue',
      deprecatedSource: {
        component: 'componentValue',
        host: 'hostValue',
      },
      deprecatedFirstTimestamp: '2013-01-01T01:01:01Z',
      deprecatedLastTimestamp: '2014-01-01T01:01:01Z',
      deprecatedCount: 15,
    },
    hex:
      '6b3873000a190a106576656e74732e6b38732e696f2f763112054576656e7412e4050ae0020a096e616d6556616c7565' +
      '121167656e65726174654e616d6556616c75651a0e6e616d65737061636556616c7565220d73656c664c696e6b56616c' +
      '75652a0875696456616c756532147265736f7572636556657273696f6e56616c75653807420808cda1e6bb0410004a08' +
      '08cdabf0ca041000500a5a180a096c6162656c734b6579120b6c6162656c7356616c756562220a0e616e6e6f74617469' +
      '6f6e734b65791210616e6e6f746174696f6e7356616c75656a350a096b696e6456616c75651a096e616d6556616c7565' +
      '220875696456616c75652a0f61706956657273696f6e56616c756530013801720f66696e616c697a65727356616c7565' +
      '8a01620a0c6d616e6167657256616c7565120e6f7065726174696f6e56616c75651a0f61706956657273696f6e56616c' +
      '7565220808cde2cdff031000320f6669656c64735479706556616c75653a040a027b7d42107375627265736f75726365' +
      '56616c7565120908cd94c4e10310d00f1a0d0801120908cd94c4e10310d00f22187265706f7274696e67436f6e74726f' +
      '6c6c657256616c75652a167265706f7274696e67496e7374616e636556616c7565320b616374696f6e56616c75653a0b' +
      '726561736f6e56616c756542670a096b696e6456616c7565120e6e616d65737061636556616c75651a096e616d655661' +
      '6c7565220875696456616c75652a0f61706956657273696f6e56616c756532147265736f7572636556657273696f6e56' +
      '616c75653a0e6669656c645061746856616c75654a670a096b696e6456616c7565120e6e616d65737061636556616c75' +
      '651a096e616d6556616c7565220875696456616c75652a0f61706956657273696f6e56616c756532147265736f757263' +
      '6556657273696f6e56616c75653a0e6669656c645061746856616c756552096e6f746556616c75655a09747970655661' +
      '6c7565621b0a0e636f6d706f6e656e7456616c75651209686f737456616c75656a0808cdea8887051000720808cdd18d' +
      '96051000780f1a002200',
  },
  {
    gvk: { group: 'autoscaling', version: 'v2', kind: 'HorizontalPodAutoscaler' },
    object: {
      metadata: fixtureMetadata(),
      spec: {
        scaleTargetRef: {
          kind: 'kindValue',
          name: 'nameValue',
          apiVersion: 'apiVersionValue',
        },
        minReplicas: 2,
        maxReplicas: 3,
        metrics: [
          {
            type: 'typeValue',
            object: {
              describedObject: {
                kind: 'kindValue',
                name: 'nameValue',
                apiVersion: 'apiVersionValue',
              },
              target: {
                type: 'typeValue',
                value: '0',
                averageValue: '0',
                averageUtilization: 4,
              },
              metric: {
                name: 'nameValue',
                selector: {
                  matchLabels: {
                    matchLabelsKey: 'matchLabelsValue',
                  },
                  matchExpressions: [
                    {
                      key: 'keyValue',
                      operator: 'operatorValue',
                      values: [
                        'valuesValue',
                      ],
                    },
                  ],
                },
              },
            },
            pods: {
              metric: {
                name: 'nameValue',
                selector: {
                  matchLabels: {
                    matchLabelsKey: 'matchLabelsValue',
                  },
                  matchExpressions: [
                    {
                      key: 'keyValue',
                      operator: 'operatorValue',
                      values: [
                        'valuesValue',
                      ],
                    },
                  ],
                },
              },
              target: {
                type: 'typeValue',
                value: '0',
                averageValue: '0',
                averageUtilization: 4,
              },
            },
            resource: {
              name: 'nameValue',
              target: {
                type: 'typeValue',
                value: '0',
                averageValue: '0',
                averageUtilization: 4,
              },
            },
            containerResource: {
              name: 'nameValue',
              target: {
                type: 'typeValue',
                value: '0',
                averageValue: '0',
                averageUtilization: 4,
              },
              container: 'containerValue',
            },
            external: {
              metric: {
                name: 'nameValue',
                selector: {
                  matchLabels: {
                    matchLabelsKey: 'matchLabelsValue',
                  },
                  matchExpressions: [
                    {
                      key: 'keyValue',
                      operator: 'operatorValue',
                      values: [
                        'valuesValue',
                      ],
                    },
                  ],
                },
              },
              target: {
                type: 'typeValue',
                value: '0',
                averageValue: '0',
                averageUtilization: 4,
              },
            },
          },
        ],
        behavior: {
          scaleUp: {
            stabilizationWindowSeconds: 3,
            selectPolicy: 'selectPolicyValue',
            policies: [
              {
                type: 'typeValue',
                value: 2,
                periodSeconds: 3,
              },
            ],
          },
          scaleDown: {
            stabilizationWindowSeconds: 3,
            selectPolicy: 'selectPolicyValue',
            policies: [
              {
                type: 'typeValue',
                value: 2,
                periodSeconds: 3,
              },
            ],
          },
        },
      },
      status: {
        observedGeneration: 1,
        lastScaleTime: '2002-01-01T01:01:01Z',
        currentReplicas: 3,
        desiredReplicas: 4,
        currentMetrics: [
          {
            type: 'typeValue',
            object: {
              metric: {
                name: 'nameValue',
                selector: {
                  matchLabels: {
                    matchLabelsKey: 'matchLabelsValue',
                  },
                  matchExpressions: [
                    {
                      key: 'keyValue',
                      operator: 'operatorValue',
                      values: [
                        'valuesValue',
                      ],
                    },
                  ],
                },
              },
              current: {
                value: '0',
                averageValue: '0',
                averageUtilization: 3,
              },
              describedObject: {
                kind: 'kindValue',
                name: 'nameValue',
                apiVersion: 'apiVersionValue',
              },
            },
            pods: {
              metric: {
                name: 'nameValue',
                selector: {
                  matchLabels: {
                    matchLabelsKey: 'matchLabelsValue',
                  },
                  matchExpressions: [
                    {
                      key: 'keyValue',
                      operator: 'operatorValue',
                      values: [
                        'valuesValue',
                      ],
                    },
                  ],
                },
              },
              current: {
                value: '0',
                averageValue: '0',
                averageUtilization: 3,
              },
            },
            resource: {
              name: 'nameValue',
              current: {
                value: '0',
                averageValue: '0',
                averageUtilization: 3,
              },
            },
            containerResource: {
              name: 'nameValue',
              current: {
                value: '0',
                averageValue: '0',
                averageUtilization: 3,
              },
              container: 'containerValue',
            },
            external: {
              metric: {
                name: 'nameValue',
                selector: {
                  matchLabels: {
                    matchLabelsKey: 'matchLabelsValue',
                  },
                  matchExpressions: [
                    {
                      key: 'keyValue',
                      operator: 'operatorValue',
                      values: [
                        'valuesValue',
                      ],
                    },
                  ],
                },
              },
              current: {
                value: '0',
                averageValue: '0',
                averageUtilization: 3,
              },
            },
          },
        ],
        conditions: [
          {
            type: 'typeValue',
            status: 'statusValue',
            lastTransitionTime: '2003-01-01T01:01:01Z',
            reason: 'reasonValue',
            message: 'messageValue',
          },
        ],
      },
    },
    hex:
      '6b3873000a290a0e6175746f7363616c696e672f76321217486f72697a6f6e74616c506f644175746f7363616c657212' +
      'ec0b0ae0020a096e616d6556616c7565121167656e65726174654e616d6556616c75651a0e6e616d6573706163655661' +
      '6c7565220d73656c664c696e6b56616c75652a0875696456616c756532147265736f7572636556657273696f6e56616c' +
      '75653807420808cda1e6bb0410004a0808cdabf0ca041000500a5a180a096c6162656c734b6579120b6c6162656c7356' +
      '616c756562220a0e616e6e6f746174696f6e734b65791210616e6e6f746174696f6e7356616c75656a350a096b696e64' +
      '56616c75651a096e616d6556616c7565220875696456616c75652a0f61706956657273696f6e56616c75653001380172' +
      '0f66696e616c697a65727356616c75658a01620a0c6d616e6167657256616c7565120e6f7065726174696f6e56616c75' +
      '651a0f61706956657273696f6e56616c7565220808cde2cdff031000320f6669656c64735479706556616c75653a040a' +
      '027b7d42107375627265736f7572636556616c756512f5040a270a096b696e6456616c756512096e616d6556616c7565' +
      '1a0f61706956657273696f6e56616c75651002180322f3030a097479706556616c7565129d010a270a096b696e645661' +
      '6c756512096e616d6556616c75651a0f61706956657273696f6e56616c756512170a097479706556616c756512030a01' +
      '301a030a013020041a590a096e616d6556616c7565124c0a220a0e6d617463684c6162656c734b657912106d61746368' +
      '4c6162656c7356616c756512260a086b657956616c7565120d6f70657261746f7256616c75651a0b76616c7565735661' +
      '6c75651a740a590a096e616d6556616c7565124c0a220a0e6d617463684c6162656c734b657912106d617463684c6162' +
      '656c7356616c756512260a086b657956616c7565120d6f70657261746f7256616c75651a0b76616c75657356616c7565' +
      '12170a097479706556616c756512030a01301a030a0130200422240a096e616d6556616c756512170a09747970655661' +
      '6c756512030a01301a030a013020042a740a590a096e616d6556616c7565124c0a220a0e6d617463684c6162656c734b' +
      '657912106d617463684c6162656c7356616c756512260a086b657956616c7565120d6f70657261746f7256616c75651a' +
      '0b76616c75657356616c756512170a097479706556616c756512030a01301a030a013020043a340a096e616d6556616c' +
      '756512170a097479706556616c756512030a01301a030a013020041a0e636f6e7461696e657256616c75652a500a260a' +
      '1173656c656374506f6c69637956616c7565120f0a097479706556616c756510021803180312260a1173656c65637450' +
      '6f6c69637956616c7565120f0a097479706556616c75651002180318031a8e040801120808cd94c4e103100018032004' +
      '2abc030a097479706556616c75651292010a590a096e616d6556616c7565124c0a220a0e6d617463684c6162656c734b' +
      '657912106d617463684c6162656c7356616c756512260a086b657956616c7565120d6f70657261746f7256616c75651a' +
      '0b76616c75657356616c7565120c0a030a013012030a013018031a270a096b696e6456616c756512096e616d6556616c' +
      '75651a0f61706956657273696f6e56616c75651a690a590a096e616d6556616c7565124c0a220a0e6d617463684c6162' +
      '656c734b657912106d617463684c6162656c7356616c756512260a086b657956616c7565120d6f70657261746f725661' +
      '6c75651a0b76616c75657356616c7565120c0a030a013012030a0130180322190a096e616d6556616c7565120c0a030a' +
      '013012030a013018032a690a590a096e616d6556616c7565124c0a220a0e6d617463684c6162656c734b657912106d61' +
      '7463684c6162656c7356616c756512260a086b657956616c7565120d6f70657261746f7256616c75651a0b76616c7565' +
      '7356616c7565120c0a030a013012030a013018033a290a096e616d6556616c7565120c0a030a013012030a013018031a' +
      '0e636f6e7461696e657256616c7565323d0a097479706556616c7565120b73746174757356616c75651a0808cdfbc8f0' +
      '031000220b726561736f6e56616c75652a0c6d65737361676556616c75651a002200',
  },
  {
    gvk: { group: group('certificates'), version: 'v1', kind: 'CertificateSigningRequest' },
    object: {
      metadata: fixtureMetadata(),
      spec: {
        request: 'AQ==',
        signerName: 'signerNameValue',
        expirationSeconds: 8,
        usages: [
          'usagesValue',
        ],
        username: 'usernameValue',
        uid: 'uidValue',
        groups: [
          'groupsValue',
        ],
        extra: {
          extraKey: [
            'extraValue',
          ],
        },
      },
      status: {
        conditions: [
          {
            type: 'typeValue',
            status: 'statusValue',
            reason: 'reasonValue',
            message: 'messageValue',
            lastUpdateTime: '2004-01-01T01:01:01Z',
            lastTransitionTime: '2005-01-01T01:01:01Z',
          },
        ],
        certificate: 'Ag==',
      },
    },
    hex:
      '6b3873000a330a166365727469666963617465732e6b38732e696f2f7631121943657274696669636174655369676e69' +
      '6e67526571756573741296040ae0020a096e616d6556616c7565121167656e65726174654e616d6556616c75651a0e6e' +
      '616d65737061636556616c7565220d73656c664c696e6b56616c75652a0875696456616c756532147265736f75726365' +
      '56657273696f6e56616c75653807420808cda1e6bb0410004a0808cdabf0ca041000500a5a180a096c6162656c734b65' +
      '79120b6c6162656c7356616c756562220a0e616e6e6f746174696f6e734b65791210616e6e6f746174696f6e7356616c' +
      '75656a350a096b696e6456616c75651a096e616d6556616c7565220875696456616c75652a0f61706956657273696f6e' +
      '56616c756530013801720f66696e616c697a65727356616c75658a01620a0c6d616e6167657256616c7565120e6f7065' +
      '726174696f6e56616c75651a0f61706956657273696f6e56616c7565220808cde2cdff031000320f6669656c64735479' +
      '706556616c75653a040a027b7d42107375627265736f7572636556616c756512630a0101120d757365726e616d655661' +
      '6c75651a0875696456616c7565220b67726f75707356616c75652a0b75736167657356616c756532180a086578747261' +
      '4b6579120c0a0a657874726156616c75653a0f7369676e65724e616d6556616c756540081a4c0a470a09747970655661' +
      '6c7565120b726561736f6e56616c75651a0c6d65737361676556616c7565220808cde2cdff0310002a0808cdecd78e04' +
      '1000320b73746174757356616c75651201021a002200',
  },
  {
    gvk: { group: 'apps', version: 'v1', kind: 'ControllerRevision' },
    object: {
      metadata: fixtureMetadata(),
      data: {
        apiVersion: 'example.com/v1',
        kind: 'CustomType',
        spec: {
          replicas: 1,
        },
        status: {
          available: 1,
        },
      },
      revision: 3,
    },
    hex:
      '6b3873000a1d0a07617070732f76311212436f6e74726f6c6c65725265766973696f6e12cb030ae0020a096e616d6556' +
      '616c7565121167656e65726174654e616d6556616c75651a0e6e616d65737061636556616c7565220d73656c664c696e' +
      '6b56616c75652a0875696456616c756532147265736f7572636556657273696f6e56616c75653807420808cda1e6bb04' +
      '10004a0808cdabf0ca041000500a5a180a096c6162656c734b6579120b6c6162656c7356616c756562220a0e616e6e6f' +
      '746174696f6e734b65791210616e6e6f746174696f6e7356616c75656a350a096b696e6456616c75651a096e616d6556' +
      '616c7565220875696456616c75652a0f61706956657273696f6e56616c756530013801720f66696e616c697a65727356' +
      '616c75658a01620a0c6d616e6167657256616c7565120e6f7065726174696f6e56616c75651a0f61706956657273696f' +
      '6e56616c7565220808cde2cdff031000320f6669656c64735479706556616c75653a040a027b7d42107375627265736f' +
      '7572636556616c756512640a627b2261706956657273696f6e223a226578616d706c652e636f6d2f7631222c226b696e' +
      '64223a22437573746f6d54797065222c2273706563223a7b227265706c69636173223a317d2c22737461747573223a7b' +
      '22617661696c61626c65223a317d7d18031a002200',
  },
  {
    gvk: { group: 'policy', version: 'v1', kind: 'PodDisruptionBudget' },
    object: {
      metadata: fixtureMetadata(),
      spec: {
        minAvailable: 'minAvailableValue',
        selector: {
          matchLabels: {
            matchLabelsKey: 'matchLabelsValue',
          },
          matchExpressions: [
            {
              key: 'keyValue',
              operator: 'operatorValue',
              values: [
                'valuesValue',
              ],
            },
          ],
        },
        maxUnavailable: 'maxUnavailableValue',
        unhealthyPodEvictionPolicy: 'unhealthyPodEvictionPolicyValue',
      },
      status: {
        observedGeneration: 1,
        disruptedPods: {
          disruptedPodsKey: null,
        },
        disruptionsAllowed: 3,
        currentHealthy: 4,
        desiredHealthy: 5,
        expectedPods: 6,
        conditions: [
          {
            type: 'typeValue',
            status: 'statusValue',
            observedGeneration: 3,
            lastTransitionTime: '2004-01-01T01:01:01Z',
            reason: 'reasonValue',
            message: 'messageValue',
          },
        ],
      },
    },
    hex:
      '6b3873000a200a09706f6c6963792f76311213506f6444697372757074696f6e42756467657412ec040ae0020a096e61' +
      '6d6556616c7565121167656e65726174654e616d6556616c75651a0e6e616d65737061636556616c7565220d73656c66' +
      '4c696e6b56616c75652a0875696456616c756532147265736f7572636556657273696f6e56616c75653807420808cda1' +
      'e6bb0410004a0808cdabf0ca041000500a5a180a096c6162656c734b6579120b6c6162656c7356616c756562220a0e61' +
      '6e6e6f746174696f6e734b65791210616e6e6f746174696f6e7356616c75656a350a096b696e6456616c75651a096e61' +
      '6d6556616c7565220875696456616c75652a0f61706956657273696f6e56616c756530013801720f66696e616c697a65' +
      '727356616c75658a01620a0c6d616e6167657256616c7565120e6f7065726174696f6e56616c75651a0f617069566572' +
      '73696f6e56616c7565220808cde2cdff031000320f6669656c64735479706556616c75653a040a027b7d421073756272' +
      '65736f7572636556616c756512a3010a17080110001a116d696e417661696c61626c6556616c7565124c0a220a0e6d61' +
      '7463684c6162656c734b657912106d617463684c6162656c7356616c756512260a086b657956616c7565120d6f706572' +
      '61746f7256616c75651a0b76616c75657356616c75651a19080110001a136d6178556e617661696c61626c6556616c75' +
      '65221f756e6865616c746879506f644576696374696f6e506f6c69637956616c75651a61080112140a10646973727570' +
      '746564506f64734b6579120018032004280530063a3f0a097479706556616c7565120b73746174757356616c75651803' +
      '220808cde2cdff0310002a0b726561736f6e56616c7565320c6d65737361676556616c75651a002200',
  },
  {
    gvk: { group: group('admissionregistration'), version: 'v1', kind: 'ValidatingWebhookConfiguration' },
    object: {
      metadata: fixtureMetadata(),
      webhooks: [
        {
          name: 'nameValue',
          clientConfig: {
            url: 'urlValue',
            service: {
              namespace: 'namespaceValue',
              name: 'nameValue',
              path: 'pathValue',
              port: 4,
            },
            caBundle: 'Ag==',
          },
          rules: [
            {
              operations: [
                'operationsValue',
              ],
              apiGroups: [
                'apiGroupsValue',
              ],
              apiVersions: [
                'apiVersionsValue',
              ],
              resources: [
                'resourcesValue',
              ],
              scope: 'scopeValue',
            },
          ],
          failurePolicy: 'failurePolicyValue',
          matchPolicy: 'matchPolicyValue',
          namespaceSelector: {
            matchLabels: {
              matchLabelsKey: 'matchLabelsValue',
            },
            matchExpressions: [
              {
                key: 'keyValue',
                operator: 'operatorValue',
                values: [
                  'valuesValue',
                ],
              },
            ],
          },
          objectSelector: {
            matchLabels: {
              matchLabelsKey: 'matchLabelsValue',
            },
            matchExpressions: [
              {
                key: 'keyValue',
                operator: 'operatorValue',
                values: [
                  'valuesValue',
                ],
              },
            ],
          },
          sideEffects: 'sideEffectsValue',
          timeoutSeconds: 7,
          admissionReviewVersions: [
            'admissionReviewVersionsValue',
          ],
          matchConditions: [
            {
              name: 'nameValue',
              expression: 'expressionValue',
            },
          ],
        },
      ],
    },
    hex:
      '6b3873000a410a1f61646d697373696f6e726567697374726174696f6e2e6b38732e696f2f7631121e56616c69646174' +
      '696e67576562686f6f6b436f6e66696775726174696f6e128f060ae0020a096e616d6556616c7565121167656e657261' +
      '74654e616d6556616c75651a0e6e616d65737061636556616c7565220d73656c664c696e6b56616c75652a0875696456' +
      '616c756532147265736f7572636556657273696f6e56616c75653807420808cda1e6bb0410004a0808cdabf0ca041000' +
      '500a5a180a096c6162656c734b6579120b6c6162656c7356616c756562220a0e616e6e6f746174696f6e734b65791210' +
      '616e6e6f746174696f6e7356616c75656a350a096b696e6456616c75651a096e616d6556616c7565220875696456616c' +
      '75652a0f61706956657273696f6e56616c756530013801720f66696e616c697a65727356616c75658a01620a0c6d616e' +
      '6167657256616c7565120e6f7065726174696f6e56616c75651a0f61706956657273696f6e56616c7565220808cde2cd' +
      'ff031000320f6669656c64735479706556616c75653a040a027b7d42107375627265736f7572636556616c756512a903' +
      '0a096e616d6556616c756512370a280a0e6e616d65737061636556616c756512096e616d6556616c75651a0970617468' +
      '56616c756520041201021a0875726c56616c75651a510a0f6f7065726174696f6e7356616c7565123e0a0e6170694772' +
      '6f75707356616c7565121061706956657273696f6e7356616c75651a0e7265736f757263657356616c7565220a73636f' +
      '706556616c756522126661696c757265506f6c69637956616c75652a4c0a220a0e6d617463684c6162656c734b657912' +
      '106d617463684c6162656c7356616c756512260a086b657956616c7565120d6f70657261746f7256616c75651a0b7661' +
      '6c75657356616c75653210736964654566666563747356616c75653807421c61646d697373696f6e5265766965775665' +
      '7273696f6e7356616c75654a106d61746368506f6c69637956616c7565524c0a220a0e6d617463684c6162656c734b65' +
      '7912106d617463684c6162656c7356616c756512260a086b657956616c7565120d6f70657261746f7256616c75651a0b' +
      '76616c75657356616c75655a1c0a096e616d6556616c7565120f65787072657373696f6e56616c75651a002200',
  },
];

function withType(c: Golden): KubeObject {
  return { kind: c.gvk.kind, apiVersion: apiVersionOf(c.gvk), ...c.object };
}

for (const c of cases) {
  test(`${c.gvk.kind} encodes to the upstream bytes`, () => {
    assert.equal(Buffer.from(encodeObject(withType(c), c.gvk)).toString('hex'), c.hex);
  });

  test(`${c.gvk.kind} decodes from the upstream bytes, keys in upstream order`, () => {
    const decoded = decodeObject(Buffer.from(c.hex, 'hex'));
    assert.deepEqual(decoded, withType(c));
    assert.equal(JSON.stringify(decoded), JSON.stringify(withType(c)));
  });
}
