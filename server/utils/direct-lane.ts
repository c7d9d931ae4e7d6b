/**
 * The gateway's direct lane: requests that need none of the work Nitro does on every request for
 * pages are answered beside it, with the same frame (request id and log line, metrics label,
 * security headers, body bound, CSRF check: the functions the middleware run, in the same order).
 * Two kinds take it:
 *
 * - the OpenID Provider's machine endpoints (token, introspection, revocation, keys, userinfo,
 *   discovery, PAR, device authorization, registration): forwarded as the page path's route does
 *   (server/routes/oidc/[...path].ts on server/utils/oidc-forward.ts);
 * - the BFF's busiest calls from a page's script: the session state (`GET /api/auth/session`,
 *   asked on every page load) and the API proxy (`/api/upstream/<name>/...`, every call of an app
 *   to its APIs), run by their own route handlers (server/plugins/direct-lane.ts).
 *
 * Why: at full load the gateway spent a fifth to a third of its time per such request in work a
 * page needs and these answers never use: the i18n module's per-request translation context (its
 * Nitro `request` hook copies the whole runtime config and looks up environment variables for each
 * key, on every request), the router and the page middleware (the brand only renders, the page
 * cookies and the signed-in redirect only serve document requests). docs/performance.md, "The
 * gateway hop", has the figures.
 *
 * Which requests: exact raw paths (an encoded or dotted variant is not on the list and takes the
 * page path, which refuses what is not canonical), and for the BFF never a document request (a
 * person's navigation gets the page path's cookies).
 */
import type { H3Event } from 'h3'
import { OIDC_MOUNT } from '../../iam/contract/oidc-mount'
import { SERVICE_FAILED_MESSAGE } from './bff/respond'
import type { BffErrorCode } from './bff/error-codes'
import { csrfRefusal } from './csrf'
import { useGatewayLog } from './log'
import { countAnswer } from './metrics'
import { forwardToProvider, sendProviderAnswer } from './oidc-forward'
import { bodyRefusal } from './request-body'
import { logRequest } from './request-log'
import { setSecurityHeaders } from './security-headers'

/**
 * oidc-provider's default routes (iam/features/oidc/provider.ts keeps them) that a client calls
 * and a browser never navigates to: no sign-in page, no consent, no sign-out confirmation.
 */
const PROVIDER_PATHS = new Set(
  ['/token', '/token/introspection', '/token/revocation', '/jwks', '/me', '/request', '/device/auth', '/reg', '/.well-known/openid-configuration'].map(
    (path) => `${OIDC_MOUNT}${path}`,
  ),
)

/** The BFF routes on the lane, as Nitro's router names them (server/api/auth/session.get.ts, server/api/upstream/[name]/). */
export const BFF_LANE_ROUTES = { session: '/api/auth/session', upstream: '/api/upstream/:name/**:path', upstreamBase: '/api/upstream/:name' } as const

/**
 * An API proxy path the lane's router matches as it stands: a plain name, and a rest without
 * percent-encoding, empty or dot segments (h3 decodes and normalises those before routing, so its
 * router could match another template or none: such a path takes the page path). Each segment
 * starts at its slash, so a long path is matched in one pass.
 */
const UPSTREAM_PATH = /^\/api\/upstream\/[A-Za-z0-9_-]+(?:\/|(?:\/(?!\.\.?(?:\/|$))[^/?#%]+)+\/?)?$/

/** The template Nitro's router gives server/routes/oidc/[...path].ts: the metrics' and the log's label, the same on both paths. */
const PROVIDER_ROUTE = { path: `${OIDC_MOUNT}/**:path`, handlers: {} }

export type Lane = 'provider' | 'bff'

/**
 * Which lane a request takes, if any: `url` is the raw request target, `accept` and `fetchDest` its
 * Accept and Sec-Fetch-Dest headers (a document request is a person's navigation: the page path's).
 */
export function laneOf(method: string, url: string, accept: string | undefined, fetchDest: string | undefined): Lane | undefined {
  const query = url.indexOf('?')
  const path = query === -1 ? url : url.slice(0, query)
  if (PROVIDER_PATHS.has(path)) return 'provider'
  if (!path.startsWith('/api/')) return undefined
  const document = fetchDest !== undefined ? fetchDest === 'document' : (accept ?? '').includes('text/html')
  if (document) return undefined
  if (path === BFF_LANE_ROUTES.session) return method === 'GET' ? 'bff' : undefined
  return UPSTREAM_PATH.test(path) ? 'bff' : undefined
}

/** laneOf for a request as it arrived. */
export function laneOfEvent(event: H3Event): Lane | undefined {
  const { req } = event.node
  const dest = req.headers['sec-fetch-dest']
  return laneOf(req.method ?? 'GET', req.url ?? '/', req.headers.accept, typeof dest === 'string' ? dest : undefined)
}

/** The frame every lane request gets first, in the middleware's order; a refusal (to send) or undefined. */
export async function laneFrame(event: H3Event): Promise<string | object | undefined> {
  countAnswer(event)
  logRequest(event)
  setSecurityHeaders(event)
  return (await bodyRefusal(event)) ?? (await csrfRefusal(event))
}

/** Answers a provider request: the page path's frame and forward. */
export async function answerProvider(event: H3Event): Promise<void> {
  event.context.matchedRoute = PROVIDER_ROUTE
  try {
    const refusal = await laneFrame(event)
    if (refusal) {
      event.node.res.end(typeof refusal === 'string' ? refusal : JSON.stringify(refusal))
      return
    }
    const answer = await forwardToProvider(event)
    if (answer) event.node.res.end(sendProviderAnswer(event, answer))
  } catch (error) {
    // as the provider words a failure (RFC 6749 section 4.1.2.1 `server_error`)
    answerFault(event, error, { error: 'server_error', error_description: 'The request could not be passed to the sign-in service. Please try again.' })
  }
}

/** What the BFF lane answers for a fault of its own, as the BFF words a failure (server/utils/bff/respond.ts). */
export function answerBffFault(event: H3Event, error: unknown): void {
  answerFault(event, error, { ok: false, error: SERVICE_FAILED_MESSAGE, code: 'service_failed' satisfies BffErrorCode })
}

/**
 * A body that broke off, or a fault of ours: logged and answered here, since Nitro's error page
 * needs the per-request context the lane does not build.
 */
function answerFault(event: H3Event, error: unknown, body: object): void {
  useGatewayLog().error('direct lane: request failed', { requestId: event.context.requestId, err: error })
  const { res } = event.node
  if (res.headersSent) {
    res.destroy()
    return
  }
  res.statusCode = 500
  res.setHeader('content-type', 'application/json; charset=utf-8')
  res.setHeader('cache-control', 'no-store')
  res.end(JSON.stringify(body))
}
