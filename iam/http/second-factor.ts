/** Shared front half of the TOTP account routes: full authentication and the actor of the change. */
import type { H3Event } from 'h3'
import type { z } from 'zod'
import { useIam, type IamContext } from '../context'
import { authFail, fullAuthentication, validationFields, type RequestUser } from './auth'
import { getClientIp, getJsonBody } from './request'

export interface FactorRequest<T> {
  ctx: IamContext
  user: RequestUser
  data: T
  actor: { visitorRowId: number; ipAddress: string }
}

/** Full authentication, then the body against the route table's schema (400 with fields). */
export async function readFactorRequest<S extends z.ZodType>(event: H3Event, bodySchema: S): Promise<FactorRequest<z.infer<S>>> {
  const user = await fullAuthentication(event)
  const parsed = bodySchema.safeParse(getJsonBody<Record<string, unknown>>(event))
  if (!parsed.success) return authFail(400, 'Validation failed', { fields: validationFields(parsed.error) })
  return { ctx: useIam(), user, data: parsed.data, actor: { visitorRowId: user.visitorRowId, ipAddress: getClientIp(event) } }
}

export const INVALID_FACTOR_CODE = 'Invalid code'
