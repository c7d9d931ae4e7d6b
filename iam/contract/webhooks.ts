/**
 * Signed webhooks (features/webhooks, docs/webhooks.md): the event catalogue receivers rely on, and
 * the routes that manage endpoints, read the delivery log and replay deliveries: the platform's
 * under /admin/webhooks (full authentication, `platform-admin` and `recent-sign-in`,
 * contract/admin.ts), and an organization's under /orgs/:orgId/webhooks (full authentication, its
 * owners; the same bodies and answers). Each reaches only its own endpoints.
 */
import { z } from 'zod'
import { ADMIN, ADMIN_GUARDS } from './admin'
import { defineRoutes, json, noBody } from './define'
import { errorFail, failure, FULL_AUTH, JSON_BODY_FIELDS, LIMITED, okData, responses, type Responses } from './responses'
import { safeString } from './text'
import { orgParams } from './organizations'
import { isOrganizationWebhookPattern, isWebhookPattern } from './webhook-events'

export { isWebhookPattern, WEBHOOK_CATALOGUE_VERSION, WEBHOOK_EVENT_FAMILIES, WEBHOOK_EVENT_TYPES, type WebhookEventType } from './webhook-events'

/** The longest endpoint URL and description (the columns' checks repeat them: migration 0016). */
export const WEBHOOK_URL_MAX = 2048
export const WEBHOOK_DESCRIPTION_MAX = 500

const endpointId = z.string({ error: 'Not a webhook endpoint id' }).regex(/^ep_[A-Za-z0-9_-]{22}$/, 'Not a webhook endpoint id')
const endpointParams = z.object({ endpointId })
const deliveryParams = z.object({
  endpointId,
  deliveryId: z.coerce.number({ error: 'Not a delivery id' }).int('Not a delivery id').positive('Not a delivery id').max(2 ** 31 - 1, 'Not a delivery id'),
})

const eventTypes = z
  .array(z.string().refine(isWebhookPattern, 'Not an event type of the catalogue (docs/webhooks.md), `family.*` or `*`'), { error: 'eventTypes: a list of event types' })
  .min(1, 'eventTypes: at least one event type')
  .max(50, 'eventTypes: at most 50')
const url = safeString({ error: 'url: an https URL' }).trim().min(1, 'url: an https URL').max(WEBHOOK_URL_MAX, `url: at most ${WEBHOOK_URL_MAX} characters`)
const description = safeString({ error: 'description: text' }).trim().max(WEBHOOK_DESCRIPTION_MAX, `description: at most ${WEBHOOK_DESCRIPTION_MAX} characters`)

const endpointBody = z.strictObject({
  url,
  eventTypes,
  description: description.optional(),
  enabled: z.boolean({ error: 'enabled: true or false' }).optional(),
})

/** An organization's endpoint hears only the events about it (migration 0030): it subscribes to those alone. */
const organizationEventTypes = z
  .array(z.string().refine(isOrganizationWebhookPattern, 'Not an organization event type: organization.*, membership.*, invitation.*, one of their types, or *'), {
    error: 'eventTypes: a list of event types',
  })
  .min(1, 'eventTypes: at least one event type')
  .max(50, 'eventTypes: at most 50')
const organizationEndpointBody = endpointBody.extend({ eventTypes: organizationEventTypes })

const endpointView = z.object({
  id: z.string(),
  url: z.string(),
  description: z.string(),
  eventTypes: z.array(z.string()),
  enabled: z.boolean(),
  disabledReason: z.enum(['gone', 'failing', 'admin']).nullable().describe('why it is off: the receiver answered 410, it kept failing, or an administrator; null while enabled'),
  previousSecretUntil: z.string().nullable().describe('after a rotation: until when the previous secret still signs beside the new one; null when it does not'),
  createdAt: z.string(),
  updatedAt: z.string(),
  stats: z.object({
    attempts24h: z.number().int(),
    succeeded24h: z.number().int(),
    successRate24h: z.number().nullable().describe('succeeded / attempts over the last 24 hours; null without attempts'),
    pending: z.number().int(),
    dead: z.number().int(),
  }),
})

const attemptView = z.object({
  at: z.string(),
  status: z.number().int().nullable().describe('the HTTP status; null when no answer came (`error` says why)'),
  durationMs: z.number().int(),
  error: z
    .string()
    .nullable()
    .describe(
      'why the attempt got no answer or failed, a code: address_refused, unresolvable, timeout, too_large, network, invalid_url, scheme_refused, credentials_in_url (shared/outbound.ts), secret_unreadable, redirect_not_followed; null when a usable answer came',
    ),
  responseExcerpt: z.string().nullable().describe('the first 1,000 characters of the answer'),
})
const deliveryView = z.object({
  id: z.number().int(),
  msgId: z.string().describe('the `webhook-id` header, the same on every attempt'),
  eventType: z.string(),
  status: z.enum(['pending', 'delivered', 'dead']),
  attempts: z.number().int(),
  nextAttemptAt: z.string().nullable(),
  deliveredAt: z.string().nullable(),
  createdAt: z.string(),
  payload: z.record(z.string(), z.unknown()),
  log: z.array(attemptView),
})

const NOT_FOUND = {
  400: failure('Not a webhook endpoint id (`fields.endpointId`)', errorFail, 'validation_failed'),
  404: failure('No such webhook endpoint', errorFail, 'webhook_not_found'),
}
const REFUSED_URL = {
  400: failure(
    'Validation failed (`fields`), or a URL deliveries may not go to (`webhook_url_refused`: not https, credentials in it, or a name or address in a refused range)',
    errorFail,
    'validation_failed',
    'webhook_url_refused',
  ),
}

const ADMIN_ROUTE = { auth: 'full', guards: ADMIN_GUARDS, limiters: [] } as const

const LISTED = { 200: { description: 'the endpoints', body: okData(z.object({ endpoints: z.array(endpointView), catalogueVersion: z.string() })) } }
const WITH_SECRET = (description: string) => ({ 200: { description, body: okData(z.object({ endpoint: endpointView, secret: z.string() })) } })
const ONE = { 200: { description: 'the endpoint', body: okData(z.object({ endpoint: endpointView })) } }
const DELETED = { 200: { description: 'removed', body: okData(z.object({ deleted: z.literal(true) })) } }
const QUEUED = { 200: { description: 'queued', body: okData(z.object({ deliveryId: z.number().int(), msgId: z.string() })) } }
const DELIVERIES = { 200: { description: 'the deliveries', body: okData(z.object({ deliveries: z.array(deliveryView) })) } }
const REPLAYED_ONE = {
  200: { description: 'queued again', body: okData(z.object({ replayed: z.literal(1) })) },
  404: failure('No such delivery of this endpoint', errorFail, 'delivery_not_found'),
  400: failure('Not a delivery id (`fields`)', errorFail, 'validation_failed'),
} satisfies Responses
const REPLAYED = { 200: { description: 'how many were queued again', body: okData(z.object({ replayed: z.number().int() })) } }

const deliveriesQuery = z.strictObject({
  status: z.enum(['pending', 'delivered', 'dead'], { error: 'status: pending, delivered or dead' }).optional(),
  limit: z.coerce.number({ error: 'limit: 1 to 100' }).int('limit: 1 to 100').min(1, 'limit: 1 to 100').max(100, 'limit: 1 to 100').default(50),
})
/**
 * A moment of a replay range: ISO 8601 with an offset, from 1970 to the end of 9999 once read.
 * PostgreSQL stores no year 0, and an offset can carry 9999-12-31 into year 10000: both would fail
 * the statement instead of the request.
 */
const RANGE_START = Date.parse('1970-01-01T00:00:00Z')
const RANGE_END = Date.parse('9999-12-31T23:59:59.999Z')
const rangeMoment = (name: string) =>
  z.iso
    .datetime({ error: `${name}: an ISO 8601 date and time`, offset: true })
    .refine((value) => Date.parse(value) >= RANGE_START && Date.parse(value) <= RANGE_END, `${name}: a date and time from 1970 to 9999`)
const replayBody = z
  .strictObject({
    since: rangeMoment('since'),
    until: rangeMoment('until').optional(),
    delivered: z.boolean({ error: 'delivered: true or false' }).optional(),
  })
  .refine((b) => !b.until || Date.parse(b.until) > Date.parse(b.since), { message: 'until: after since', path: ['until'] })

const orgEndpointParams = orgParams.extend({ endpointId })
const orgDeliveryParams = deliveryParams.extend({ orgId: orgParams.shape.orgId })

/** The organization routes' own failures: not a member (or no such organization, the same answer), not an owner. */
const IN_ORG = responses(
  {
    400: failure('Not an organization id, or the body failed validation (`fields`)', errorFail, 'validation_failed'),
    403: failure('The member\'s role does not allow it (owners only)', errorFail, 'org_permission_denied'),
    404: failure('No such organization, or the user is no member of it (the same answer)', errorFail, 'org_not_found'),
  },
  FULL_AUTH,
)
/** Reads need only an owner; a change, a secret or a send is refused to a session a platform administrator opened for the owner. */
const ORG_READ = { auth: 'full', limiters: [] } as const
const ORG_WRITE = { auth: 'full', guards: ['not-impersonated'], limiters: [] } as const
/** A change that resolves a URL or queues deliveries: counted per user (rate_limiters.organizationWebhooks) */
const ORG_COUNTED = { auth: 'full', guards: ['not-impersonated'], limiters: ['organizationWebhooks'] } as const

export const WEBHOOK_ROUTES = defineRoutes({
  adminWebhooks: {
    ...ADMIN_ROUTE,
    method: 'GET',
    path: '/admin/webhooks',
    summary: 'Every webhook endpoint, oldest first, with its success rate',
    request: noBody,
    responses: responses(LISTED, ADMIN),
  },
  adminWebhookCreate: {
    ...ADMIN_ROUTE,
    method: 'POST',
    path: '/admin/webhooks',
    summary: 'Add an endpoint: its signing secret (`whsec_…`) is in this answer only',
    request: json(),
    body: endpointBody,
    responses: responses(WITH_SECRET('the endpoint and its secret'), REFUSED_URL, JSON_BODY_FIELDS, ADMIN),
  },
  adminWebhook: {
    ...ADMIN_ROUTE,
    method: 'GET',
    path: '/admin/webhooks/:endpointId',
    summary: 'One endpoint with its success rate',
    request: noBody,
    params: endpointParams,
    responses: responses(ONE, NOT_FOUND, ADMIN),
  },
  adminWebhookUpdate: {
    ...ADMIN_ROUTE,
    method: 'PUT',
    path: '/admin/webhooks/:endpointId',
    summary: 'Replace the URL, event types, description; `enabled: true` switches a disabled endpoint on again',
    request: json(),
    params: endpointParams,
    body: endpointBody,
    responses: responses(ONE, REFUSED_URL, NOT_FOUND, JSON_BODY_FIELDS, ADMIN),
  },
  adminWebhookDelete: {
    ...ADMIN_ROUTE,
    method: 'DELETE',
    path: '/admin/webhooks/:endpointId',
    summary: 'Remove an endpoint with its deliveries and their log',
    request: noBody,
    params: endpointParams,
    responses: responses(DELETED, NOT_FOUND, ADMIN),
  },
  adminWebhookRotateSecret: {
    ...ADMIN_ROUTE,
    method: 'POST',
    path: '/admin/webhooks/:endpointId/rotate-secret',
    summary: 'A new signing secret (in this answer only); the previous one keeps signing beside it for webhooks.secretOverlapMs',
    request: noBody,
    params: endpointParams,
    responses: responses(WITH_SECRET('the new secret'), NOT_FOUND, ADMIN),
  },
  adminWebhookTest: {
    ...ADMIN_ROUTE,
    method: 'POST',
    path: '/admin/webhooks/:endpointId/test',
    summary: 'Queue a `webhook.test` event for this endpoint alone (sent even when it is disabled or subscribes to other types)',
    request: noBody,
    params: endpointParams,
    responses: responses(QUEUED, NOT_FOUND, ADMIN),
  },
  adminWebhookDeliveries: {
    ...ADMIN_ROUTE,
    method: 'GET',
    path: '/admin/webhooks/:endpointId/deliveries',
    summary: 'The delivery log, newest first: each delivery with every attempt (status, duration, an excerpt of the answer)',
    request: noBody,
    params: endpointParams,
    query: deliveriesQuery,
    responses: responses(DELIVERIES, NOT_FOUND, ADMIN),
  },
  adminWebhookReplayOne: {
    ...ADMIN_ROUTE,
    method: 'POST',
    path: '/admin/webhooks/:endpointId/deliveries/:deliveryId/replay',
    summary: 'Send one delivery again, at once, with its schedule started over (same `webhook-id`)',
    request: noBody,
    params: deliveryParams,
    responses: responses(REPLAYED_ONE, NOT_FOUND, ADMIN),
  },
  adminWebhookReplay: {
    ...ADMIN_ROUTE,
    method: 'POST',
    path: '/admin/webhooks/:endpointId/replay',
    summary: 'Send again every delivery made in [`since`, `until`) that ended dead (and, with `delivered: true`, those delivered too)',
    request: json(),
    params: endpointParams,
    body: replayBody,
    responses: responses(REPLAYED, NOT_FOUND, JSON_BODY_FIELDS, ADMIN),
  },
  orgWebhooks: {
    ...ORG_READ,
    method: 'GET',
    path: '/orgs/:orgId/webhooks',
    summary: 'The organization\'s webhook endpoints (owners), oldest first, with their success rates',
    request: noBody,
    params: orgParams,
    responses: responses(LISTED, IN_ORG),
  },
  orgWebhookCreate: {
    ...ORG_COUNTED,
    method: 'POST',
    path: '/orgs/:orgId/webhooks',
    summary: 'Add an endpoint of the organization (owners): it hears the organization\'s own events; its signing secret is in this answer only',
    request: json(),
    params: orgParams,
    body: organizationEndpointBody,
    responses: responses(WITH_SECRET('the endpoint and its secret'), REFUSED_URL, JSON_BODY_FIELDS, IN_ORG, LIMITED),
  },
  orgWebhook: {
    ...ORG_READ,
    method: 'GET',
    path: '/orgs/:orgId/webhooks/:endpointId',
    summary: 'One endpoint of the organization (owners) with its success rate',
    request: noBody,
    params: orgEndpointParams,
    responses: responses(ONE, NOT_FOUND, IN_ORG),
  },
  orgWebhookUpdate: {
    ...ORG_COUNTED,
    method: 'PUT',
    path: '/orgs/:orgId/webhooks/:endpointId',
    summary: 'Replace an organization endpoint\'s URL, event types, description (owners); `enabled: true` switches it on again',
    request: json(),
    params: orgEndpointParams,
    body: organizationEndpointBody,
    responses: responses(ONE, REFUSED_URL, NOT_FOUND, JSON_BODY_FIELDS, IN_ORG, LIMITED),
  },
  orgWebhookDelete: {
    ...ORG_WRITE,
    method: 'DELETE',
    path: '/orgs/:orgId/webhooks/:endpointId',
    summary: 'Remove an organization endpoint (owners) with its deliveries and their log',
    request: noBody,
    params: orgEndpointParams,
    responses: responses(DELETED, NOT_FOUND, IN_ORG),
  },
  orgWebhookRotateSecret: {
    ...ORG_COUNTED,
    method: 'POST',
    path: '/orgs/:orgId/webhooks/:endpointId/rotate-secret',
    summary: 'A new signing secret for an organization endpoint (owners; in this answer only); the previous one signs beside it for webhooks.secretOverlapMs',
    request: noBody,
    params: orgEndpointParams,
    responses: responses(WITH_SECRET('the new secret'), NOT_FOUND, IN_ORG, LIMITED),
  },
  orgWebhookTest: {
    ...ORG_COUNTED,
    method: 'POST',
    path: '/orgs/:orgId/webhooks/:endpointId/test',
    summary: 'Queue a `webhook.test` event for this organization endpoint alone (owners)',
    request: noBody,
    params: orgEndpointParams,
    responses: responses(QUEUED, NOT_FOUND, IN_ORG, LIMITED),
  },
  orgWebhookDeliveries: {
    ...ORG_READ,
    method: 'GET',
    path: '/orgs/:orgId/webhooks/:endpointId/deliveries',
    summary: 'An organization endpoint\'s delivery log (owners), newest first, each delivery with every attempt',
    request: noBody,
    params: orgEndpointParams,
    query: deliveriesQuery,
    responses: responses(DELIVERIES, NOT_FOUND, IN_ORG),
  },
  orgWebhookReplayOne: {
    ...ORG_COUNTED,
    method: 'POST',
    path: '/orgs/:orgId/webhooks/:endpointId/deliveries/:deliveryId/replay',
    summary: 'Send one delivery of an organization endpoint again (owners), at once, its schedule started over',
    request: noBody,
    params: orgDeliveryParams,
    responses: responses(REPLAYED_ONE, NOT_FOUND, IN_ORG, LIMITED),
  },
  orgWebhookReplay: {
    ...ORG_COUNTED,
    method: 'POST',
    path: '/orgs/:orgId/webhooks/:endpointId/replay',
    summary: 'Send again every dead delivery of an organization endpoint made in [`since`, `until`) (owners; with `delivered: true`, the delivered ones too)',
    request: json(),
    params: orgEndpointParams,
    body: replayBody,
    responses: responses(REPLAYED, NOT_FOUND, JSON_BODY_FIELDS, IN_ORG, LIMITED),
  },
})
