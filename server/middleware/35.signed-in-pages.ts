/**
 * The start page and the sign-in page are for people who are not signed in. With JavaScript the
 * page itself moves a signed-in person on; without it, or before it runs, only the server can: a
 * document request for `/` or `/login` from a browser that holds a session cookie asks the IAM
 * whether the session stands and, when it does, answers 302 to the account (or the sign-in page's
 * safe `returnTo`). A browser without the cookie costs nothing here. Otherwise the answer rides
 * along with the page (`event.context.sessionState`, read by composables/useAuth.ts), so the page
 * does not ask the BFF a second time.
 */
import { defineEventHandler, getQuery, sendRedirect, setResponseHeader } from 'h3'
import { safeReturnTo } from '../../composables/safe-return-to'
import { BffReply } from '../utils/bff/respond'
import { readSessionState } from '../utils/bff/session-state'

const START_PAGES = /^\/(?:login\/?)?(?:\?|$)/

export default defineEventHandler(async (event) => {
  // 30.page-cookies.ts sets the flag on document GETs only: API calls and assets never get here
  if (event.context.hasSessionCookie !== true || !START_PAGES.test(event.path)) return
  let state
  try {
    state = await readSessionState(event)
  } catch (error) {
    // rate limited or the IAM failed: the page renders and says so when it asks itself
    if (error instanceof BffReply) return
    throw error
  }
  if (state.authenticated) {
    const target = event.path.startsWith('/login') ? safeReturnTo(getQuery(event).returnTo) : '/account'
    // the answer depends on the cookie: no cache may hand it to another browser
    setResponseHeader(event, 'cache-control', 'no-store')
    return sendRedirect(event, target, 302)
  }
  event.context.sessionState = state
})
