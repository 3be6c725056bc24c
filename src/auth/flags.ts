// The flags the authentication and authorization modules own, named as kube-apiserver names them.
import type { FlagDefinition } from '../apimachinery/flags.js';

const authenticationFlagDefinitions: FlagDefinition[] = [
  { name: 'anonymous-auth', type: 'boolean', default: true, usage: 'Enables anonymous requests to the secure port. Anonymous requests have a username of system:anonymous and a group of system:unauthenticated.' },
  { name: 'client-ca-file', type: 'string', usage: 'A PEM bundle of certificate authorities; a client certificate signed by one of them is authenticated with the CommonName as user and the Organizations as groups. Defaults to the CA of the data directory.' },
  { name: 'token-auth-file', type: 'string', usage: 'A CSV file (token,user,uid,"group1,group2") that secures the API server with static bearer tokens.' },
  { name: 'enable-bootstrap-token-auth', type: 'boolean', default: false, usage: 'Allows bootstrap-token Secrets in the system namespace to be used for TLS bootstrapping authentication.' },
  { name: 'service-account-key-file', type: 'stringList', default: [], usage: 'PEM file with public (or private) keys that verify service account tokens; repeatable. Defaults to the signing key.' },
  { name: 'service-account-signing-key-file', type: 'string', usage: 'PEM file with the private key that signs service account tokens. Defaults to the data directory key.' },
  { name: 'service-account-issuer', type: 'stringList', default: [], usage: 'Identifier of the service account token issuer; the first signs, all are accepted. Defaults to https://<external address>.' },
  { name: 'service-account-jwks-uri', type: 'string', usage: 'Overrides the jwks_uri of the discovery document at /.well-known/openid-configuration.' },
  { name: 'service-account-max-token-expiration', type: 'duration', usage: 'The maximum validity duration of a token created by the service account token issuer.' },
  { name: 'service-account-lookup', type: 'boolean', default: true, usage: 'If true, validate service account tokens exist in storage as part of authentication.' },
  { name: 'api-audiences', type: 'stringList', default: [], usage: 'Identifiers of the API. Tokens must be issued for at least one of them. Defaults to the service account issuers.' },
  { name: 'oidc-issuer-url', type: 'string', usage: 'The URL of the OpenID issuer, only HTTPS scheme will be accepted.' },
  { name: 'oidc-client-id', type: 'string', usage: 'The client ID for the OpenID Connect client, must be set if oidc-issuer-url is set.' },
  { name: 'oidc-username-claim', type: 'string', default: 'sub', usage: 'The OpenID claim to use as the user name.' },
  { name: 'oidc-username-prefix', type: 'string', usage: "Prefix prepended to username claims; '-' disables prefixing." },
  { name: 'oidc-groups-claim', type: 'string', usage: 'The OpenID claim to use for the groups of the user (an array of strings).' },
  { name: 'oidc-groups-prefix', type: 'string', usage: 'Prefix prepended to group claims.' },
  { name: 'oidc-required-claim', type: 'stringList', default: [], usage: 'A key=value pair that must be present in the ID token; repeatable.' },
  { name: 'oidc-ca-file', type: 'string', usage: "The CA that signed the identity provider's serving certificate. Defaults to the host's root CAs." },
  { name: 'oidc-signing-algs', type: 'stringList', default: ['RS256'], usage: 'Allowed JOSE asymmetric signing algorithms.' },
  { name: 'authentication-token-webhook-config-file', type: 'string', usage: 'File with webhook configuration for token authentication in kubeconfig format.' },
  { name: 'authentication-token-webhook-version', type: 'string', default: 'v1beta1', usage: 'The API version of the TokenReview to send to and expect from the webhook (v1 or v1beta1).' },
  { name: 'authentication-token-webhook-cache-ttl', type: 'duration', default: 120_000, usage: 'The duration to cache responses from the webhook token authenticator.' },
  { name: 'requestheader-username-headers', type: 'stringList', default: [], usage: 'List of request headers to inspect for usernames. X-Remote-User is common.' },
  { name: 'requestheader-group-headers', type: 'stringList', default: [], usage: 'List of request headers to inspect for groups. X-Remote-Group is suggested.' },
  { name: 'requestheader-extra-headers-prefix', type: 'stringList', default: [], usage: 'List of request header prefixes to inspect. X-Remote-Extra- is suggested.' },
  { name: 'requestheader-client-ca-file', type: 'string', usage: 'Root certificate bundle that verifies client certificates on incoming requests before the usernames in the request headers are trusted.' },
  { name: 'requestheader-allowed-names', type: 'stringList', default: [], usage: 'List of client certificate common names allowed to provide usernames in the request headers. Empty allows any.' },
];

const authorizationFlagDefinitions: FlagDefinition[] = [
  { name: 'authorization-mode', type: 'stringList', default: ['Node', 'RBAC'], usage: 'Ordered list of plug-ins to do authorization on the secure port: AlwaysAllow,AlwaysDeny,ABAC,Webhook,RBAC,Node.' },
  { name: 'authorization-policy-file', type: 'string', usage: 'File with the authorization policy in JSON-lines format, used with --authorization-mode=ABAC.' },
  { name: 'authorization-webhook-config-file', type: 'string', usage: 'File with webhook configuration in kubeconfig format, used with --authorization-mode=Webhook.' },
  { name: 'authorization-webhook-version', type: 'string', default: 'v1beta1', usage: 'The API version of the SubjectAccessReview to send to and expect from the webhook (v1 or v1beta1).' },
  { name: 'authorization-webhook-cache-authorized-ttl', type: 'duration', default: 300_000, usage: "The duration to cache 'authorized' responses from the webhook authorizer." },
  { name: 'authorization-webhook-cache-unauthorized-ttl', type: 'duration', default: 30_000, usage: "The duration to cache 'unauthorized' responses from the webhook authorizer." },
];

export const authFlagDefinitions: FlagDefinition[] = [...authenticationFlagDefinitions, ...authorizationFlagDefinitions];
