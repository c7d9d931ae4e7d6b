/**
 * Tells the account's address when its second factor changes or a recovery code is spent, so an
 * owner learns of a change made by someone else. Sent after the change committed: a mail that
 * cannot be delivered is logged, never a failed request.
 */
import { chooseLocale, type Locale } from '../../contract/locales'
import type { IamContext } from '../../context'
import { getMailer } from '../mail/mailer'
import { secondFactorNotice } from '../mail/templates'
import { findMailRecipient } from '../mfa/flows'

export function sendSecondFactorNotice(
  ctx: IamContext,
  input: {
    userId: number
    change: Parameters<typeof secondFactorNotice>[0]['change']
    ipAddress: string
    recoveryCodesLeft?: number
    /** the language of the request that made the change, when the owner made it (not an administrator) */
    requestLocale?: Locale
  },
): void {
  const send = async () => {
    const user = await findMailRecipient(ctx, input.userId)
    if (!user) return
    const { requestLocale, ...values } = input
    const locale = chooseLocale(user.locale, requestLocale)
    const content = secondFactorNotice({ siteName: ctx.config.email.siteName, locale, timeZone: user.time_zone, when: new Date(ctx.now()), ...values })
    await getMailer(ctx).send({ to: user.email, content })
  }
  send().catch((error: Error) => ctx.log.error('second-factor notice not delivered', { userId: input.userId, change: input.change, error: error.message }))
}
