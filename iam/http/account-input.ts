/**
 * Input of the account-security routes, read with their route-table entries'
 * schemas (readRouteInput): full authentication first, so a request without a session learns
 * nothing about the body rules; then XSS in free text (secrets excluded: they are never
 * rendered), then the schema (400 with `fields`).
 */
import type { H3Event } from 'h3'
import type { RouteContract } from '../contract/define'
import { useIam, type IamContext } from '../context'
import type { Actor } from '../features/account-actions/outcomes'
import { fullAuthentication, rejectXss, type RequestUser } from './auth'
import { actorOf } from './link-submission'
import { getJsonBody } from './request'
import { readRouteInput, type RouteInput } from './route-input'

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

/** The JSON body checked against `route`'s schema; `secretFields` are left out of the XSS check. */
export async function readAccountBody<R extends RouteContract>(event: H3Event, route: R, secretFields: readonly string[] = []): Promise<RouteInput<R, 'body'>> {
  const raw = getJsonBody<Record<string, unknown>>(event) ?? {}
  await rejectXss(event, Object.fromEntries(Object.entries(raw).filter(([key]) => !secretFields.includes(key))))
  return readRouteInput(event, route, 'body')
}
