/**
 * Invitations: a member who may (invitations:manage) invites an address with a role; the address
 * gets a link with a random token (only its SHA-256 is stored), valid 7 days, once, and only for
 * a signed-in account whose confirmed address is the invited one. Inviting an address again ends
 * its earlier pending invitation; resending replaces the token (the old link stops working) and
 * restarts the 7 days; revoking ends it.
 *
 * Accepting is decided by ONE statement: UPDATE ... WHERE accepted_at IS NULL AND revoked_at IS
 * NULL AND expires_at > now AND the account's confirmed address matches ... RETURNING. Of two
 * accepts of one link, exactly one gets the row.
 */
import { chooseLocale } from '../../contract/locales'
import { findUserByEmail } from '../users/users-repo'
import { createHash, randomBytes } from 'node:crypto'
import { sql, type Kysely } from 'kysely'
import type { IamContext } from '../../context'
import type { z } from 'zod'
import type { orgInvitationView } from '../../contract/organizations'
import type { Database } from '../../db/schema'
import type { Actor } from '../security-events/repository'
import { normalizeEmail } from '../email-checks/email-checks'
import { getMailer } from '../mail/mailer'
import { maskEmail } from '../mfa/flows'
import { orgInvitationMail } from '../mail/templates'
import { recordUserAction } from '../security-events/repository'
import { actorSql, eventDetails, FORBIDDEN, holds, NOT_FOUND, readActor, type Forbidden, type NotFound, type OrgActor } from './actor'
import { mayGrant } from '../../contract/org-permissions'
import { resolveRole } from './members'

export const INVITATION_TTL_MS = 7 * 24 * 3_600_000

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex')
/** The address as invitations store and compare it: trimmed and lower case (as users' unique index folds it). */
export const invitationAddress = (email: string) => normalizeEmail(email).toLowerCase()

/** An invitation as the routes show it. */
export type InvitationView = z.infer<typeof orgInvitationView>

type InvitationRow = Omit<InvitationView, 'status'> & { acceptedAt: string | null; revokedAt: string | null }

const statusOf = (row: InvitationRow, now: number): InvitationView['status'] =>
  row.acceptedAt ? 'accepted' : row.revokedAt ? 'revoked' : new Date(row.expiresAt).getTime() <= now ? 'expired' : 'pending'

const viewOf = (row: InvitationRow, now: number): InvitationView => ({
  id: row.id,
  email: row.email,
  role: row.role,
  roleName: row.roleName,
  createdAt: new Date(row.createdAt).toISOString(),
  expiresAt: new Date(row.expiresAt).toISOString(),
  status: statusOf(row, now),
})

function invitationLink(ctx: IamContext, token: string): string {
  const url = new URL(ctx.config.magic_links.paths.orgInvitation, ctx.config.magic_links.domain)
  url.search = new URLSearchParams({ token }).toString()
  return url.toString()
}

async function mailInvitation(ctx: IamContext, input: { to: string; token: string; org: Pick<OrgActor, 'name'>; inviterName: string }): Promise<void> {
  const link = invitationLink(ctx, input.token)
  // the inviter's language is not the invitee's: the invitee's own choice when the address has an
  // account that made one, else English (docs/i18n.md "Mails")
  const invitee = await findUserByEmail(ctx.db, input.to)
  await getMailer(ctx).send({
    to: input.to,
    links: [link],
    content: orgInvitationMail({ siteName: ctx.config.email.siteName, locale: chooseLocale(invitee?.locale, null), orgName: input.org.name, inviterName: input.inviterName, link, linkTtlMs: INVITATION_TTL_MS }),
  })
}

export type InviteFailure = NotFound | Forbidden | { ok: false; code: 'unknown_role' | 'already_member' | 'mail_failed' }

/** Invites `email` with `role` and mails the link (the mail is sent once the invitation is stored). */
export async function createInvitation(
  ctx: IamContext,
  input: { orgId: string; userId: number; inviterName: string; email: string; role: string; actor: Actor },
): Promise<{ ok: true; invitation: InvitationView } | InviteFailure> {
  const now = ctx.now()
  const email = invitationAddress(input.email)
  const token = randomBytes(32).toString('base64url')
  const created = await ctx.db.transaction().execute(async (trx) => {
    const actor = await readActor(trx, input.orgId, input.userId)
    if (!actor) return NOT_FOUND
    if (!holds(actor, 'invitations:manage')) return FORBIDDEN
    const role = await resolveRole(trx, actor.orgId, input.role)
    if (!role) return { ok: false, code: 'unknown_role' } as const
    if (!mayGrant(actor, role.permissions, role.role === 'owner')) return FORBIDDEN
    const member = await trx
      .selectFrom('memberships as m')
      .innerJoin('users as u', 'u.id', 'm.user_id')
      .select('m.user_id')
      .where('m.org_id', '=', actor.orgId)
      .where(sql<string>`lower(u.email)`, '=', email)
      .executeTakeFirst()
    if (member) return { ok: false, code: 'already_member' } as const
    const at = new Date(now)
    // a new invitation of the same address ends the one before it
    await trx
      .updateTable('invitations')
      .set({ revoked_at: at })
      .where('org_id', '=', actor.orgId)
      .where('email', '=', email)
      .where('accepted_at', 'is', null)
      .where('revoked_at', 'is', null)
      .execute()
    const row = await trx
      .insertInto('invitations')
      .values({ org_id: actor.orgId, email, role: role.role, token_hash: hashToken(token), invited_by: input.userId, created_at: at, expires_at: new Date(now + INVITATION_TTL_MS) })
      .returning([sql<string>`public_id::text`.as('id'), 'email', 'role', 'created_at as createdAt', 'expires_at as expiresAt'])
      .executeTakeFirstOrThrow()
    await recordUserAction(trx, 'org_member_invited', { userId: input.userId, actor: input.actor, details: eventDetails(actor, { email, role: role.name }), at })
    return {
      ok: true,
      actor,
      invitation: viewOf(
        { ...row, roleName: role.name, createdAt: new Date(row.createdAt).toISOString(), expiresAt: new Date(row.expiresAt).toISOString(), acceptedAt: null, revokedAt: null },
        now,
      ),
    } as const
  })
  if (!created.ok) return created
  try {
    await mailInvitation(ctx, { to: email, token, org: created.actor, inviterName: input.inviterName })
  } catch (error) {
    ctx.log.error('invitation mail not sent', { error: (error as Error).message })
    return { ok: false, code: 'mail_failed' }
  }
  return { ok: true, invitation: created.invitation }
}

/** The organization's invitations, newest first (invitations:read), in one statement with the actor's membership. */
export async function listInvitations(ctx: IamContext, orgId: string, userId: number): Promise<{ ok: true; invitations: InvitationView[] } | NotFound | Forbidden> {
  const { rows } = await sql<{ allowed: boolean; invitations: InvitationRow[] | string | null }>`with a as (${actorSql(orgId, userId)})
    select 'invitations:read' = any(a.permissions) as allowed,
      case when 'invitations:read' = any(a.permissions) then (
        select coalesce(json_agg(json_build_object('id', i.public_id::text, 'email', i.email, 'role', i.role, 'roleName', coalesce(r.name, i.role),
          'createdAt', i.created_at, 'expiresAt', i.expires_at, 'acceptedAt', i.accepted_at, 'revokedAt', i.revoked_at) order by i.created_at desc, i.id desc), '[]'::json)
        from invitations i
        left join organization_roles r on r.org_id = i.org_id and r.id::text = i.role
        where i.org_id = a."orgId") end as invitations
    from a`.execute(ctx.db)
  const row = rows[0]
  if (!row) return NOT_FOUND
  if (!row.allowed) return FORBIDDEN
  const list = (typeof row.invitations === 'string' ? JSON.parse(row.invitations) : row.invitations) as InvitationRow[]
  const now = ctx.now()
  return { ok: true, invitations: list.map((r) => viewOf(r, now)) }
}

type ManageFailure = NotFound | Forbidden | { ok: false; code: 'invitation_not_found' }

/** Revokes a pending invitation (invitations:manage): one statement joins the actor, checks and writes. */
export async function revokeInvitation(ctx: IamContext, input: { orgId: string; userId: number; invitationId: string }): Promise<{ ok: true } | ManageFailure> {
  const at = new Date(ctx.now()).toISOString()
  const { rows } = await sql<{ member: boolean; allowed: boolean; done: boolean }>`with a as (${actorSql(input.orgId, input.userId)}),
    u as (
      update invitations i set revoked_at = ${at}::timestamptz from a
      where i.org_id = a."orgId" and i.public_id = ${input.invitationId}::uuid and i.accepted_at is null and i.revoked_at is null
        and 'invitations:manage' = any(a.permissions)
      returning i.id)
    select exists (select 1 from a) as member, coalesce((select 'invitations:manage' = any(a.permissions) from a), false) as allowed,
      exists (select 1 from u) as done`.execute(ctx.db)
  const row = rows[0]!
  if (!row.member) return NOT_FOUND
  if (!row.allowed) return FORBIDDEN
  return row.done ? { ok: true } : { ok: false, code: 'invitation_not_found' }
}

/**
 * Mails a pending invitation again with a new token (the previous link stops working) and 7 more
 * days (invitations:manage). Accepted and revoked invitations are not resent, nor one inviting an
 * owner by a member who may not make owners, nor one whose custom role no longer exists (a role is
 * deleted once no unexpired invitation holds it: roles.ts).
 */
export async function resendInvitation(
  ctx: IamContext,
  input: { orgId: string; userId: number; inviterName: string; invitationId: string },
): Promise<{ ok: true; expiresAt: string } | ManageFailure | { ok: false; code: 'mail_failed' }> {
  const now = ctx.now()
  const token = randomBytes(32).toString('base64url')
  const expiresAt = new Date(now + INVITATION_TTL_MS).toISOString()
  const { rows } = await sql<{ member: boolean; allowed: boolean; email: string | null; orgName: string | null }>`with a as (${actorSql(input.orgId, input.userId)}),
    u as (
      update invitations i set token_hash = ${hashToken(token)}, expires_at = ${expiresAt}::timestamptz from a
      where i.org_id = a."orgId" and i.public_id = ${input.invitationId}::uuid and i.accepted_at is null and i.revoked_at is null
        and 'invitations:manage' = any(a.permissions)
        -- an owner's invitation is prolonged by owners only, and one whose custom role was deleted meanwhile not at all
        and (i.role <> 'owner' or 'owners:manage' = any(a.permissions))
        and (i.role in ('owner', 'admin', 'member') or exists (select 1 from organization_roles r where r.org_id = i.org_id and r.id::text = i.role))
      returning i.email, a.name)
    select exists (select 1 from a) as member, coalesce((select 'invitations:manage' = any(a.permissions) from a), false) as allowed,
      (select email from u) as email, (select name from u) as "orgName"`.execute(ctx.db)
  const row = rows[0]!
  if (!row.member) return NOT_FOUND
  if (!row.allowed) return FORBIDDEN
  if (!row.email || !row.orgName) return { ok: false, code: 'invitation_not_found' }
  try {
    await mailInvitation(ctx, { to: row.email, token, org: { name: row.orgName }, inviterName: input.inviterName })
  } catch (error) {
    ctx.log.error('invitation mail not sent', { error: (error as Error).message })
    return { ok: false, code: 'mail_failed' }
  }
  return { ok: true, expiresAt }
}

export type AcceptFailure = { ok: false; code: 'invitation_not_found' | 'invitation_used' | 'unverified_address' | 'other_address' }

/**
 * Accepts an invitation as the signed-in user: one UPDATE decides (single use, unexpired, not
 * revoked, the account's confirmed address is the invited one), and the membership is added in
 * the same transaction. A user who is a member already keeps their role.
 */
export async function acceptInvitation(
  ctx: IamContext,
  input: { token: string; userId: number; actor: Actor },
): Promise<{ ok: true; org: { id: string; slug: string; name: string; role: string } } | AcceptFailure> {
  const now = ctx.now()
  const at = new Date(now).toISOString()
  const hash = hashToken(input.token)
  return ctx.db.transaction().execute(async (trx) => {
    const { rows } = await sql<{ orgId: number; role: string }>`update invitations i set accepted_at = ${at}::timestamptz
      from users u
      where i.token_hash = ${hash} and i.accepted_at is null and i.revoked_at is null and i.expires_at > ${at}::timestamptz
        and u.id = ${input.userId} and u.email_verified and lower(u.email) = i.email
      returning i.org_id as "orgId", i.role`.execute(trx)
    const accepted = rows[0]
    if (!accepted) return why(trx, hash, input.userId, now)
    await trx
      .insertInto('memberships')
      .values({ org_id: accepted.orgId, user_id: input.userId, role: accepted.role, created_at: new Date(now) })
      .onConflict((oc) => oc.columns(['org_id', 'user_id']).doNothing())
      .execute()
    const org = await trx
      .selectFrom('organizations as o')
      .innerJoin('memberships as m', (j) => j.onRef('m.org_id', '=', 'o.id').on('m.user_id', '=', input.userId))
      .select([sql<string>`o.public_id::text`.as('id'), 'o.slug', 'o.name', 'm.role'])
      .where('o.id', '=', accepted.orgId)
      .executeTakeFirstOrThrow()
    await recordUserAction(trx, 'org_invitation_accepted', { userId: input.userId, actor: input.actor, details: eventDetails(org, { role: org.role }), at: new Date(now) })
    return { ok: true, org } as const
  })
}

export interface InvitationPreview {
  orgName: string
  /** the inviter's name, empty when their account has none (or is gone) */
  inviterName: string
  /** the invited address, masked (`j***@example.com`): enough to pick the right account */
  email: string
  /** the invited address in full, to prefill the sign-up form: the token's holder read it in the mail the token came in */
  invitedEmail: string
  expiresAt: string
}

/**
 * What an invitation link is for, to whoever holds its token (the mail's reader): the
 * organization's name, who invited, the invited address masked, until when. Nothing for a token
 * that names no pending invitation, so the page tells only a live link's story; the token is 256
 * random bits, so it cannot be guessed into someone else's invitation.
 */
export async function previewInvitation(
  db: Kysely<Database>,
  input: { token: string; now: number },
): Promise<{ ok: true; invitation: InvitationPreview } | { ok: false; code: 'invitation_not_found' | 'invitation_used' }> {
  const row = await db
    .selectFrom('invitations as i')
    .innerJoin('organizations as o', 'o.id', 'i.org_id')
    .leftJoin('users as u', 'u.id', 'i.invited_by')
    .select(['o.name as orgName', 'u.name as inviterName', 'i.email', 'i.accepted_at', 'i.revoked_at', 'i.expires_at'])
    .where('i.token_hash', '=', hashToken(input.token))
    .executeTakeFirst()
  if (!row) return { ok: false, code: 'invitation_not_found' }
  const expiresAt = new Date(row.expires_at)
  if (row.accepted_at || row.revoked_at || expiresAt.getTime() <= input.now) return { ok: false, code: 'invitation_used' }
  return { ok: true, invitation: { orgName: row.orgName, inviterName: row.inviterName?.trim() ?? '', email: maskEmail(row.email), invitedEmail: row.email, expiresAt: expiresAt.toISOString() } }
}

/**
 * The address of the pending invitation `token` names (unexpired, not accepted, not revoked), or
 * null for any other token: sign-up counts an address as confirmed when it is this one, because the
 * token reached the person only in the mail sent to it (the inviter never sees the token, only its
 * hash is stored). One statement, run only when a sign-up carries a token. The invitation stays
 * pending: accepting it is still its own step (acceptInvitation).
 */
export async function pendingInvitationAddress(db: Kysely<Database>, input: { token: string; now: number }): Promise<string | null> {
  const row = await db
    .selectFrom('invitations')
    .select('email')
    .where('token_hash', '=', hashToken(input.token))
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', new Date(input.now))
    .executeTakeFirst()
  return row?.email ?? null
}

/** Why an accept found nothing to accept (read after the deciding statement). */
async function why(db: Kysely<Database>, hash: string, userId: number, now: number): Promise<AcceptFailure> {
  const row = await db
    .selectFrom('invitations as i')
    .innerJoin('users as u', (j) => j.on('u.id', '=', userId))
    .select(['i.email', 'i.accepted_at', 'i.revoked_at', 'i.expires_at', 'u.email as userEmail', 'u.email_verified'])
    .where('i.token_hash', '=', hash)
    .executeTakeFirst()
  if (!row) return { ok: false, code: 'invitation_not_found' }
  if (row.accepted_at || row.revoked_at || new Date(row.expires_at).getTime() <= now) return { ok: false, code: 'invitation_used' }
  if (row.userEmail.toLowerCase() !== row.email) return { ok: false, code: 'other_address' }
  return { ok: false, code: 'unverified_address' }
}
