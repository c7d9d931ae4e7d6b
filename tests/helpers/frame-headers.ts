/** The headers server/utils/security-headers.ts puts on every answer of the gateway: equal on its direct lane and its page path. */
export const FRAME_HEADERS = ['content-security-policy', 'x-content-type-options', 'referrer-policy', 'x-frame-options', 'cross-origin-opener-policy', 'permissions-policy', 'strict-transport-security', 'cache-control'] as const
