/**
 * CSRF defence for every unsafe request to the BFF, two layers:
 * 1. the request comes from this origin: `Sec-Fetch-Site` (when sent) is `same-origin` and `Origin`
 *    (when sent) names this host; a cross-site form post fails here whatever it carries;
 * 2. it proves it is not a plain cross-site form: the `X-CSRF: 1` header (a non-safelisted header
 *    forces a CORS preflight, which this server never approves), or, for no-JS form posts, the
 *    double-submit token (`_csrf` field equal to the `__Host-csrf` cookie).
 * `Origin: null` passes layer 1 only on the token path: a browser sends it on its own page's form post
 * when that page was served under `no-referrer` (10.security-headers.ts now sends `same-origin`, but a
 * page loaded before, or a proxy in front that sets the policy, still does), and a cross-site sender
 * can neither read nor set the `__Host-` cookie (host-only, Secure, SameSite=Strict), so a matching
 * token still proves the form was ours. `Sec-Fetch-Site: cross-site` is refused before any of this.
 * Refusals are 403: JSON for scripts (the X-CSRF header, or `Accept: application/json`), a short
 * page for a person whose browser posted a form (server/utils/bff/csrf-refusal.ts). The API proxy
 * (/api/upstream/...) carries the user's access token, so its unsafe requests pass the same rules, as do
 * the organization routes (/api/orgs/...). The OpenID
 * sign-in and consent answers (/interaction/:uid/...) are guarded the same way. The form body
 * read here was buffered, bounded, by server/utils/request-body.ts bodyRefusal.
 */
import { getRequestHeader, readBody, setResponseHeader, setResponseStatus, type H3Event } from 'h3'
import { csrfRefusalPage, wantsPage } from './bff/csrf-refusal'
import type { BffErrorCode } from './bff/error-codes'
import { csrfTokenMatches, isFormPost } from './bff/forms'

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS'])

/** Where the request says it comes from: this host, no claim, the opaque "null", or elsewhere. */
type Source = 'same-origin' | 'unstated' | 'opaque' | 'other'

function requestSource(event: H3Event): Source {
  const site = getRequestHeader(event, 'sec-fetch-site')
  if (site !== undefined && site !== 'same-origin') return 'other'
  const origin = getRequestHeader(event, 'origin')
  if (origin === undefined) return 'unstated'
  if (origin === 'null') return 'opaque'
  const host = getRequestHeader(event, 'host')
  try {
    // scheme is not compared: TLS may end at a proxy in front of the gateway
    return !!host && new URL(origin).host === host ? 'same-origin' : 'other'
  } catch {
    return 'other' // garbage
  }
}

async function allowed(event: H3Event): Promise<boolean> {
  const source = requestSource(event)
  if (source === 'other') return false
  // an opaque origin with the header is a sandboxed frame or a data: page, never this site's script
  if (getRequestHeader(event, 'x-csrf') === '1') return source !== 'opaque'
  // browsers always send Origin (real or "null") on form posts; without it this is not a no-JS page of ours
  if (source === 'unstated' || !isFormPost(event)) return false
  return csrfTokenMatches(event, (await readBody<Record<string, unknown>>(event))?._csrf)
}

/**
 * Which unsafe requests are checked: every BFF route under /api and the OpenID pages' answers, so a
 * new folder of routes is covered without editing a list here. The one exception is /api/public:
 * machine clients verifying an API token with its key, no browser and no cookie involved.
 */
const GUARDED = /^\/(?:api|interaction)(?:\/|$|\?)/
const MACHINE = /^\/api\/public(?:\/|$|\?)/

/**
 * The refusal of an unsafe request to a guarded path that fails the checks above, with its status
 * and headers set, for the caller to send (a page or JSON); undefined when the request may go on.
 * Run by server/middleware/20.csrf.ts, and by the gateway's direct lane (server/utils/direct-lane.ts)
 * for the requests it answers.
 */
export async function csrfRefusal(event: H3Event): Promise<string | object | undefined> {
  if (SAFE.has(event.method) || !GUARDED.test(event.path) || MACHINE.test(event.path)) return undefined
  if (await allowed(event)) return undefined
  setResponseStatus(event, 403)
  if (wantsPage(event)) {
    setResponseHeader(event, 'content-type', 'text/html; charset=utf-8')
    return csrfRefusalPage(event.path)
  }
  setResponseHeader(event, 'content-type', 'application/json')
  return { ok: false, error: 'Cross-site request refused', code: 'csrf_refused' satisfies BffErrorCode }
}
