/** The refusals of an administrator's mail texts (features/mail/override-rules.ts) as answers: 400 naming the key at fault. */
import { authFail } from './auth'

export function refuseMailTexts(refusal: { code: 'mail_text_unknown' | 'mail_placeholder_unknown' | 'mail_text_markup'; key: string; message: string }): never {
  return authFail(400, refusal.code, 'Validation failed', { fields: { [`texts.${refusal.key}`]: refusal.message } })
}
