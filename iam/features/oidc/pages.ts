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
import { localeDirection, negotiateLocale, type Locale } from '../../contract/locales'
import { escapeHtml } from '../../../shared/html'
import { counted, fill } from '../mail/format'
import { PAGE_TEXTS, type PageTexts } from './page-texts'

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

/** A whole page in `locale` (lang and dir on <html>); `body` is trusted HTML (escape every value put in it). */
export function renderPage(title: string, body: string, locale: Locale = 'en'): string {
  return `<!DOCTYPE html><html lang="${locale}" dir="${localeDirection(locale)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body><header class="site"><a href="/" class="brand">${BRAND}</a></header><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`
}

/** The language of a page: the request's Accept-Language (the gateway passes the browser's on). */
export const pageLocale = (acceptLanguage: string | null | undefined): Locale => negotiateLocale(acceptLanguage)

const say = (text: string, values: Record<string, string> = {}) => escapeHtml(fill(text, values))

/** RP-initiated logout asks first (OpenID Connect RP-Initiated Logout 1.0 section 3); `form` is the provider's hidden form. */
export function signOutPage(locale: Locale, form: string, appName: string | undefined): string {
  const t = PAGE_TEXTS[locale].signOut
  return renderPage(
    t.title,
    `${form}<p>${appName ? say(t.appAsks, { app: appName }) : say(t.someAppAsks)} ${say(t.alsoHere)}</p>` +
      `<button type="submit" form="op.logoutForm" name="logout" value="yes" autofocus>${say(t.confirm)}</button>` +
      `<button type="submit" form="op.logoutForm" class="secondary">${say(t.stay)}</button>`,
    locale,
  )
}

export function signedOutPage(locale: Locale): string {
  const t = PAGE_TEXTS[locale].signedOut
  return renderPage(t.title, `<p>${say(t.before)} <a href="/login">${say(t.link)}</a>${say(t.after)}</p>`, locale)
}

/** Device flow (RFC 8628 section 3.3): the code entry; `form` is the provider's form, its input already labelled. */
export function deviceInputPage(locale: Locale, form: string, problem: 'invalid_code' | 'interrupted' | null): string {
  const t = PAGE_TEXTS[locale].deviceInput
  const alert = problem ? `<p class="error" role="alert">${say(problem === 'invalid_code' ? t.invalidCode : t.interrupted)}</p>` : ''
  return renderPage(t.title, `${alert}<p id="user-code-help">${say(t.help)}</p><label for="user_code">${say(t.label)}</label>${form}<button type="submit" form="op.deviceInputForm">${say(t.submit)}</button>`, locale)
}

/** Device flow: the person checks the code their device shows before allowing it. */
export function deviceConfirmPage(locale: Locale, form: string, appName: string, userCode: string): string {
  const t = PAGE_TEXTS[locale].deviceConfirm
  const [before, after] = t.wants.split('{app}') as [string, string?]
  return renderPage(
    t.title,
    `<p>${say(before)}<strong>${escapeHtml(appName)}</strong>${say(after ?? '')}</p><p><code dir="ltr">${escapeHtml(userCode)}</code></p><p>${say(t.ifNot)}</p>${form}` +
      `<button type="submit" form="op.deviceConfirmForm" autofocus>${say(t.allow)}</button>` +
      `<button type="submit" form="op.deviceConfirmForm" name="abort" value="yes" class="secondary">${say(t.cancel)}</button>`,
    locale,
  )
}

export function deviceDonePage(locale: Locale, appName: string | undefined): string {
  const t = PAGE_TEXTS[locale].deviceDone
  return renderPage(t.title, `<p>${say(t.signedIn, { app: appName || t.yourDevice })}</p>`, locale)
}

/** Too many user codes from one place: how long to wait, in words. */
export function tooManyCodesPage(locale: Locale, minutes: number, backHref: string): string {
  const t = PAGE_TEXTS[locale].tooMany
  return renderPage(t.title, `<p class="error" role="alert">${say(t.wait, { minutes: counted(locale, t.minutes, minutes) })}</p><p><a href="${escapeHtml(backHref)}">${say(t.back)}</a></p>`, locale)
}

type ErrorWords = Exclude<keyof PageTexts['error'], 'title' | 'details' | 'what' | 'home'>

/** The errors a person may meet here, in words; anything else is shown by its description. */
export function errorPage(out: { error?: unknown; error_description?: unknown }, locale: Locale = 'en'): string {
  const t = PAGE_TEXTS[locale].error
  const code = String(out.error ?? 'server_error')
  const words = Object.hasOwn(t, code) && !['title', 'details', 'what', 'home', 'other'].includes(code) ? t[code as ErrorWords] : t.other
  const detail = out.error_description ? `<p>${say(t.details, { detail: String(out.error_description) })}</p>` : ''
  const [before, after] = t.what.split('{code}') as [string, string?]
  return renderPage(t.title, `<p>${escapeHtml(words)}</p>${detail}<p>${say(before)}<code>${escapeHtml(code)}</code>${say(after ?? '')}</p><p><a href="/">${say(t.home)}</a></p>`, locale)
}
