/**
 * The OpenID Provider's machine endpoints (token, introspection, revocation, keys, userinfo,
 * discovery, PAR, device authorization, registration), answered on the direct hop: the same
 * forward as the page path's route (server/routes/oidc/[...path].ts on server/utils/oidc-forward.ts),
 * with the same request id and log line, metrics, security headers and body bound (the functions
 * the middleware run), but not through Nitro's per-request work for pages.
 *
 * Why: every provider request crosses the gateway (the issuer is this origin), and at full load
 * the gateway spent about a third of its time per forwarded request in work a page needs and these
 * answers never use: the i18n module's per-request translation context (its Nitro `request` hook
 * copies the whole runtime config and looks up environment variables for each key, on every
 * request), the router and the page middleware (CSRF only guards /api and /interaction, the page
 * cookies only document requests, the brand only renders). docs/performance.md, "The gateway hop",
 * has the figures.
 *
 * How: the h3 app's handler, wrapped as server/plugins/tracing.ts and Nitro itself wrap it; a
 * request on one of these exact paths (the raw path: an encoded or dotted variant is not on the
 * list and takes the page path, which refuses what is not canonical) is answered here, everything
 * else goes on as before.
 */
import type { H3Event } from 'h3'
import { OIDC_MOUNT } from '../../iam/contract/oidc-mount'
import { countAnswer } from './metrics'
import { forwardToProvider, sendProviderAnswer } from './oidc-forward'
import { bodyRefusal } from './request-body'
import { useGatewayLog } from './log'
import { logRequest } from './request-log'
import { setSecurityHeaders } from './security-headers'

/**
 * oidc-provider's default routes (iam/features/oidc/provider.ts keeps them) that a client calls
 * and a browser never navigates to: no sign-in page, no consent, no sign-out confirmation.
 */
const DIRECT_PATHS = new Set(
  ['/token', '/token/introspection', '/token/revocation', '/jwks', '/me', '/request', '/device/auth', '/reg', '/.well-known/openid-configuration'].map(
    (path) => `${OIDC_MOUNT}${path}`,
  ),
)

/** The template Nitro's router gives server/routes/oidc/[...path].ts: the metrics' and the log's label, the same on both paths. */
const PROVIDER_ROUTE = { path: `${OIDC_MOUNT}/**:path`, handlers: {} }

/** True for a request the direct hop answers: one of DIRECT_PATHS exactly, with or without a query. */
export function answeredDirectly(url: string): boolean {
  const query = url.indexOf('?')
  return DIRECT_PATHS.has(query === -1 ? url : url.slice(0, query))
}

/** Answers a request answeredDirectly() accepted: the page path's frame and forward, without the page machinery. */
export async function answerDirectly(event: H3Event): Promise<void> {
  event.context.matchedRoute = PROVIDER_ROUTE
  countAnswer(event)
  logRequest(event)
  setSecurityHeaders(event)
  try {
    const refusal = await bodyRefusal(event)
    if (refusal) {
      event.node.res.end(JSON.stringify(refusal))
      return
    }
    const answer = await forwardToProvider(event)
    if (answer) event.node.res.end(sendProviderAnswer(event, answer))
  } catch (error) {
    // a body that broke off, or a fault of ours: answered here, as the provider words a failure
    // (RFC 6749 section 4.1.2.1 `server_error`), since Nitro's error page needs the per-request
    // context this path does not build
    useGatewayLog().error('oidc: direct hop failed', { requestId: event.context.requestId, err: error })
    const { res } = event.node
    if (res.headersSent) {
      res.destroy()
      return
    }
    res.statusCode = 500
    res.setHeader('content-type', 'application/json; charset=utf-8')
    res.end(JSON.stringify({ error: 'server_error', error_description: 'The request could not be passed to the sign-in service. Please try again.' }))
  }
}
