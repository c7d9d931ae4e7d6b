/**
 * Mail templates: pure functions from values and a language to `{ subject, text, html }`. The words
 * come from the language's catalogue (catalogue/*.ts), with an administrator's own words for a mail
 * put over them when the mailer sends it (LocalizedMail.withTexts, overrides-repo.ts). Every
 * interpolated value is HTML-escaped in the HTML part (names, notes and reasons come from users,
 * override texts from an administrator); the text part reads on its own in a plain-text client.
 * Codes and tokens never go in a subject: subjects show up in notifications and server logs.
 */
import { localeDirection, type Locale } from '../../contract/locales'
import { escapeHtml } from '../../../shared/html'
import { CATALOGUES, type MailKind } from './catalogue/catalogues'
import type { MailCatalogue } from './catalogue/en'
import { actionInWords, anomalyInWords, counted, durationOf, eitherOf, fill, humanDate, listOf, minutesOf, namesOf } from './format'

export interface MailContent {
  subject: string
  text: string
  html: string
}

/** The words of one mail of the catalogue: what an administrator may override. */
export type MailTexts<K extends MailKind> = MailCatalogue['mails'][K]

/**
 * A mail rendered in its language, which can render itself again with other words for its own
 * texts (an administrator's override, or a preview of one). The mailer applies the stored override
 * before sending (mailer.ts).
 */
export interface LocalizedMail extends MailContent {
  kind: MailKind
  locale: Locale
  withTexts(texts: Readonly<Record<string, string>>): MailContent
  /** the mail again with an administrator's words and/or a team's brand (the mailer's last step, mailer.ts) */
  renderWith(options: { texts?: Readonly<Record<string, string>> | null; brand?: MailBrand | undefined }): MailContent
}

/**
 * A team's brand in a mail (the IAM's `email.brand`, iam/lib/config-schema.ts, checked there: an
 * https logo, a hex button colour white text reads on, https legal pages). Absent, a mail is the
 * default layout byte for byte (tests/unit/mail-snapshots.test.ts).
 */
export interface MailBrand {
  logoUrl?: string | undefined
  primaryColor?: string | undefined
  supportEmail?: string | undefined
  legal?: { termsUrl?: string | undefined; privacyUrl?: string | undefined } | undefined
}

/** What every template needs besides its own values: the site's name and the mail's language. */
export interface MailBase {
  siteName: string
  locale: Locale
  /** the reader's IANA time zone (users.time_zone, else the request's), for the moments a mail names; UTC without one */
  timeZone?: string | null | undefined
}

type Block = { kind: 'p'; text: string } | { kind: 'link'; label: string; url: string } | { kind: 'code'; code: string }

const FONT = "-apple-system, BlinkMacSystemFont, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif"
const MONO = "ui-monospace, SFMono-Regular, Menlo, Consolas, monospace"

// Dark mode for the clients that honour prefers-color-scheme in a mail's <style> (Apple Mail, iOS,
// Outlook on the web and for Mac); the others keep the light colours inlined on each element.
// !important because inline styles win over a style sheet otherwise.
// A brand's button colour stays in dark mode: white text on it was checked at config load.
// The footer's links (a branded mail's) take the muted colour of the dark footer.
const darkStyle = (button = '#3b82f6', footerLinks = false) => `@media (prefers-color-scheme: dark) {
  .mail-bg { background: #0f1216 !important; }
  .mail-card { background: #1b1f24 !important; color: #e6e8eb !important; }
  .mail-muted { color: #a9b1ba !important; }
  .mail-code { background: #262c33 !important; color: #ffffff !important; }
  .mail-card a { color: #8ab4ff !important; }${footerLinks ? '\n  .mail-muted a { color: #a9b1ba !important; }' : ''}
  .mail-button { background: ${button} !important; }
  .mail-card .mail-button a { color: #ffffff !important; }
}`

/** The default button colour (white text on it: 6.7:1). */
const BUTTON = '#1d4ed8'

/**
 * One block as HTML: tables for the button, inline CSS everywhere, printed addresses that wrap. The
 * button and the code sit at the start of the line in the writing direction (the card's `dir`
 * places the button's table and aligns the text);
 * codes and addresses are always left to right (`dir="ltr"`), also inside Arabic text.
 */
function blockHtml(block: Block, locale: Locale, button: string): string {
  const { layout } = CATALOGUES[locale]
  if (block.kind === 'p') return `<p style="margin:0 0 16px">${escapeHtml(block.text)}</p>`
  if (block.kind === 'code') {
    return (
      `<p style="margin:0 0 4px">${escapeHtml(layout.yourCode)}</p>` +
      `<p style="margin:0 0 16px"><span class="mail-code" dir="ltr" style="display:inline-block;padding:8px 14px;background:#f1f3f5;border-radius:6px;font-family:${MONO};font-size:24px;font-weight:700;letter-spacing:4px">${escapeHtml(block.code)}</span></p>`
    )
  }
  const url = escapeHtml(block.url)
  return (
    `<table role="presentation" cellpadding="0" cellspacing="0" border="0" style="margin:0 0 12px"><tr>` +
    `<td class="mail-button" style="border-radius:6px;background:${button}"><a href="${url}" style="display:inline-block;padding:12px 20px;color:#ffffff;font-weight:600;text-decoration:none">${escapeHtml(block.label)}</a></td>` +
    `</tr></table>` +
    // a long link printed as it is would widen the mail past any screen: it may break anywhere
    `<p class="mail-muted" style="margin:0 0 16px;font-size:13px;color:#57606a;word-break:break-all;overflow-wrap:anywhere">${escapeHtml(layout.copyAddress)} <span dir="ltr">${url}</span></p>`
  )
}

/**
 * Renders blocks to both parts, so text and HTML say the same thing. The HTML is the layout mail
 * clients render alike: nested tables, styles inlined on each element, at most 560 px of content
 * that narrows with the screen, and nothing wider than the screen (tests/e2e/mail-layout.test.ts
 * renders every mail at 600 and 320 px, light and dark, and one Arabic mail right to left). The
 * language and its direction are on <html> and again on the card and the footer, since some
 * clients drop the <html> element of a mail.
 */
function render(base: MailBase, subject: string, blocks: Block[], brand?: MailBrand): MailContent {
  const { siteName, locale } = base
  const { layout } = CATALOGUES[locale]
  const dir = localeDirection(locale)
  const align = dir === 'rtl' ? 'right' : 'left'
  const links = brandLinks(brand, locale)
  const text = [
    ...blocks.map((b) =>
      b.kind === 'p' ? b.text : b.kind === 'link' ? `${b.label}:\n${b.url}` : `${layout.yourCode} ${b.code}`,
    ),
    `-- \n${siteName}${links.map((link) => `\n${link.label}: ${link.shown}`).join('')}`,
  ].join('\n\n')
  const button = brand?.primaryColor ?? BUTTON
  const body = blocks.map((b) => blockHtml(b, locale, button)).join('\n')
  // the logo stands for the name: the name is its alt text, for clients that block remote images
  const heading = brand?.logoUrl
    ? `<img src="${escapeHtml(brand.logoUrl)}" alt="${escapeHtml(siteName)}" height="40" style="display:block;height:40px;width:auto;max-width:100%;border:0">`
    : escapeHtml(siteName)
  const footerLinks = links.length
    ? `\n<p class="mail-muted" lang="${locale}" dir="${dir}" style="margin:8px 0 0;max-width:560px;font-family:${FONT};font-size:12px;color:#57606a;text-align:${align};overflow-wrap:anywhere">${links
        .map((link) => `<a href="${escapeHtml(link.href)}" style="color:#57606a;text-decoration:underline">${escapeHtml(link.label)}</a>`)
        .join(' &middot; ')}</p>`
    : ''
  const html = `<!doctype html>
<html lang="${locale}" dir="${dir}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light dark"><meta name="supported-color-schemes" content="light dark"><title>${escapeHtml(subject)}</title><style>${darkStyle(brand?.primaryColor, links.length > 0)}</style></head>
<body class="mail-bg" style="margin:0;padding:0;background:#f3f4f6">
<table role="presentation" class="mail-bg" width="100%" cellpadding="0" cellspacing="0" border="0" style="background:#f3f4f6"><tr><td align="center" style="padding:24px 12px">
<table role="presentation" class="mail-card" lang="${locale}" dir="${dir}" width="100%" cellpadding="0" cellspacing="0" border="0" style="max-width:560px;background:#ffffff;border-radius:8px;color:#1f2328;font-family:${FONT};font-size:16px;line-height:1.5;text-align:${align}">
<tr><td style="padding:20px 24px 4px;font-size:18px;font-weight:700">${heading}</td></tr>
<tr><td style="padding:12px 24px 8px">
${body}
</td></tr>
</table>
<p class="mail-muted" lang="${locale}" dir="${dir}" style="margin:16px 0 0;max-width:560px;font-family:${FONT};font-size:12px;color:#57606a;text-align:${align}">${escapeHtml(fill(layout.footer, { siteName }))}</p>${footerLinks}
</td></tr></table>
</body></html>`
  return { subject, text, html }
}

/** The brand's support address and legal pages, those set, with their words in the mail's language. */
function brandLinks(brand: MailBrand | undefined, locale: Locale): { label: string; href: string; shown: string }[] {
  const { layout } = CATALOGUES[locale]
  return [
    ...(brand?.supportEmail ? [{ label: layout.support, href: `mailto:${brand.supportEmail}`, shown: brand.supportEmail }] : []),
    ...(brand?.legal?.termsUrl ? [{ label: layout.terms, href: brand.legal.termsUrl, shown: brand.legal.termsUrl }] : []),
    ...(brand?.legal?.privacyUrl ? [{ label: layout.privacy, href: brand.legal.privacyUrl, shown: brand.legal.privacyUrl }] : []),
  ]
}

/**
 * One mail of the catalogue in `base.locale`: `build` turns the mail's words into blocks, so the
 * same values render again with an administrator's words (`withTexts`, keys of this mail only).
 */
function localized<K extends MailKind>(kind: K, base: MailBase, build: (t: MailTexts<K>) => { subject: string; blocks: Block[] }): LocalizedMail {
  const texts = CATALOGUES[base.locale].mails[kind]
  const renderTexts = (t: MailTexts<K>, brand?: MailBrand) => {
    const built = build(t)
    return render(base, built.subject, built.blocks, brand)
  }
  const merged = (own: Readonly<Record<string, string>>) => {
    const all: Record<string, string> = { ...texts }
    for (const [key, value] of Object.entries(own)) if (Object.hasOwn(texts, key)) all[key] = value
    return all as MailTexts<K>
  }
  return {
    ...renderTexts(texts),
    kind,
    locale: base.locale,
    withTexts: (own) => renderTexts(merged(own)),
    renderWith: ({ texts: own, brand }) => renderTexts(own ? merged(own) : texts, brand),
  }
}

const p = (text: string): Block => ({ kind: 'p', text })

export interface CodeMailInput extends MailBase {
  link: string
  code: string
  /** how long the code stays valid */
  codeTtlMs: number
}

/** Adaptive MFA: a sign-in from a new device or place must be confirmed. */
export function adaptiveMfaMail(input: CodeMailInput & { anomaly: string; ipAddress: string }): LocalizedMail {
  const { siteName, locale } = input
  return localized('adaptiveMfa', input, (t) => ({
    subject: fill(t.subject, { siteName }),
    blocks: [
      p(fill(t.why, { siteName, ipAddress: input.ipAddress, reason: anomalyInWords(input.anomaly, locale) })),
      p(fill(t.howTo, { duration: minutesOf(locale, input.codeTtlMs) })),
      { kind: 'link', label: t.button, url: input.link },
      { kind: 'code', code: input.code },
      p(t.notYou),
    ],
  }))
}

/** A custom MFA flow protecting a sensitive action (payment, deletion, email change ...). */
export function customActionMail(input: CodeMailInput & { reason: string; note?: string }): LocalizedMail {
  const { siteName, locale } = input
  const action = actionInWords(input.reason, locale)
  return localized('customAction', input, (t) => ({
    subject: fill(t.subject, { siteName, action }),
    blocks: [
      p(fill(t.intro, { siteName, action })),
      ...(input.note ? [p(fill(t.note, { note: input.note }))] : []),
      p(fill(t.howTo, { duration: minutesOf(locale, input.codeTtlMs) })),
      { kind: 'link', label: t.button, url: input.link },
      { kind: 'code', code: input.code },
      p(t.notYou),
    ],
  }))
}

/**
 * Sent to the restored address after an email change was undone: every session ended, and what
 * was set up since the change (by whoever moved the address) was removed.
 */
export function emailChangeUndoneNotice(
  input: MailBase & {
    when: Date
    ipAddress: string
    removed: { totp: boolean; passkeys: number; apiTokens: number; providerLinks: number }
    passwordCleared: boolean
    forgotUrl: string
  },
): LocalizedMail {
  const { siteName, locale, removed } = input
  const words = CATALOGUES[locale].undoneItems
  const items = [
    removed.totp ? words.totp : null,
    removed.passkeys ? counted(locale, words.passkeys, removed.passkeys) : null,
    removed.apiTokens ? counted(locale, words.apiTokens, removed.apiTokens) : null,
    removed.providerLinks ? counted(locale, words.providerLinks, removed.providerLinks) : null,
    input.passwordCleared ? words.password : null,
  ].filter((item): item is string => item !== null)
  return localized('emailChangeUndone', input, (t) => ({
    subject: fill(t.subject, { siteName }),
    blocks: [
      p(fill(t.restored, { siteName, date: humanDate(input.when, locale, input.timeZone), ipAddress: input.ipAddress })),
      p(items.length ? fill(t.removed, { items: listOf(locale, items) }) : t.nothingAdded),
      ...(input.passwordCleared ? [p(t.noPassword), { kind: 'link' as const, label: t.button, url: input.forgotUrl }] : [p(t.notYou)]),
    ],
  }))
}

/**
 * The code that re-authenticates a session of an account with neither a password nor a second
 * factor (POST /auth/reauthenticate): typed where it was asked for, so the mail carries no link.
 */
export function reauthenticateCodeMail(input: MailBase & { code: string; codeTtlMs: number }): LocalizedMail {
  const { siteName, locale } = input
  return localized('reauthenticateCode', input, (t) => ({
    subject: fill(t.subject, { siteName }),
    blocks: [p(fill(t.intro, { siteName, duration: minutesOf(locale, input.codeTtlMs) })), { kind: 'code', code: input.code }, p(t.notYou)],
  }))
}

/** A live API token as a notice names it: never the raw token, only what the owner recognises. */
export interface TokenSummary {
  name: string
  publicIdentifier: string
}

/**
 * "You have N active API tokens: ...": tokens survive a password reset or an email change, so
 * whoever recovers an account must learn they exist.
 */
function tokenBlocks(locale: Locale, tokens: readonly TokenSummary[] | undefined, revoked: number | undefined): Block[] {
  const words = CATALOGUES[locale].tokens
  const blocks: Block[] = []
  if (revoked) blocks.push(p(counted(locale, words.revoked, revoked)))
  if (!tokens?.length) return blocks
  const list = namesOf(locale, tokens.map((t) => `${t.name} (${t.publicIdentifier})`))
  blocks.push(p(counted(locale, words.active, tokens.length, { list })))
  return blocks
}

/** What every change notice states: when and from where the change came, and the API tokens that outlive it. */
interface ChangeNotice extends MailBase {
  when: Date
  ipAddress: string
  tokens?: readonly TokenSummary[]
}

/** Mailed to a new or changed address: proves the owner reads it. The account works meanwhile. */
export function verifyEmailMail(input: MailBase & { link: string; linkTtlMs: number }): LocalizedMail {
  const { siteName, locale } = input
  return localized('verifyEmail', input, (t) => ({
    subject: fill(t.subject, { siteName }),
    blocks: [
      p(fill(t.intro, { siteName })),
      p(fill(t.howTo, { duration: durationOf(locale, input.linkTtlMs) })),
      { kind: 'link', label: t.button, url: input.link },
      p(t.ignore),
    ],
  }))
}

/**
 * Sent to the OLD address after an email change, so a hijacked account is noticed; the undo link
 * puts this address back and signs every session out.
 */
export function emailChangedNotice(input: ChangeNotice & { newEmailMasked: string; undoLink?: string; undoTtlMs?: number }): LocalizedMail {
  const { siteName, locale } = input
  return localized('emailChanged', input, (t) => ({
    subject: fill(t.subject, { siteName }),
    blocks: [
      p(fill(t.changed, { siteName, newEmail: input.newEmailMasked, date: humanDate(input.when, locale, input.timeZone), ipAddress: input.ipAddress })),
      ...(input.undoLink
        ? [p(fill(t.undo, { duration: durationOf(locale, input.undoTtlMs ?? 0) })), { kind: 'link' as const, label: t.button, url: input.undoLink }]
        : []),
      ...tokenBlocks(locale, input.tokens, undefined),
      p(t.notYou),
    ],
  }))
}

/**
 * An invitation to join an organization. The link works once, for the invited address only: the
 * person signs in (or signs up) with it and accepts.
 */
export function orgInvitationMail(input: MailBase & { orgName: string; inviterName: string; link: string; linkTtlMs: number }): LocalizedMail {
  const { siteName, locale, orgName } = input
  return localized('orgInvitation', input, (t) => ({
    subject: fill(t.subject, { siteName, orgName }),
    blocks: [
      p(fill(t.invited, { inviterName: input.inviterName, orgName, siteName })),
      p(fill(t.howTo, { duration: durationOf(locale, input.linkTtlMs) })),
      { kind: 'link', label: t.button, url: input.link },
      p(t.ignore),
    ],
  }))
}

export function passwordResetMail(input: MailBase & { link: string; linkTtlMs: number }): LocalizedMail {
  const { siteName, locale } = input
  return localized('passwordReset', input, (t) => ({
    subject: fill(t.subject, { siteName }),
    blocks: [
      p(fill(t.asked, { siteName })),
      p(fill(t.howTo, { duration: minutesOf(locale, input.linkTtlMs) })),
      { kind: 'link', label: t.button, url: input.link },
      p(t.ignore),
    ],
  }))
}

/** A sign-in by email: the link (bound to the browser that asked) and/or the code, as configured (signIn.*). */
export function emailSignInMail(input: MailBase & { link: string | null; linkTtlMs: number; code: string | null; codeTtlMs: number }): LocalizedMail {
  const { siteName, locale } = input
  return localized('emailSignIn', input, (t) => ({
    subject: fill(t.subject, { siteName }),
    blocks: [
      p(fill(t.asked, { siteName })),
      ...(input.link ? [p(fill(t.howToLink, { duration: minutesOf(locale, input.linkTtlMs) })), { kind: 'link' as const, label: t.button, url: input.link }] : []),
      ...(input.code ? [p(fill(t.howToCode, { duration: minutesOf(locale, input.codeTtlMs) })), { kind: 'code' as const, code: input.code }] : []),
      p(t.ignore),
    ],
  }))
}

/** The code that proves the mailbox before a sign-up with a passkey (features/users/passkey-signup.ts). */
export function passkeySignupMail(input: MailBase & { code: string; codeTtlMs: number }): LocalizedMail {
  const { siteName, locale } = input
  return localized('passkeySignup', input, (t) => ({
    subject: fill(t.subject, { siteName }),
    blocks: [p(fill(t.asked, { siteName })), p(fill(t.howToCode, { duration: minutesOf(locale, input.codeTtlMs) })), { kind: 'code', code: input.code }, p(t.ignore)],
  }))
}

/** A sign-up was asked for an address that has an account: said to the mailbox only, never in the answer. */
export function accountExistsMail(input: MailBase & { loginUrl: string }): LocalizedMail {
  const { siteName } = input
  return localized('accountExists', input, (t) => ({
    subject: fill(t.subject, { siteName }),
    blocks: [p(fill(t.asked, { siteName })), p(t.howToSignIn), { kind: 'link', label: t.button, url: input.loginUrl }, p(t.ignore)],
  }))
}

/**
 * A password reset or an email sign-in was asked for an address no account uses: said to the
 * mailbox only, never in the answer. Mailed as the known address's mail is, so the two cost the
 * same work after the answer (account-actions/password-reset.ts, users/email-sign-in-request.ts).
 */
export function noAccountMail(input: MailBase & { asked: 'forgot_password' | 'email_sign_in'; signupUrl: string }): LocalizedMail {
  const { siteName } = input
  return localized('noAccount', input, (t) => ({
    subject: fill(t.subject, { siteName }),
    blocks: [
      p(fill(input.asked === 'forgot_password' ? t.askedReset : t.askedSignIn, { siteName })),
      p(t.otherAddress),
      { kind: 'link', label: t.button, url: input.signupUrl },
      p(t.ignore),
    ],
  }))
}

export function passwordChangedNotice(
  input: ChangeNotice & {
    revokedTokens?: number
    /** a change made while signed in keeps that one session (a reset signs every session out) */
    keptCurrentSession?: boolean
  },
): LocalizedMail {
  const { siteName, locale } = input
  return localized('passwordChanged', input, (t) => ({
    subject: fill(t.subject, { siteName }),
    blocks: [
      p(fill(input.keptCurrentSession ? t.changedOthersSignedOut : t.changedAllSignedOut, { siteName, date: humanDate(input.when, locale, input.timeZone), ipAddress: input.ipAddress })),
      ...tokenBlocks(locale, input.tokens, input.revokedTokens),
      p(t.notYou),
    ],
  }))
}

/** An account without a password (provider sign-in only) asked for a reset. */
export function useProviderMail(input: MailBase & { providers: string[]; loginUrl: string }): LocalizedMail {
  const { siteName, locale } = input
  return localized('useProvider', input, (t) => ({
    subject: fill(t.subject, { siteName }),
    blocks: [
      p(fill(t.asked, { siteName, providers: input.providers.length ? eitherOf(locale, input.providers) : t.anyProvider })),
      { kind: 'link', label: t.button, url: input.loginUrl },
      p(t.ignore),
    ],
  }))
}

/** The changes a second-factor notice tells of (catalogue `secondFactorChanges`). */
export type SecondFactorChange = keyof MailCatalogue['secondFactorChanges']

/** Two-step sign-in was turned on or off, a recovery code was used or new ones were made (ASVS V6.3.7: notify on changes to authentication). */
export function secondFactorNotice(input: MailBase & { change: SecondFactorChange; when: Date; ipAddress: string; recoveryCodesLeft?: number }): LocalizedMail {
  const { siteName, locale } = input
  const catalogue = CATALOGUES[locale]
  const { headline, sentence } = catalogue.secondFactorChanges[input.change]
  return localized('secondFactor', input, (t) => ({
    subject: fill(t.subject, { siteName, headline }),
    blocks: [
      p(fill(sentence, { date: humanDate(input.when, locale, input.timeZone), ipAddress: input.ipAddress })),
      ...(input.change === 'recovery_code_used' && input.recoveryCodesLeft !== undefined ? [p(counted(locale, catalogue.recoveryCodesLeft, input.recoveryCodesLeft))] : []),
      p(input.change === 'codes_locked' ? t.lockedNotYou : t.notYou),
    ],
  }))
}

/**
 * The confirmation of a deletion the signed-in owner asked for: nothing happens until the link is
 * used, so a session left open somewhere cannot delete the account without the mailbox.
 */
export function deleteAccountMail(input: MailBase & { link: string; linkTtlMs: number; undoWindowMs: number }): LocalizedMail {
  const { siteName, locale } = input
  return localized('deleteAccount', input, (t) => ({
    subject: fill(t.subject, { siteName }),
    blocks: [
      p(fill(t.asked, { siteName })),
      p(fill(t.howTo, { duration: minutesOf(locale, input.linkTtlMs), undoWindow: durationOf(locale, input.undoWindowMs) })),
      { kind: 'link', label: t.button, url: input.link },
      p(t.notYou),
    ],
  }))
}

/** Sent once the deletion is confirmed: when the account will be erased, and the link that restores it until then. */
export function accountDisabledNotice(input: MailBase & { eraseAt: Date; undoLink: string; undoTtlMs: number }): LocalizedMail {
  const { siteName, locale } = input
  return localized('accountDisabled', input, (t) => ({
    subject: fill(t.subject, { siteName }),
    blocks: [
      p(fill(t.disabled, { siteName, date: humanDate(input.eraseAt, locale, input.timeZone) })),
      p(fill(t.undo, { duration: durationOf(locale, input.undoTtlMs) })),
      { kind: 'link', label: t.button, url: input.undoLink },
    ],
  }))
}

/**
 * The restore link of an account scheduled for deletion, mailed again: asked for from the sign-in
 * page after the right password (`sign_in`), or sent instead of a reset link (`forgot_password`),
 * which a disabled account cannot use. The newest link is the only live one (restore-link.ts).
 */
export function restoreLinkMail(input: MailBase & { asked: 'sign_in' | 'forgot_password' | 'email_sign_in'; eraseAt: Date; undoLink: string; undoTtlMs: number }): LocalizedMail {
  const { siteName, locale } = input
  // a reset asked for is still wanted after the restore; a sign-in (by password or by mail) is not
  const reset = input.asked === 'forgot_password'
  return localized('restoreLink', input, (t) => ({
    subject: fill(t.subject, { siteName }),
    blocks: [
      p(fill(reset ? t.askedReset : input.asked === 'email_sign_in' ? t.askedEmailSignIn : t.askedSignIn, { siteName, date: humanDate(input.eraseAt, locale, input.timeZone) })),
      p(fill(reset ? t.howToReset : t.howToSignIn, { duration: durationOf(locale, input.undoTtlMs) })),
      { kind: 'link', label: t.button, url: input.undoLink },
      p(t.ignore),
    ],
  }))
}

/** Sent when the undo link restored the account. */
export function accountRestoredNotice(input: MailBase & { when: Date; ipAddress: string; loginUrl: string }): LocalizedMail {
  const { siteName, locale } = input
  return localized('accountRestored', input, (t) => ({
    subject: fill(t.subject, { siteName }),
    blocks: [
      p(fill(t.restored, { siteName, date: humanDate(input.when, locale, input.timeZone), ipAddress: input.ipAddress })),
      p(t.sessions),
      { kind: 'link', label: t.button, url: input.loginUrl },
    ],
  }))
}

/**
 * To every platform administrator when a webhook endpoint is switched off by itself (`switch`, at
 * `switch.at`): a run of failed attempts since `switch.since`, or a 410 Gone. The endpoint is named
 * by its host and path (disabled-notice.ts shownEndpoint): not a link, and never the query of its URL.
 */
export function webhookEndpointDisabledNotice(
  input: MailBase & { endpoint: string; switch: { at: Date } & ({ reason: 'failing'; since: Date } | { reason: 'gone' }); consoleUrl: string },
): LocalizedMail {
  const { siteName, locale, endpoint, switch: off } = input
  const date = humanDate(off.at, locale, input.timeZone)
  return localized('webhookEndpointDisabled', input, (t) => ({
    subject: fill(t.subject, { siteName }),
    blocks: [
      p(off.reason === 'gone' ? fill(t.gone, { endpoint, date }) : fill(t.failing, { endpoint, date, since: humanDate(off.since, locale, input.timeZone) })),
      p(t.waiting),
      { kind: 'link', label: t.button, url: input.consoleUrl },
    ],
  }))
}
