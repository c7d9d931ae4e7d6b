/**
 * The temporary page answered after a successful login (gateway.md, Success step 4). A 200 page,
 * not a 302: the session cookies are SameSite=Strict, and a redirect chain that started on the
 * provider's site would not send them on the next request; a navigation started by this
 * same-site page does. The target is redirectUrlOnSuccess from config only. Every embedded value
 * is escaped for its context, and the CSP allows exactly the one inline script (by hash).
 */
import { createHash } from 'node:crypto'
import { escapeHtml } from '../../../shared/html'

/** JSON for inside a <script>: no `<`, `>`, `&` or line separators that could end the script. */
function scriptString(value: string): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

export interface SuccessPage {
  html: string
  headers: Record<string, string>
}

/** The page and its headers for `target` (already a normalised absolute URL from config). */
export function renderSuccessPage(target: string, providerLabel: string): SuccessPage {
  const script = `window.location.replace(${scriptString(target)})`
  const scriptHash = createHash('sha256').update(script).digest('base64')
  const html = [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="refresh" content="0;url=${escapeHtml(target)}">`,
    '<meta name="referrer" content="no-referrer">',
    '<title>Signed in</title></head><body>',
    `<p>Signed in with ${escapeHtml(providerLabel)}. <a href="${escapeHtml(target)}">Continue</a></p>`,
    `<script>${script}</script>`,
    '</body></html>',
  ].join('\n')
  return {
    html,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      // the callback URL carried the code: never leak it as a Referer
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
      'content-security-policy': `default-src 'none'; script-src 'sha256-${scriptHash}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    },
  }
}
