/**
 * Cookies a page needs before its first form is submitted, set on document requests:
 * - `canary_id` from the IAM's /check on the sign-in pages and at the start of an OAuth flow (the IAM
 *   answers 400 to signup/login/OAuth without it; the OAuth callback forwards the one set here);
 * - the `__Host-csrf` double-submit token for pages whose forms work without JavaScript, and for
 *   every page while the browser holds a session: the header's sign-out form is on each of them;
 * and whether the browser holds a session cookie at all (`hasSessionCookie`): without JavaScript a
 * page cannot ask the BFF, so the server-rendered header (components/SiteHeader.vue) offers the
 * account menu and its sign-out form on this much. Only the cookie's presence, no IAM call: the IAM
 * judges the session on every call, and the page asks the BFF once it runs.
 */
import { defineEventHandler, getRequestHeader } from 'h3'
import { currentCookie } from '../utils/bff/cookies'
import { ensureDeviceCookie } from '../utils/bff/canary'
import { issueCsrfToken } from '../utils/bff/forms'
import { BffReply } from '../utils/bff/respond'

const NEEDS_CANARY = /^\/(?:login|signup|forgot-password|reset-password|oauth\/(?!callback\/)[^/]+)\/?(?:\?|$)/
const FORM_PAGES = /^\/(?:login|signup|forgot-password|reset-password|account)\/?(?:\?|$)/

export default defineEventHandler(async (event) => {
  if (event.method !== 'GET') return
  const dest = getRequestHeader(event, 'sec-fetch-dest')
  const accept = getRequestHeader(event, 'accept') ?? ''
  if (dest !== undefined ? dest !== 'document' : !accept.includes('text/html')) return
  const hasSessionCookie = currentCookie(event, 'session') !== undefined
  event.context.hasSessionCookie = hasSessionCookie
  if (hasSessionCookie || FORM_PAGES.test(event.path)) event.context.csrfToken = issueCsrfToken(event)
  if (NEEDS_CANARY.test(event.path)) {
    try {
      await ensureDeviceCookie(event)
    } catch (error) {
      // the page still renders; the form's own request reports the problem with a clear message
      if (!(error instanceof BffReply)) throw error
    }
  }
})
