/**
 * What the server knew when it rendered the page: whether this browser sent a session cookie
 * (server/middleware/30.page-cookies.ts). 'session' | 'none' from a server render, null in a page
 * rendered only in the browser. Before the first session load, and for good without JavaScript,
 * the header and the account page show this much; only the BFF says whether the session is valid.
 */
export type SessionHint = 'session' | 'none' | null

export function useSessionHint() {
  const event = useRequestEvent()
  return useState<SessionHint>('session-hint', () => (event ? (event.context.hasSessionCookie === true ? 'session' : 'none') : null))
}
