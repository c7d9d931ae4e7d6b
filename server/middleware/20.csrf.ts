/**
 * CSRF defence for every unsafe request to the BFF (DESIGN section 5), two layers:
 * 1. the request comes from this origin: `Sec-Fetch-Site` (when sent) is `same-origin` and `Origin`
 *    (when sent) names this host; a cross-site form post fails here whatever it carries;
 * 2. it proves it is not a plain cross-site form: the `X-CSRF: 1` header (a non-safelisted header
 *    forces a CORS preflight, which this server never approves), or, for no-JS form posts, the
 *    double-submit token (`_csrf` field equal to the `__Host-csrf` cookie).
 * Refusals are 403 JSON. The form body read here was buffered, bounded, by 15.body-limit.ts.
 */
import { defineEventHandler, getRequestHeader, readBody, setResponseHeader, setResponseStatus, type H3Event } from 'h3'
import { csrfTokenMatches, isFormPost } from '../utils/bff/forms'

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS'])

function sameOrigin(event: H3Event): boolean {
  const site = getRequestHeader(event, 'sec-fetch-site')
  if (site !== undefined && site !== 'same-origin') return false
  const origin = getRequestHeader(event, 'origin')
  if (origin === undefined) return true
  const host = getRequestHeader(event, 'host')
  try {
    // scheme is not compared: TLS may end at a proxy in front of the gateway
    return !!host && new URL(origin).host === host
  } catch {
    return false // "null" and garbage
  }
}

export default defineEventHandler(async (event) => {
  if (SAFE.has(event.method) || !/^\/api\/(?:auth|tokens)(?:\/|$|\?)/.test(event.path)) return
  let ok = sameOrigin(event)
  if (ok && getRequestHeader(event, 'x-csrf') !== '1') {
    // browsers always send Origin on form posts; without it this is not a no-JS page of ours
    ok = isFormPost(event) && getRequestHeader(event, 'origin') !== undefined && csrfTokenMatches(event, (await readBody<Record<string, unknown>>(event))?._csrf)
  }
  if (ok) return
  setResponseStatus(event, 403)
  setResponseHeader(event, 'content-type', 'application/json')
  return { ok: false, error: 'Cross-site request refused' }
})
