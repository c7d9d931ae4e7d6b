/**
 * An organization's SCIM connection (features/enterprise/scim-tokens.ts, docs/scim.md): its
 * bearer token, created, rotated and revoked by owners (`owners:manage`), and the provisioning
 * log. The SCIM service itself (/scim/v2/**) is outside this table: its own protocol (RFC 7644),
 * its own error bodies, reached only with the `scim` purpose (iam/contract/scim-mount.ts).
 */
import { z } from 'zod'
import { defineRoutes, noBody } from './define'
import { errorFail, failure, FULL_AUTH, okData, responses, type Responses } from './responses'

const orgParams = z.object({ orgId: z.string({ error: 'Not an organization id' }).regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, 'Not an organization id') })
const connection = z.object({ hint: z.string(), createdAt: z.string(), rotatedAt: z.string().nullable(), lastUsedAt: z.string().nullable() })
const issued = okData(z.object({ token: z.string(), connection }))
const scimEvent = z.object({ id: z.number(), at: z.string(), action: z.string(), target: z.string().nullable(), details: z.record(z.string(), z.unknown()) })

const IN_ORG = {
  400: failure('Not an organization id, or the body failed validation', errorFail, 'validation_failed'),
  403: failure('The member\'s role does not allow it (owners only)', errorFail, 'org_permission_denied'),
  404: failure('No such organization, or the user is no member of it (the same answer)', errorFail, 'org_not_found'),
} satisfies Responses

/** A platform administrator acting on a person's behalf may not mint a credential of the organization. */
const GUARDS = ['not-impersonated'] as const

export const SCIM_ROUTES = defineRoutes({
  scimConnection: {
    method: 'GET',
    path: '/orgs/:orgId/scim',
    summary: 'The organization\'s SCIM connection (owners): the token\'s last characters and dates, or null',
    auth: 'full',
    limiters: [],
    request: noBody,
    params: orgParams,
    responses: responses({ 200: { description: 'the connection', body: okData(z.object({ connection: connection.nullable() })) } }, IN_ORG, FULL_AUTH),
  },
  scimTokenCreate: {
    method: 'POST',
    path: '/orgs/:orgId/scim/token',
    summary: 'Create the organization\'s SCIM token (owners); it is shown in this answer only',
    auth: 'full',
    guards: GUARDS,
    limiters: [],
    request: noBody,
    params: orgParams,
    responses: responses(
      { 201: { description: 'the token, shown once', body: issued }, 409: failure('The organization has a SCIM token already', errorFail, 'scim_token_exists') },
      IN_ORG,
      FULL_AUTH,
    ),
  },
  scimTokenRotate: {
    method: 'POST',
    path: '/orgs/:orgId/scim/token/rotate',
    summary: 'Replace the organization\'s SCIM token (owners): the old one stops at once; the new one is shown in this answer only',
    auth: 'full',
    guards: GUARDS,
    limiters: [],
    request: noBody,
    params: orgParams,
    responses: responses(
      { 200: { description: 'the new token, shown once', body: issued }, 404: failure('No such organization (or not a member), or it has no SCIM token', errorFail, 'org_not_found', 'scim_token_not_found') },
      IN_ORG,
      FULL_AUTH,
    ),
  },
  scimTokenRevoke: {
    method: 'POST',
    path: '/orgs/:orgId/scim/token/revoke',
    summary: 'Revoke the organization\'s SCIM token (owners): provisioning stops at once',
    auth: 'full',
    guards: GUARDS,
    limiters: [],
    request: noBody,
    params: orgParams,
    responses: responses(
      { 200: { description: 'revoked', body: okData(z.object({ revoked: z.literal(true) })) }, 404: failure('No such organization (or not a member), or it has no SCIM token', errorFail, 'org_not_found', 'scim_token_not_found') },
      IN_ORG,
      FULL_AUTH,
    ),
  },
  scimEvents: {
    method: 'GET',
    path: '/orgs/:orgId/scim/events',
    summary: 'The organization\'s provisioning log, newest first, at most 200 (owners)',
    auth: 'full',
    limiters: [],
    request: noBody,
    params: orgParams,
    responses: responses({ 200: { description: 'events', body: okData(z.object({ events: z.array(scimEvent) })) } }, IN_ORG, FULL_AUTH),
  },
})
