/**
 * @simplewebauthn/server with its certificate stack (@peculiar/x509, asn1js, tsyringe): a large
 * part of an idle IAM's resident memory when imported at start (docs/performance.md, "Idle RSS").
 * Only the passkey ceremonies use it: the first one loads it, every later one reuses the same module.
 */
type WebAuthn = typeof import('@simplewebauthn/server')
type WebAuthnHelpers = typeof import('@simplewebauthn/server/helpers')

let server: Promise<WebAuthn> | undefined
let helpers: Promise<WebAuthnHelpers> | undefined

export const loadWebAuthn = (): Promise<WebAuthn> => (server ??= import('@simplewebauthn/server'))
export const loadWebAuthnHelpers = (): Promise<WebAuthnHelpers> => (helpers ??= import('@simplewebauthn/server/helpers'))
