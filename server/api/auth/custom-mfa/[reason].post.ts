/**
 * POST /api/auth/custom-mfa/:reason `{ note? }` -> IAM POST /custom/mfa/:reason (full authentication):
 * mails a confirmation link + code for a sensitive action (e.g. PAYMENT_CONFIRM; `change_email` starts the email change).
 * 200 `{ ok, date, data: { reason, expiresAt, sentTo } }`.
 */
import { getRouterParam } from 'h3'
import { z } from 'zod'
import { readInput } from '../../../utils/bff/input'
import { bffFail, defineBffHandler, relay } from '../../../utils/bff/respond'
import { callAuthed } from '../../../utils/bff/session'

const bodySchema = z.object({ note: z.string().max(200).optional() })

export default defineBffHandler(async (event) => {
  const reason = getRouterParam(event, 'reason') ?? ''
  if (!/^(?:[A-Z0-9_]{3,64}|change_email)$/.test(reason)) bffFail(400, { ok: false, error: 'Unknown action.' })
  const body = await readInput(event, bodySchema)
  const res = await callAuthed(event, { method: 'POST', path: `/custom/mfa/${reason}`, body })
  return relay(event, res)
})
