/**
 * Organizations (features/organizations, docs/organizations.md): an organization, its members and
 * their roles, invitations by mail, custom roles, and the organization a session acts for. Every
 * route needs full authentication. A route naming an organization answers 404 `No such
 * organization` alike for an id that does not exist and for one the user is no member of; a member
 * whose role lacks the permission gets 403.
 */
import { z } from 'zod'
import { defineRoutes, json, noBody } from './define'
import { PERMISSION_SHAPE, SLUG_SHAPE } from './org-permissions'
import { errorFail, failure, FULL_AUTH, JSON_BODY_FIELDS, LIMITED, okData, REAUTH, responses, tokensBody, VERIFIED_EMAIL, XSS, type Responses } from './responses'

const uuid = (message: string) => z.string({ error: message }).regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, message)
/** `:orgId`, the organization's public id: every route under /orgs/:orgId (contract/webhooks.ts too) */
export const orgParams = z.object({ orgId: uuid('Not an organization id') })
/** a built-in role, or a custom role's id */
const roleInput = z.union([z.enum(['owner', 'admin', 'member']), uuid('Not a role')], { error: 'Not a role' })
const permissionString = z.string().regex(PERMISSION_SHAPE, 'A permission is `resource:action`')
/** the token of an invitation link: 32 random bytes, base64url (features/organizations/invitations.ts) */
export const invitationToken = z.string({ error: 'The invitation token is required' }).regex(/^[A-Za-z0-9_-]{43}$/, 'Not an invitation token')
const customRoleName = z
  .string({ error: 'The name is required' })
  .trim()
  .min(1, 'The name is required')
  .max(50, 'At most 50 characters')
  .refine((name) => !['owner', 'admin', 'member'].includes(name.toLowerCase()), 'That name is a built-in role')
const customRolePermissions = z.array(permissionString, { error: 'A list of permissions' }).max(50, 'At most 50 permissions')

const org = z.object({
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  createdAt: z.string(),
  role: z.string(),
  roleName: z.string(),
  permissions: z.array(z.string()),
})
const member = z.object({
  userId: z.string(),
  email: z.string(),
  name: z.string(),
  role: z.string(),
  roleName: z.string(),
  since: z.string(),
  deactivatedAt: z.string().nullable().describe('when the organization\'s identity provider deactivated the member (SCIM `active: false` or DELETE, docs/scim.md); null while active'),
})
const invitation = z.object({
  id: z.string(),
  email: z.string(),
  role: z.string(),
  roleName: z.string(),
  createdAt: z.string(),
  expiresAt: z.string(),
  status: z.enum(['pending', 'accepted', 'revoked', 'expired']),
})
const role = z.object({ id: z.string(), name: z.string(), permissions: z.array(z.string()), createdAt: z.string() })
const listedOrg = z.object({ id: z.string(), slug: z.string(), name: z.string(), role: z.string(), roleName: z.string() })
const orgClaim = z.object({ id: z.string(), slug: z.string(), role: z.string(), permissions: z.array(z.string()) })

/** Every route naming an organization: malformed id, not a member (or no such organization), not allowed. */
/**
 * Every organization write: a platform administrator signed in on a person's behalf may look, not
 * change who belongs or what they may do (an invitation of one's own address as owner would outlive
 * the impersonation's 15 minutes).
 */
const ORG_WRITE_GUARDS = ['not-impersonated'] as const

const IN_ORG = {
  400: failure('Not an organization id, or the body failed validation', errorFail, 'validation_failed'),
  403: failure('The member\'s role does not allow it', errorFail, 'org_permission_denied'),
  404: failure('No such organization, or the user is no member of it (the same answer)', errorFail, 'org_not_found'),
} satisfies Responses

const JSON_IN_ORG = <const O extends Responses, const M extends readonly Responses[]>(own: O, ...more: M) => responses(own, IN_ORG, JSON_BODY_FIELDS, XSS, FULL_AUTH, ...more)

export const ORGANIZATION_ROUTES = defineRoutes({
  orgCreate: {
    method: 'POST',
    path: '/orgs',
    summary: 'Create an organization; the signed-in user becomes its owner',
    auth: 'full',
    guards: ORG_WRITE_GUARDS,
    limiters: [],
    request: json(),
    body: z.strictObject({
      name: z.string({ error: 'The name is required' }).trim().min(1, 'The name is required').max(100, 'At most 100 characters'),
      slug: z
        .string({ error: 'The slug is required' })
        .regex(SLUG_SHAPE, '3 to 40 lower-case letters, digits and hyphens, not starting or ending with one'),
    }),
    responses: responses(
      { 201: { description: 'created', body: okData(z.object({ org })) }, 400: failure('Validation failed', errorFail, 'validation_failed'), 409: failure('The slug is taken', errorFail, 'slug_taken') },
      JSON_BODY_FIELDS,
      XSS,
      FULL_AUTH,
    ),
  },
  orgList: {
    method: 'GET',
    path: '/orgs',
    summary: 'The organizations the signed-in user is a member of, with their role in each',
    auth: 'full',
    limiters: [],
    request: noBody,
    responses: responses(
      { 200: { description: 'memberships', body: okData(z.object({ orgs: z.array(listedOrg) })) } },
      FULL_AUTH,
    ),
  },
  orgActive: {
    method: 'POST',
    path: '/orgs/active',
    summary: 'Set (or clear, `orgId: null`) the organization the session acts for; answers a new token pair whose access token carries `org`',
    auth: 'full',
    limiters: [],
    request: json(),
    body: z.strictObject({ orgId: z.union([uuid('Not an organization id'), z.null()], { error: 'Not an organization id' }) }),
    responses: responses(
      {
        200: { description: 'the session acts for the organization; new tokens (the refresh token in the session cookie)', body: tokensBody.extend({ org: orgClaim.nullable() }) },
        400: failure('Validation failed', errorFail, 'validation_failed'),
        401: failure('The session is gone: re-login is required', errorFail, 'relogin_required'),
        404: failure('No such organization, or the user is no member of it (the same answer)', errorFail, 'org_not_found'),
      },
      JSON_BODY_FIELDS,
      FULL_AUTH,
    ),
  },
  orgAcceptInvitation: {
    method: 'POST',
    path: '/orgs/invitations/accept',
    summary: 'Accept an invitation (the token of the mailed link) as the signed-in account whose confirmed address was invited',
    auth: 'full',
    guards: ['not-impersonated', 'verified-email'],
    limiters: [],
    request: json(),
    body: z.strictObject({ token: invitationToken }),
    responses: responses(
      {
        200: { description: 'a member now', body: okData(z.object({ org: z.object({ id: z.string(), slug: z.string(), name: z.string(), role: z.string() }) })) },
        400: failure('Validation failed', errorFail, 'validation_failed'),
        403: failure('The invitation was sent to another address, or the account address was never confirmed (`verifyEmail: true`)', errorFail, 'invitation_other_address', 'email_unverified'),
        404: failure('No such invitation', errorFail, 'invitation_not_found'),
        410: failure('The invitation was used, revoked, or has expired', errorFail, 'invitation_used'),
      },
      JSON_BODY_FIELDS,
      FULL_AUTH,
      VERIFIED_EMAIL,
    ),
  },
  orgInvitationPreview: {
    method: 'GET',
    path: '/orgs/invitations/preview',
    summary: 'What an invitation link is for, before signing in: the organization, who invited, the invited address (masked for the page, in full for the sign-up form), until when (pending invitations only)',
    auth: 'none',
    limiters: ['links'],
    request: noBody,
    query: z.object({ token: invitationToken }),
    responses: responses(
      {
        200: {
          description: 'a pending invitation',
          body: okData(
            z.object({
              // `email` masked for the page's sentence; `invitedEmail` in full, to prefill the sign-up form (the holder of the token read it in the mail)
              invitation: z.object({ orgName: z.string(), inviterName: z.string(), email: z.string(), invitedEmail: z.string(), expiresAt: z.string() }),
            }),
          ),
        },
        400: failure('Not an invitation token', errorFail, 'validation_failed'),
        404: failure('No such invitation', errorFail, 'invitation_not_found'),
        410: failure('The invitation was used, revoked, or has expired', errorFail, 'invitation_used'),
      },
      LIMITED,
    ),
  },
  orgGet: {
    method: 'GET',
    path: '/orgs/:orgId',
    summary: 'One organization, with the member\'s role and permissions in it',
    auth: 'full',
    limiters: [],
    request: noBody,
    params: orgParams,
    responses: responses({ 200: { description: 'the organization', body: okData(z.object({ org })) } }, IN_ORG, FULL_AUTH),
  },
  orgMembers: {
    method: 'GET',
    path: '/orgs/:orgId/members',
    summary: 'The members of an organization (members:read)',
    auth: 'full',
    limiters: [],
    request: noBody,
    params: orgParams,
    responses: responses({ 200: { description: 'members, oldest first', body: okData(z.object({ members: z.array(member) })) } }, IN_ORG, FULL_AUTH),
  },
  orgMemberRole: {
    method: 'POST',
    path: '/orgs/:orgId/members/role',
    summary: 'Give a member another role (members:manage; an owner\'s role, or the owner role, only by owners; never the last owner)',
    auth: 'full',
    guards: ORG_WRITE_GUARDS,
    limiters: [],
    request: json(),
    params: orgParams,
    body: z.strictObject({ userId: uuid('Not a member id'), role: roleInput }),
    responses: JSON_IN_ORG({
      200: { description: 'the member\'s new role', body: okData(z.object({ member: z.object({ userId: z.string(), role: z.string(), roleName: z.string() }) })) },
      400: failure('No such role in the organization', errorFail, 'role_not_found'),
      404: failure('No such member', errorFail, 'member_not_found'),
      409: failure('The last owner who can act keeps the owner role (owners suspended or waiting for their deletion do not count): make another member an owner first', errorFail, 'last_owner'),
    }),
  },
  orgMemberRemove: {
    method: 'POST',
    path: '/orgs/:orgId/members/remove',
    summary: 'Remove a member (members:manage; an owner only by owners; never the last owner)',
    auth: 'full',
    guards: ORG_WRITE_GUARDS,
    limiters: [],
    request: json(),
    params: orgParams,
    body: z.strictObject({ userId: uuid('Not a member id') }),
    responses: JSON_IN_ORG({
      200: { description: 'removed', body: okData(z.object({ removed: z.literal(true) })) },
      400: failure('No such role in the organization', errorFail, 'role_not_found'),
      404: failure('No such member', errorFail, 'member_not_found'),
      409: failure('The last owner who can act cannot be removed (owners suspended or waiting for their deletion do not count): make another member an owner first', errorFail, 'last_owner'),
    }),
  },
  orgLeave: {
    method: 'POST',
    path: '/orgs/:orgId/leave',
    summary: 'Leave the organization (not as its last owner)',
    auth: 'full',
    guards: ORG_WRITE_GUARDS,
    limiters: [],
    request: noBody,
    params: orgParams,
    responses: responses(
      { 200: { description: 'left', body: okData(z.object({ left: z.literal(true) })) }, 409: failure('The last owner who can act cannot leave: make another member an owner first, or delete the organization', errorFail, 'last_owner') },
      IN_ORG,
      FULL_AUTH,
    ),
  },
  orgDelete: {
    method: 'POST',
    path: '/orgs/:orgId/delete',
    summary: 'Delete the organization with its memberships, roles and invitations (owners; a recent sign-in)',
    auth: 'full',
    guards: ['recent-sign-in'],
    limiters: [],
    request: noBody,
    params: orgParams,
    responses: responses({ 200: { description: 'deleted', body: okData(z.object({ deleted: z.literal(true) })) } }, IN_ORG, FULL_AUTH, REAUTH),
  },
  orgInvite: {
    method: 'POST',
    path: '/orgs/:orgId/invitations',
    summary: 'Invite an address with a role (invitations:manage); the link is mailed, works once, for 7 days',
    auth: 'full',
    guards: ORG_WRITE_GUARDS,
    limiters: ['emails'],
    request: json(),
    params: orgParams,
    body: z.strictObject({
      email: z.email({ error: 'Not an email address' }).max(254, 'Not an email address'),
      role: roleInput,
    }),
    responses: JSON_IN_ORG(
      {
        201: { description: 'invited and mailed', body: okData(z.object({ invitation })) },
        400: failure('No such role in the organization', errorFail, 'role_not_found'),
        409: failure('The address is a member already', errorFail, 'already_member'),
        500: failure('The invitation mail could not be sent', errorFail, 'mail_failed'),
      },
      LIMITED,
    ),
  },
  orgInvitations: {
    method: 'GET',
    path: '/orgs/:orgId/invitations',
    summary: 'The organization\'s invitations, newest first (invitations:read)',
    auth: 'full',
    limiters: [],
    request: noBody,
    params: orgParams,
    responses: responses({ 200: { description: 'invitations', body: okData(z.object({ invitations: z.array(invitation) })) } }, IN_ORG, FULL_AUTH),
  },
  orgInvitationRevoke: {
    method: 'POST',
    path: '/orgs/:orgId/invitations/revoke',
    summary: 'Revoke a pending invitation (invitations:manage)',
    auth: 'full',
    guards: ORG_WRITE_GUARDS,
    limiters: [],
    request: json(),
    params: orgParams,
    body: z.strictObject({ invitationId: uuid('Not an invitation id') }),
    responses: JSON_IN_ORG({
      200: { description: 'revoked', body: okData(z.object({ revoked: z.literal(true) })) },
      404: failure('No such pending invitation', errorFail, 'invitation_not_found'),
    }),
  },
  orgInvitationResend: {
    method: 'POST',
    path: '/orgs/:orgId/invitations/resend',
    summary: 'Mail a pending invitation again with a new link and 7 more days (invitations:manage); the old link stops working',
    auth: 'full',
    guards: ORG_WRITE_GUARDS,
    limiters: ['emails'],
    request: json(),
    params: orgParams,
    body: z.strictObject({ invitationId: uuid('Not an invitation id') }),
    responses: JSON_IN_ORG(
      {
        200: { description: 'mailed again', body: okData(z.object({ resent: z.literal(true), expiresAt: z.string() })) },
        404: failure('No such pending invitation', errorFail, 'invitation_not_found'),
        500: failure('The invitation mail could not be sent', errorFail, 'mail_failed'),
      },
      LIMITED,
    ),
  },
  orgRoles: {
    method: 'GET',
    path: '/orgs/:orgId/roles',
    summary: 'The organization\'s custom roles (roles:read)',
    auth: 'full',
    limiters: [],
    request: noBody,
    params: orgParams,
    responses: responses({ 200: { description: 'custom roles', body: okData(z.object({ roles: z.array(role) })) } }, IN_ORG, FULL_AUTH),
  },
  orgRoleCreate: {
    method: 'POST',
    path: '/orgs/:orgId/roles',
    summary: 'Create a custom role (roles:manage): a name and permission strings `resource:action`, none beyond what the creator may hand out',
    auth: 'full',
    guards: ORG_WRITE_GUARDS,
    limiters: [],
    request: json(),
    params: orgParams,
    body: z.strictObject({ name: customRoleName, permissions: customRolePermissions }),
    responses: JSON_IN_ORG({
      201: { description: 'created', body: okData(z.object({ role })) },
      400: failure('A permission only owners hold', errorFail, 'owner_only_permission'),
      409: failure('The organization has a role of that name', errorFail, 'role_name_taken'),
    }),
  },
  orgRoleUpdate: {
    method: 'POST',
    path: '/orgs/:orgId/roles/update',
    summary: 'Rename a custom role and replace its permissions (roles:manage): the editor must be able to hand out the role both as it was and as it becomes; its holders\' next access tokens carry the change',
    auth: 'full',
    guards: ORG_WRITE_GUARDS,
    limiters: [],
    request: json(),
    params: orgParams,
    body: z.strictObject({ roleId: uuid('Not a role'), name: customRoleName, permissions: customRolePermissions }),
    responses: JSON_IN_ORG({
      200: { description: 'updated', body: okData(z.object({ role })) },
      400: failure('A permission only owners hold', errorFail, 'owner_only_permission'),
      404: failure('No such role', errorFail, 'role_not_found'),
      409: failure('The organization has another role of that name', errorFail, 'role_name_taken'),
    }),
  },
  orgRoleDelete: {
    method: 'POST',
    path: '/orgs/:orgId/roles/delete',
    summary: 'Delete a custom role no member or pending invitation holds (roles:manage)',
    auth: 'full',
    guards: ORG_WRITE_GUARDS,
    limiters: [],
    request: json(),
    params: orgParams,
    body: z.strictObject({ roleId: uuid('Not a role') }),
    responses: JSON_IN_ORG({
      200: { description: 'deleted', body: okData(z.object({ deleted: z.literal(true) })) },
      404: failure('No such role', errorFail, 'role_not_found'),
      409: failure('A member or a pending invitation holds the role', errorFail, 'role_in_use'),
    }),
  },
})

/**
 * The shapes of the organization answers, for the code that reads them (the gateway's pages) and
 * writes them (the IAM's features): an organization with the member's role and permissions in it,
 * one of the list, a member, an invitation, a custom role.
 */
export { org as orgView, listedOrg as orgListEntry, member as orgMemberView, invitation as orgInvitationView, role as orgRoleView }
