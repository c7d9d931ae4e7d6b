/** The answers of the two ways to finish a sign-in by email (routes/auth/email-sign-in/*). */
import type { H3Event } from 'h3'
import type { IamContext } from '../context'
import type { EmailSignInResult } from '../features/users/email-sign-in'
import { LINK_ERRORS } from '../features/mfa/links'
import { authFail, sendTokens } from './auth'
import { failCodesLocked } from './second-factor'
import { failSsoRequired } from './sso-required'
import { failSuspended } from './suspended'

const LINK_CODE = { link_invalid: 'link_invalid', link_mismatch: 'link_mismatch', link_expired: 'link_expired', link_used: 'link_used' } as const

export function answerEmailSignIn(event: H3Event, ctx: IamContext, result: EmailSignInResult) {
  if (result.ok) {
    if ('secondFactor' in result) return { ok: true as const, date: new Date().toISOString(), secondFactor: result.secondFactor }
    return sendTokens(event, ctx, result.pair, 200)
  }
  switch (result.code) {
    case 'banned':
      return failSuspended(result.suspension)
    case 'sso_required':
      return failSsoRequired(ctx, result)
    case 'locked':
      return failCodesLocked(result)
    case 'code_invalid':
      return authFail(401, 'code_invalid', LINK_ERRORS.bad_code)
    case 'other_device':
      return authFail(403, 'email_sign_in_other_device', 'This link works in the browser where you asked for it: open it there, or type the code from the mail there')
    default:
      return authFail(400, LINK_CODE[result.code], LINK_ERRORS[result.code.slice('link_'.length) as keyof typeof LINK_ERRORS])
  }
}
