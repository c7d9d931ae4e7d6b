/**
 * The few pages the OpenID Provider renders itself (device code entry and confirmation, the
 * sign-out question of RP-initiated logout, its outcome, and errors a client caused): plain,
 * accessible HTML in the site's look, each saying what happened and what to do. Sign-in and
 * consent are the gateway's pages (/interaction/:uid).
 *
 * Their CSP leaves form-action open: the sign-out form and a form_post response post to the
 * client's registered addresses (oidc-provider adds the hash of form_post's script itself).
 */
import { createHash } from 'node:crypto'
import { escapeHtml } from '../../../shared/html'

// The gateway's look (assets/main.css and components/SiteHeader.vue): the same header with the
// product's name, page width, type, colours, buttons and focus ring, so that signing out of an app
// or connecting a device does not look like another product's page.
const BRAND = 'Identity'
const STYLE =
  '*{box-sizing:border-box}html{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;line-height:1.5;color:#1a1a1a;background:#fff}' +
  'body{margin:0}a{color:#0b57d0}:focus-visible{outline:3px solid #0b57d0;outline-offset:2px}' +
  '.site{display:flex;align-items:center;min-height:3.6rem;padding:.5rem 1rem;border-bottom:1px solid #d0d0d0}' +
  '.brand{font-weight:700;color:inherit;text-decoration:none}' +
  'main{max-width:30rem;margin:2rem auto;padding:0 1rem;overflow-wrap:anywhere}h1{font-size:1.6rem;margin:0 0 1rem}' +
  'label{display:block;font-weight:600;margin-bottom:.25rem}' +
  'input[type=text]{display:block;width:100%;padding:.55rem .7rem;font:inherit;font-size:1.2rem;border:1px solid #8a8a8a;border-radius:6px;text-transform:uppercase;letter-spacing:.1em}' +
  'button{display:inline-block;padding:.6rem 1rem;margin:.75rem .5rem 0 0;font:inherit;font-weight:600;border-radius:6px;border:1px solid #0b57d0;background:#0b57d0;color:#fff;cursor:pointer}' +
  'button.secondary{background:#fff;color:#0b57d0}code{font-family:ui-monospace,"SF Mono",Menlo,Consolas,monospace;font-size:1.4rem;letter-spacing:.1em}.error{color:#b3261e}'

const styleHash = createHash('sha256').update(STYLE).digest('base64')

export const OIDC_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  `style-src 'self' 'sha256-${styleHash}'`,
  "img-src 'self' data:",
  "frame-ancestors 'none'",
  "object-src 'none'",
  "base-uri 'none'",
].join('; ')

/** A whole page; `body` is trusted HTML (escape every value put in it). */
export function renderPage(title: string, body: string): string {
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body><header class="site"><a href="/" class="brand">${BRAND}</a></header><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`
}

/** The errors a person may meet here, in words; anything else is shown by its description. */
const ERROR_WORDS: Record<string, string> = {
  invalid_request: 'The app that sent you here made a request we cannot accept.',
  invalid_client: 'The app that sent you here is not registered with us.',
  invalid_redirect_uri: 'The app that sent you here asked to send you back to an address it did not register.',
  unauthorized_client: 'The app that sent you here is not allowed to sign in this way.',
  access_denied: 'The sign-in was cancelled.',
  invalid_scope: 'The app asked for access we do not offer.',
  invalid_target: 'The app asked for access to an API we do not know.',
  login_required: 'You need to sign in first.',
  server_error: 'Something went wrong on our side.',
  temporarily_unavailable: 'We cannot finish this right now.',
}

export function errorPage(out: { error?: unknown; error_description?: unknown }): string {
  const code = String(out.error ?? 'server_error')
  const words = ERROR_WORDS[code] ?? 'This sign-in request could not be completed.'
  const detail = out.error_description ? `<p>Details: ${escapeHtml(String(out.error_description))}</p>` : ''
  return renderPage(
    'We could not sign you in to that app',
    `<p>${escapeHtml(words)}</p>${detail}<p>Go back to the app and start the sign-in again. If this keeps happening, tell the app's team the code <code>${escapeHtml(code)}</code>.</p><p><a href="/">Go to your account</a></p>`,
  )
}
