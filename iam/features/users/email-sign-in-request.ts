/**
 * Asking for a sign-in by email (POST /auth/email-sign-in, config `signIn.emailLink` /
 * `signIn.emailCode`). The answer is one fixed body whatever the address: the lookup, the link and
 * the mail run after the response, off the request path, so neither the body, the status nor the
 * timing tells whether an account exists (as POST /auth/forgot-password, account-actions/password-reset.ts).
 * An address no account uses is mailed that, with the way to sign up (mail/no-account.ts).
 *
 * What is mailed: a link bound to the browser that asked (its public visitor id is in the link and
 * in the link's JWT subject, mfa/link-token.ts) when the person asked for a link, and a code when
 * codes are on (the way forward when the link is opened on another device, and the whole mail when
 * the person asked for a code). One live sign-in mail per account: a new one ends the one before.
 */
import type { IamContext } from '../../context'
import { chooseLocale, type Locale } from '../../contract/locales'
import { isDeletionDue } from '../account-deletion/deletion-state'
import { mailRestoreLink } from '../account-deletion/restore-link'
import { normalizeEmail } from '../email-checks/email-checks'
import { runAfterResponse } from '../../lib/background'
import { admitMailTo } from '../mail/address-cap'
import { mailNoAccount } from '../mail/no-account'
import { emailSignInMail } from '../mail/templates'
import type { ActionLimited } from '../mfa/action-failures'
import { startFlow } from '../mfa/flows'
import { EMAIL_SIGN_IN_PURPOSE } from '../mfa/purposes'
import { useLimiter } from '../rate-limits/registry'
import { findUserByEmail } from './users-repo'

export type EmailSignInMethod = 'link' | 'code'

/** The one body of POST /auth/email-sign-in (no date: identical bytes for every address). */
export const EMAIL_SIGN_IN_BODY = Object.freeze({
  ok: true,
  message: 'If an account exists for this address, a sign-in mail has been sent.',
})

/** The methods the configuration offers, for the sign-in page (GET /auth/email-sign-in). */
export function emailSignInMethods(config: IamContext['config']): { link: boolean; code: boolean } {
  return { link: config.signIn.emailLink, code: config.signIn.emailCode }
}

export interface EmailSignInRequest {
  email: string
  method: EmailSignInMethod
  /** the public visitor id of the browser that asks: the link works only there */
  visitor: string
  remember: boolean
  ipAddress: string
  requestLocale?: Locale
}

/**
 * Limits (per IP, per IP + address), then schedules the lookup and the mail. A method the
 * configuration does not offer is refused alike for every address (`disabled`).
 */
export async function requestEmailSignIn(ctx: IamContext, input: EmailSignInRequest): Promise<{ ok: true } | { ok: false; code: 'disabled' } | ActionLimited> {
  if (!emailSignInMethods(ctx.config)[input.method]) return { ok: false, code: 'disabled' }
  const email = normalizeEmail(input.email)
  const limiter = useLimiter(ctx, 'emailSignIn')
  for (const facts of [{ ip: input.ipAddress }, { ip: input.ipAddress, email }]) {
    const decision = await limiter.consume(facts)
    if (!decision.ok) return { ok: false, code: 'rate_limited', decision }
  }
  // after the response, like the password reset's: a known and an unknown address cost the request
  // the same, and each gets a mail after it (an unknown one mail/no-account.ts's), so neither do the
  // requests that follow. Tracked so a graceful shutdown still sends it (lib/background.ts).
  runAfterResponse(
    () => sendSignInMail(ctx, { ...input, email }),
    (error) => ctx.log.error('email sign-in mail failed', { error: error.message }),
  )
  return { ok: true }
}

/** Looks the address up and, for a live account, issues the link (and code) and mails it. */
export async function sendSignInMail(ctx: IamContext, input: EmailSignInRequest): Promise<void> {
  const { signIn, email: mailConfig } = ctx.config
  const withLink = input.method === 'link'
  // a code rides along a link when codes are on: the way in when the link opens in another browser
  const withCode = input.method === 'code' || signIn.emailCode
  const user = await findUserByEmail(ctx.db, input.email)
  if (!user) {
    const flow = { purpose: EMAIL_SIGN_IN_PURPOSE, withCode, expiresInMs: signIn.expiresInMs }
    await mailNoAccount(ctx, { email: input.email, asked: 'email_sign_in', flow, requestLocale: input.requestLocale })
    return
  }
  // an account scheduled for deletion cannot sign in: its owner gets the restore link instead (a
  // new one, ending the one mailed before, under the address cap), as a password reset asked for
  // it does, so it too is mailed after the answer (account-deletion/restore-link.ts)
  if (user.deletion_due_at) {
    if (isDeletionDue(user, ctx.now())) {
      await mailNoAccount(ctx, { email: input.email, asked: 'email_sign_in', flow: { purpose: EMAIL_SIGN_IN_PURPOSE, withCode, expiresInMs: signIn.expiresInMs }, requestLocale: input.requestLocale })
      return
    }
    await mailRestoreLink(ctx, { user: { ...user, deletion_due_at: user.deletion_due_at }, asked: 'email_sign_in', visitorRowId: null, ipAddress: input.ipAddress, requestLocale: input.requestLocale, requestTimeZone: null })
    return
  }
  if (!(await admitMailTo(ctx, { email: user.email, userId: user.id, kind: 'email_sign_in' }))) return
  const result = await startFlow(ctx, {
    purpose: EMAIL_SIGN_IN_PURPOSE,
    path: 'emailSignIn',
    userId: user.id,
    familyId: null,
    visitor: input.visitor,
    // the address the mail went to: using the link or code proves it while it is still the account's
    data: { email: user.email, remember: input.remember },
    withCode,
    expiresInMs: signIn.expiresInMs,
    onLive: 'replace',
    mail: (issued) => ({
      to: user.email,
      links: withLink ? [issued.url] : [],
      content: emailSignInMail({
        siteName: mailConfig.siteName,
        locale: chooseLocale(user.locale, input.requestLocale),
        link: withLink ? issued.url : null,
        linkTtlMs: signIn.expiresInMs,
        code: issued.code,
        codeTtlMs: (issued.codeExpiresAt?.getTime() ?? ctx.now()) - ctx.now(),
      }),
    }),
  })
  // a failed mail removed its link (mfa/flows.ts) and is logged there; the sign-in itself is recorded when it completes
  if (!result.ok) ctx.log.warn('email sign-in not started', { userId: user.id, code: result.code })
}
