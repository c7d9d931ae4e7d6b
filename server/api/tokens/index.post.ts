/**
 * POST /api/tokens `{ privilege, name, prefix?, expires?, ipv4? }` -> IAM POST /api/manage/new-token.
 * 201 `{ ok, date, data: { rawApiKey, rawPublicId, expiresAt } }`: the raw API token is returned to
 * the page exactly once (the user must copy it); it is the user's credential, not a session token.
 */
import { z } from 'zod'
import { readInput } from '../../utils/bff/input'
import { defineBffHandler, relay } from '../../utils/bff/respond'
import { callAuthedRoute } from '../../utils/bff/session'
import { privilegeSchema } from '../../utils/bff/token-input'

const bodySchema = z.object({
  privilege: privilegeSchema,
  name: z.string().trim().min(1, 'Give the token a name.').max(100),
  prefix: z.string().max(16).optional(),
  expires: z.number().int().positive().nullable().optional(),
  ipv4: z.array(z.string().max(64)).max(50).optional(),
})

export default defineBffHandler(async (event) => {
  const body = await readInput(event, bodySchema)
  const res = await callAuthedRoute(event, 'newToken', { body })
  return relay(event, res)
})
