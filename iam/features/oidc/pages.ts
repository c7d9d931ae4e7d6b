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
import { PAGE_BACKGROUND, readableOn } from '../../../shared/brand'
import { PAGE_TEXTS, type PageTexts } from './page-texts'

// The gateway's look (assets/main.css and components/SiteHeader.vue, SiteFooter.vue): the same
// header with the product's name and logo, page width, type, colours in both schemes, buttons and
// focus ring, and the legal and support links, so that signing out of an app or connecting a
// device does not look like another product's page. The team's brand comes from the IAM's
// `email.siteName` and `email.brand` (the gateway's `brand` is the same team's, shared/brand.ts).

/** What these pages show of the brand: every value already checked by the config schema. */
export interface PageLook {
  name: string
  logoUrl: string | null
  /** the buttons' background, with white text (the config refuses one below 4.5:1 on white) */
  primary: string | null
  /** the primary colour where it reads as link text on each scheme's background, else null */
  link: { light: string | null; dark: string | null }
  supportEmail: string | null
  termsUrl: string | null
  privacyUrl: string | null
}

type EmailConfig = { siteName: string; brand?: { logoUrl?: string; primaryColor?: string; supportEmail?: string; legal?: { termsUrl?: string; privacyUrl?: string } } | undefined }

const looks = new WeakMap<EmailConfig, PageLook>()

/** The look of the IAM's config (email.siteName, email.brand), the same object for the same config. */
export function pageLookOf(email: EmailConfig): PageLook {
  let look = looks.get(email)
  if (!look) {
    look = lookOf(email)
    looks.set(email, look)
  }
  return look
}

function lookOf(email: EmailConfig): PageLook {
  const brand = email.brand
  const primary = brand?.primaryColor ?? null
  return {
    name: email.siteName,
    logoUrl: brand?.logoUrl ?? null,
    primary,
    link: { light: primary && readableOn(primary, PAGE_BACKGROUND.light), dark: primary && readableOn(primary, PAGE_BACKGROUND.dark) },
    supportEmail: brand?.supportEmail ?? null,
    termsUrl: brand?.legal?.termsUrl ?? null,
    privacyUrl: brand?.legal?.privacyUrl ?? null,
  }
}

/** The default look: the product's own name and colours. */
export const DEFAULT_LOOK: PageLook = pageLookOf({ siteName: 'Identity' })

function styleOf(look: PageLook): string {
  const accent = look.primary ?? '#0b57d0'
  return (
    `:root{--fg:#1a1a1a;--bg:${PAGE_BACKGROUND.light};--line:#8a8a8a;--divider:#d0d0d0;--accent:${accent};--link:${look.link.light ?? '#0b57d0'};--danger:#b3261e;color-scheme:light dark}` +
    `@media (prefers-color-scheme:dark){:root{--fg:#e6e8eb;--bg:${PAGE_BACKGROUND.dark};--line:#8a929b;--divider:#3a4048;--link:${look.link.dark ?? '#8ab4f8'};--danger:#f2b8b5}}` +
    '*{box-sizing:border-box}html{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;line-height:1.5;color:var(--fg);background:var(--bg)}' +
    'body{margin:0}a{color:var(--link)}:focus-visible{outline:3px solid var(--link);outline-offset:2px}' +
    '.site{display:flex;align-items:center;gap:.6rem;min-height:3.6rem;padding:.5rem 1rem;border-bottom:1px solid var(--divider)}' +
    '.brand{display:inline-flex;align-items:center;gap:.5rem;font-weight:700;color:inherit;text-decoration:none}.brand img{display:block;height:2rem;width:auto;max-width:12rem}' +
    'main{max-width:30rem;margin:2rem auto;padding:0 1rem;overflow-wrap:anywhere}h1{font-size:1.6rem;margin:0 0 1rem}' +
    'label{display:block;font-weight:600;margin-bottom:.25rem}' +
    'input[type=text]{display:block;width:100%;padding:.55rem .7rem;font:inherit;font-size:1.2rem;color:inherit;background:var(--bg);border:1px solid var(--line);border-radius:6px;text-transform:uppercase;letter-spacing:.1em}' +
    'button{display:inline-block;padding:.6rem 1rem;margin:.75rem .5rem 0 0;font:inherit;font-weight:600;border-radius:6px;border:1px solid var(--accent);background:var(--accent);color:#fff;cursor:pointer}' +
    'button.secondary{background:var(--bg);color:var(--link);border-color:var(--link)}code{font-family:ui-monospace,"SF Mono",Menlo,Consolas,monospace;font-size:1.4rem;letter-spacing:.1em}.error{color:var(--danger)}' +
    'footer{max-width:30rem;margin:2rem auto;padding:1rem;border-top:1px solid var(--divider)}footer a{margin-right:1rem}'
  )
}

/** A look's stylesheet and the CSP that lets it (and its logo) in, worked out once per look. */
const rendered = new WeakMap<PageLook, { style: string; csp: string }>()
function renderedOf(look: PageLook): { style: string; csp: string } {
  let done = rendered.get(look)
  if (!done) {
    const style = styleOf(look)
    const styleHash = createHash('sha256').update(style).digest('base64')
    const logoOrigin = look.logoUrl ? ` ${new URL(look.logoUrl).origin}` : ''
    const csp = [
      "default-src 'self'",
      "script-src 'self'",
      `style-src 'self' 'sha256-${styleHash}'`,
      `img-src 'self' data:${logoOrigin}`,
      "frame-ancestors 'none'",
      "object-src 'none'",
      "base-uri 'none'",
    ].join('; ')
    done = { style, csp }
    rendered.set(look, done)
  }
  return done
}

/** The Content-Security-Policy of the provider's pages in `look`: form-action stays open (above). */
export const oidcCsp = (look: PageLook): string => renderedOf(look).csp

function footerOf(look: PageLook, locale: Locale): string {
  const t = PAGE_TEXTS[locale].footer
  const links = [
    look.termsUrl ? `<a href="${escapeHtml(look.termsUrl)}">${escapeHtml(t.terms)}</a>` : '',
    look.privacyUrl ? `<a href="${escapeHtml(look.privacyUrl)}">${escapeHtml(t.privacy)}</a>` : '',
    look.supportEmail ? `<a href="mailto:${escapeHtml(look.supportEmail)}">${escapeHtml(t.support)}</a>` : '',
  ].filter(Boolean)
  return links.length ? `<footer><nav aria-label="${escapeHtml(t.nav)}">${links.join('')}</nav></footer>` : ''
}

/** A whole page in `locale` (lang and dir on <html>); `body` is trusted HTML (escape every value put in it). */
export function renderPage(title: string, body: string, locale: Locale = 'en', look: PageLook = DEFAULT_LOOK): string {
  // as the gateway's header (components/SiteHeader.vue): the logo stands for the name, its alt text
  const mark = look.logoUrl ? `<img src="${escapeHtml(look.logoUrl)}" alt="${escapeHtml(look.name)}">` : escapeHtml(look.name)
  return (
    `<!DOCTYPE html><html lang="${locale}" dir="${localeDirection(locale)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><style>${renderedOf(look).style}</style></head>` +
    `<body><header class="site"><a href="/" class="brand">${mark}</a></header><main><h1>${escapeHtml(title)}</h1>${body}</main>${footerOf(look, locale)}</body></html>`
  )
}

/** The language of a page: the request's Accept-Language (the gateway passes the browser's on). */
export const pageLocale = (acceptLanguage: string | null | undefined): Locale => negotiateLocale(acceptLanguage)

const say = (text: string, values: Record<string, string> = {}) => escapeHtml(fill(text, values))

/** RP-initiated logout asks first (OpenID Connect RP-Initiated Logout 1.0 section 3); `form` is the provider's hidden form. */
export function signOutPage(locale: Locale, form: string, appName: string | undefined, look: PageLook = DEFAULT_LOOK): string {
  const t = PAGE_TEXTS[locale].signOut
  return renderPage(
    t.title,
    `${form}<p>${appName ? say(t.appAsks, { app: appName }) : say(t.someAppAsks)} ${say(t.alsoHere)}</p>` +
      `<button type="submit" form="op.logoutForm" name="logout" value="yes" autofocus>${say(t.confirm)}</button>` +
      `<button type="submit" form="op.logoutForm" class="secondary">${say(t.stay)}</button>`,
    locale,
    look,
  )
}

export function signedOutPage(locale: Locale, look: PageLook = DEFAULT_LOOK): string {
  const t = PAGE_TEXTS[locale].signedOut
  return renderPage(t.title, `<p>${say(t.before)} <a href="/login">${say(t.link)}</a>${say(t.after)}</p>`, locale, look)
}

/** Device flow (RFC 8628 section 3.3): the code entry; `form` is the provider's form, its input already labelled. */
export function deviceInputPage(locale: Locale, form: string, problem: 'invalid_code' | 'interrupted' | null, look: PageLook = DEFAULT_LOOK): string {
  const t = PAGE_TEXTS[locale].deviceInput
  const alert = problem ? `<p class="error" role="alert">${say(problem === 'invalid_code' ? t.invalidCode : t.interrupted)}</p>` : ''
  return renderPage(t.title, `${alert}<p id="user-code-help">${say(t.help)}</p><label for="user_code">${say(t.label)}</label>${form}<button type="submit" form="op.deviceInputForm">${say(t.submit)}</button>`, locale, look)
}

/** Device flow: the person checks the code their device shows before allowing it. */
export function deviceConfirmPage(locale: Locale, form: string, appName: string, userCode: string, look: PageLook = DEFAULT_LOOK): string {
  const t = PAGE_TEXTS[locale].deviceConfirm
  const [before, after] = t.wants.split('{app}') as [string, string?]
  return renderPage(
    t.title,
    `<p>${say(before)}<strong>${escapeHtml(appName)}</strong>${say(after ?? '')}</p><p><code dir="ltr">${escapeHtml(userCode)}</code></p><p>${say(t.ifNot)}</p>${form}` +
      `<button type="submit" form="op.deviceConfirmForm" autofocus>${say(t.allow)}</button>` +
      `<button type="submit" form="op.deviceConfirmForm" name="abort" value="yes" class="secondary">${say(t.cancel)}</button>`,
    locale,
    look,
  )
}

export function deviceDonePage(locale: Locale, appName: string | undefined, look: PageLook = DEFAULT_LOOK): string {
  const t = PAGE_TEXTS[locale].deviceDone
  return renderPage(t.title, `<p>${say(t.signedIn, { app: appName || t.yourDevice })}</p>`, locale, look)
}

/** Too many user codes from one place: how long to wait, in words. */
export function tooManyCodesPage(locale: Locale, minutes: number, backHref: string, look: PageLook = DEFAULT_LOOK): string {
  const t = PAGE_TEXTS[locale].tooMany
  return renderPage(t.title, `<p class="error" role="alert">${say(t.wait, { minutes: counted(locale, t.minutes, minutes) })}</p><p><a href="${escapeHtml(backHref)}">${say(t.back)}</a></p>`, locale, look)
}

type ErrorWords = Exclude<keyof PageTexts['error'], 'title' | 'details' | 'what' | 'home'>

/** The errors a person may meet here, in words; anything else is shown by its description. */
export function errorPage(out: { error?: unknown; error_description?: unknown }, locale: Locale = 'en', look: PageLook = DEFAULT_LOOK): string {
  const t = PAGE_TEXTS[locale].error
  const code = String(out.error ?? 'server_error')
  const words = Object.hasOwn(t, code) && !['title', 'details', 'what', 'home', 'other'].includes(code) ? t[code as ErrorWords] : t.other
  const detail = out.error_description ? `<p>${say(t.details, { detail: String(out.error_description) })}</p>` : ''
  const [before, after] = t.what.split('{code}') as [string, string?]
  return renderPage(t.title, `<p>${escapeHtml(words)}</p>${detail}<p>${say(before)}<code>${escapeHtml(code)}</code>${say(after ?? '')}</p><p><a href="/">${say(t.home)}</a></p>`, locale, look)
}
