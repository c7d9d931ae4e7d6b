/**
 * Adaptive MFA dispatch: called by protectRoute and refresh when an
 * anomaly asks for MFA. At most one live code per session: a repeat while one is live answers
 * `sent: false` and mails nothing, so a retrying client cannot mail-bomb the owner.
 */
import { chooseLocale, type Locale } from '../../contract/locales'
import { adaptiveMfaMail } from '../mail/templates'
import { recordSecurityEvent } from '../security-events/repository'
import { codeMailFields, findMailRecipient, startFlow, type FlowDeps } from './flows'
import { MFA_PURPOSE } from './purposes'

export interface AdaptiveMfaInput {
  userId: number
  /** the session family (access token `sid`) */
  familyId: string
  /** public visitor_id of the device asking */
  visitor: string
  /** the anomaly type, shown in the mail */
  anomaly: string
  ipAddress: string
  /** the language the request asked for: the mail's when the account chose none */
  requestLocale?: Locale
}

/** Why no MFA mail went out: the account or the session is gone, or the mail failed. */
export type AdaptiveMfaFailureCode = 'user_gone' | 'session_gone' | 'mail_failed'
export type AdaptiveMfaResult = { ok: true; sent: boolean } | { ok: false; code: AdaptiveMfaFailureCode }

export async function sendAdaptiveMfa(deps: FlowDeps, input: AdaptiveMfaInput): Promise<AdaptiveMfaResult> {
  const user = await findMailRecipient(deps, input.userId)
  if (!user) return { ok: false, code: 'user_gone' }
  const { siteName } = deps.config.email
  const result = await startFlow(deps, {
    purpose: MFA_PURPOSE,
    path: 'mfa',
    userId: input.userId,
    familyId: input.familyId,
    visitor: input.visitor,
    data: { anomaly: input.anomaly, ipAddress: input.ipAddress },
    withCode: true,
    onLive: 'keep',
    mail: (issued) => ({
      to: user.email,
      links: [issued.url],
      content: adaptiveMfaMail({
        siteName,
        locale: chooseLocale(user.locale, input.requestLocale),
        ...codeMailFields(deps, issued),
        anomaly: input.anomaly,
        ipAddress: input.ipAddress,
      }),
    }),
  })
  if (!result.ok) return result
  if (result.sent) {
    await recordSecurityEvent(deps.db, {
      type: 'mfa_sent',
      userId: input.userId,
      visitorRowId: null,
      ipAddress: input.ipAddress,
      details: { anomaly: input.anomaly, familyId: input.familyId },
      at: new Date(deps.now()),
    })
  }
  return { ok: true, sent: result.sent }
}
