/**
 * Input of the account-security routes (DESIGN 7), validated with the schemas of their route-table
 * entries (iam/contract/account-security.ts): full authentication first, so a request without a
 * session learns nothing about the body rules; then XSS in free text (secrets excluded: they are
 * never rendered), then the schema, 400 with `fields` on failure.
 */
import { getQuery, type H3Event } from 'h3'
import type { z } from 'zod'
import { useIam, type IamContext } from '../context'
import type { Actor } from '../features/account-actions/outcomes'
import { authFail, fullAuthentication, rejectXss, validationFields, type RequestUser } from './auth'
import { actorOf } from './link-submission'
import { getJsonBody } from './request'

export interface AccountRequest {
  ctx: IamContext
  user: RequestUser
  actor: Actor
}

/** Full authentication and the actor recorded with the action. */
export async function authenticateAccount(event: H3Event): Promise<AccountRequest> {
  const user = await fullAuthentication(event)
  return { ctx: useIam(), user, actor: actorOf(event, user.visitorRowId) }
}

function parsed<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value)
  if (!result.success) return authFail(400, 'Validation failed', { fields: validationFields(result.error) })
  return result.data
}

/** The JSON body checked against `schema`; `secretFields` are left out of the XSS check. */
export async function readAccountBody<S extends z.ZodType>(event: H3Event, schema: S, secretFields: readonly string[] = []): Promise<z.infer<S>> {
  const raw = getJsonBody<Record<string, unknown>>(event) ?? {}
  await rejectXss(event, Object.fromEntries(Object.entries(raw).filter(([key]) => !secretFields.includes(key))))
  return parsed(schema, raw)
}

/** The query string checked against `schema`. */
export function readAccountQuery<S extends z.ZodType>(event: H3Event, schema: S): z.infer<S> {
  return parsed(schema, getQuery(event))
}
