/**
 * What a person sees when the CSRF guard (server/middleware/20.csrf.ts) refuses the form their
 * browser posted: a page that says what happened and leads back to the form, instead of the JSON
 * a script gets. The usual cause is harmless (the page was open in another tab while the browser's
 * form token changed, or its cookies were cleared): reloading the form page issues a matching token.
 */
import { getRequestHeader, type H3Event } from 'h3'
import { escapeHtml } from '../../../shared/html'

/**
 * True when the refused request is a browser's navigation (a form post) rather than a script's
 * call: scripts send `X-CSRF` or ask for JSON, and keep the JSON answer they can read.
 */
export function wantsPage(event: H3Event): boolean {
  if (getRequestHeader(event, 'x-csrf')) return false
  const accept = (getRequestHeader(event, 'accept') ?? '').toLowerCase()
  if (accept.includes('application/json')) return false
  return getRequestHeader(event, 'sec-fetch-dest') === 'document' || accept.includes('text/html')
}

interface FormPage {
  path: string
  label: string
  /** the page's own link parameters (a mailed link's token) are carried back to it */
  keepsQuery?: boolean
}

/** The page each no-JS form lives on, by the BFF route it posts to. */
const FORM_PAGES: Record<string, FormPage> = {
  '/api/auth/login': { path: '/login', label: 'Back to the sign-in page' },
  '/api/auth/signup': { path: '/signup', label: 'Back to the sign-up page' },
  '/api/auth/forgot-password': { path: '/forgot-password', label: 'Back to the password reset page' },
  '/api/auth/reset-password': { path: '/reset-password', label: 'Back to choosing a new password', keepsQuery: true },
  '/api/auth/verify-email': { path: '/auth/verify-email', label: 'Back to confirming your address', keepsQuery: true },
  '/api/auth/undo-email-change': { path: '/auth/undo-email-change', label: 'Back to undoing the email change', keepsQuery: true },
  '/api/auth/logout': { path: '/account', label: 'Back to your account' },
}
const START: FormPage = { path: '/', label: 'Go to the start page' }

/** The magic-link parameters a link page reads (iam/contract/routes.ts, the link routes' query). */
const LINK_PARAMS = ['token', 'random', 'reason', 'visitor'] as const

/** Same-origin path back to the form page of BFF route `requestPath` (its query kept only for link pages). */
export function formPageFor(requestPath: string): FormPage & { href: string } {
  const url = new URL(requestPath, 'http://gateway.invalid')
  const page = FORM_PAGES[url.pathname.replace(/\/$/, '')] ?? START
  if (!page.keepsQuery) return { ...page, href: page.path }
  const kept = new URLSearchParams()
  for (const name of LINK_PARAMS) {
    const value = url.searchParams.get(name)
    if (value !== null) kept.set(name, value)
  }
  const query = kept.toString()
  return { ...page, href: query ? `${page.path}?${query}` : page.path }
}

/** The HTML of the refusal page for a post to `requestPath`; no script, no inline style (the page CSP applies). */
export function csrfRefusalPage(requestPath: string): string {
  const back = formPageFor(requestPath)
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<title>The form could not be sent</title></head><body>',
    '<main id="main">',
    '<h1>The form could not be sent</h1>',
    '<p>For your protection, this site accepts a form only from its own page opened in this browser, and this one could not be matched to it. Nothing was changed.</p>',
    '<p>This happens when the page was open for a long time, in another tab, or after cookies were cleared. Open the page again (reload it) and send the form once more.</p>',
    `<p><a href="${escapeHtml(back.href)}">${escapeHtml(back.label)}</a></p>`,
    '</main>',
    '</body></html>',
  ].join('\n')
}
