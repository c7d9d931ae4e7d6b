/**
 * Where the OpenID Provider is mounted, and the bound on the bodies it reads (oidc-provider's own).
 * In the contract because the gateway forwards /oidc requests and applies the same bound.
 */
export const OIDC_MOUNT = '/oidc'
export const OIDC_BODY_LIMIT_BYTES = 56 * 1024

export const isOidcPath = (path: string): boolean => path === OIDC_MOUNT || path.startsWith(`${OIDC_MOUNT}/`) || path.startsWith(`${OIDC_MOUNT}?`)
