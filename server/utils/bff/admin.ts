/**
 * The admin console's BFF routes (server/api/admin/**): each is one call to an IAM /admin route,
 * whose guards decide who may (platform administrators, a recent sign-in); the BFF only checks the
 * input against the IAM route's own schemas first, so it refuses exactly what the IAM would.
 */
import { getQuery, type H3Event } from 'h3'
import type { z } from 'zod'
import { ROUTES } from '../../../iam/contract/routes'
import type { IamInput } from './iam-route'
import { rawBody } from './input'
import { bffFail } from './respond'

/** The 400 of a path whose user id the IAM's params schema would refuse. */
export const USER_ID_ERROR = 'This is not a user id.'

/** The 400 of a path whose mail kind or language the IAM's params schema would refuse. */
export const MAIL_TEMPLATE_ERROR = 'This is not a mail or language the service has.'

/** The 400 of a path whose webhook endpoint id (or delivery id) the IAM's params schema would refuse. */
export const WEBHOOK_ID_ERROR = 'This is not a webhook endpoint or delivery id.'

/** `?status=&limit=` of a webhook endpoint's delivery log (the platform's or an organization's), checked by the IAM route's query schema. */
export function readDeliveriesQuery<I extends 'adminWebhookDeliveries' | 'orgWebhookDeliveries'>(event: H3Event, id: I): IamInput<I, 'query'> {
  const sent = getQuery(event)
  const query: Record<string, string> = {}
  for (const key of ['status', 'limit'] as const) {
    const value = sent[key]
    if (typeof value === 'string' && value !== '') query[key] = value
  }
  if (!(ROUTES[id].query as z.ZodType).safeParse(query).success) bffFail(400, { ok: false, error: 'That filter is not valid. Reload the page and try again.', code: 'validation_failed' })
  return query as IamInput<I, 'query'>
}

/** `?hours=` of the sign-up statistics, checked by the IAM route's query schema. */
export function readSignupStatsQuery(event: H3Event): IamInput<'adminSignupStats', 'query'> {
  const hours = getQuery(event).hours
  const query: Record<string, string> = typeof hours === 'string' && hours !== '' ? { hours } : {}
  if (!(ROUTES.adminSignupStats.query as z.ZodType).safeParse(query).success) bffFail(400, { ok: false, error: 'That period is not valid. Choose one of the periods offered.', code: 'validation_failed' })
  return query as IamInput<'adminSignupStats', 'query'>
}

/** `?q=&limit=&cursor=` of a list (accounts or organizations), checked by the IAM route's query schema. */
export function readAdminPageQuery<I extends 'adminUsers' | 'adminOrgs'>(event: H3Event, id: I): IamInput<I, 'query'> {
  const sent = getQuery(event)
  const query: Record<string, string> = {}
  for (const key of ['q', 'limit', 'cursor'] as const) {
    const value = sent[key]
    if (typeof value === 'string' && value !== '') query[key] = value
  }
  if (!(ROUTES[id].query as z.ZodType).safeParse(query).success) bffFail(400, { ok: false, error: 'That search is not valid. Shorten it, or start again from the first page.', code: 'validation_failed' })
  return query as IamInput<I, 'query'>
}

/** A JSON body checked by the IAM route's own schema (a union the form helpers do not take). */
export async function readAdminBody<I extends 'adminUserFactorRemove' | 'adminUserBan'>(event: H3Event, id: I): Promise<IamInput<I, 'body'>> {
  const raw = await rawBody(event)
  if (!(ROUTES[id].body as z.ZodType).safeParse(raw).success) bffFail(400, { ok: false, error: 'That request is not valid. Reload the page and try again.', code: 'validation_failed' })
  return raw as IamInput<I, 'body'>
}
