/**
 * Where the SCIM 2.0 service is mounted (RFC 7644 section 3: the base URL an identity provider is
 * given) and the bound on the bodies it reads. In the contract because the gateway forwards
 * /scim/v2 requests and applies the same bound (server/utils/scim-forward.ts).
 *
 * 256 KiB: a group's full member list in one PUT (RFC 7644 section 3.5.1) is the largest body a
 * provider sends; Okta and Entra ID send members in batches well below that.
 */
export const SCIM_MOUNT = '/scim/v2'
export const SCIM_BODY_LIMIT_BYTES = 256 * 1024

export const isScimPath = (path: string): boolean => path === SCIM_MOUNT || path.startsWith(`${SCIM_MOUNT}/`) || path.startsWith(`${SCIM_MOUNT}?`)
