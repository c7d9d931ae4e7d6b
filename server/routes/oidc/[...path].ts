/**
 * /oidc/** -> the IAM's OpenID Provider (server/utils/oidc-forward.ts). A sign-out the provider
 * confirmed (RP-initiated logout, POST /oidc/session/end/confirm with `logout=yes`) also ends the
 * browser's session on this site: the app asked to sign the person out, and the person agreed.
 */
import { defineEventHandler, readBody } from 'h3'
import { endBffSession } from '../../utils/bff/sign-out'
import { forwardToProvider, sendProviderAnswer } from '../../utils/oidc-forward'

export default defineEventHandler(async (event) => {
  const answer = await forwardToProvider(event)
  if (!answer) return
  const confirmedSignOut =
    event.method === 'POST' &&
    event.path.split('?')[0] === '/oidc/session/end/confirm' &&
    answer.status >= 300 &&
    answer.status < 400 &&
    (await readBody<Record<string, unknown>>(event).catch(() => undefined))?.logout === 'yes'
  if (confirmedSignOut) await endBffSession(event)
  return sendProviderAnswer(event, answer)
})
