/**
 * Security headers on every answer (pages and API), set by server/middleware/10.security-headers.ts
 * and by the gateway's direct lane (server/utils/direct-lane.ts). The page CSP gets hashes of
 * Nuxt's inline scripts/styles added by server/plugins/csp-hashes.ts; this default is what API
 * answers and any page without inline content keep. `no-store` everywhere except the fingerprinted
 * build assets: auth pages carry one-time links in their URL and per-user state in their body.
 */
import { setResponseHeaders, type H3Event } from 'h3'

/** The CSP every answer starts with; inline content is allowed only by hash. */
export const BASE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  // Gravatar's images (iam/contract/profile-picture.ts GRAVATAR_ORIGIN), allowed on every page: the
  // header is set before the session is read, an image runs nothing, and a page only puts a
  // Gravatar address in an <img> for a person who chose it (docs/accounts.md "Profile picture")
  "img-src 'self' data: https://gravatar.com",
  "font-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "object-src 'none'",
  "base-uri 'self'",
]

export function setSecurityHeaders(event: H3Event): void {
  const assets = event.path.startsWith('/_nuxt/')
  setResponseHeaders(event, {
    'content-security-policy': BASE_CSP.join('; '),
    'x-content-type-options': 'nosniff',
    // Magic-link pages hold tokens in their query string: a Referer never leaves this origin. Not
    // `no-referrer`: under it the request's origin serialises as "null" (Fetch standard, "serialize
    // a request origin"), so Chromium sends `Origin: null` on this site's own no-JS form posts.
    'referrer-policy': 'same-origin',
    'x-frame-options': 'DENY',
    'cross-origin-opener-policy': 'same-origin',
    'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=()',
    'strict-transport-security': 'max-age=31536000',
    ...(assets ? {} : { 'cache-control': 'no-store' }),
  })
}
