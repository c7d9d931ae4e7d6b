/**
 * A session from a verified SAML assertion (saml-response.ts), as the OAuth sign-in opens one
 * (features/oauth-login/oauth-login-service.ts): the identity is keyed by (connection, NameID),
 * never by address. On a first sign-in of a NameID (docs/enterprise.md, "linking"):
 * - an account of that address is linked only when its address is confirmed AND the address is in
 *   a domain the organization verified; otherwise the sign-in is refused (`email_taken`), so an
 *   identity provider can never take over an account of an address its organization has not proved;
 * - else a new account is made, its address confirmed only when it is in a verified domain (the
 *   organization proved the domain, and its provider vouches for the person), unconfirmed otherwise.
 * The person becomes a member of the connection's organization just in time, with the role the
 * group mapping gives (admin before any other), else the connection's default role; a mapped role
 * is applied again at each sign-in, never to an owner.
 */
import type { Transaction } from 'kysely'
import type { IamContext } from '../../context'
import type { Database, User, Visitor } from '../../db/schema'
import { isEmailShape, normalizeEmail } from '../email-checks/email-checks'
import { completePair, openSession, type OpenedSession, type TokenPair } from '../sessions/session-service'
import { findUserByEmail, findUserById, insertUser, isUniqueViolation, rememberTimeZone } from '../users/users-repo'
import { hasSecondFactor } from '../second-factors/repository'
import { issueChallenge, type SecondFactorChallenge } from '../second-factors/sign-in-step'
import { recordSecurityEvent } from '../security-events/repository'
import { isDeletionPending } from '../account-deletion/deletion-state'
import { emailDomain } from './domain-name'
import { isDeprovisionedIn } from './scim-deprovision'
import type { SamlConnection } from './saml-connections'
import type { VerifiedAssertion } from './saml-response'

export type SamlLoginFailure = 'saml_profile_invalid' | 'email_taken' | 'banned' | 'access_removed'

export type SamlLoginResult =
  | { ok: true; pair: TokenPair; userId: number; created: boolean }
  | { ok: true; secondFactor: SecondFactorChallenge; userId: number; created: false }
  | { ok: false; code: SamlLoginFailure }

export interface SamlLoginInput {
  connection: SamlConnection
  assertion: VerifiedAssertion
  visitor: Visitor
  ipAddress: string
  fingerprint: Record<string, unknown> | null
  /** the browser's IANA time zone, checked (iam/contract/time-zones.ts): the mails' zone, as for a password sign-in */
  timeZone?: string | null
}

const EMAIL_ATTRIBUTES = ['email', 'mail', 'emailAddress', 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress', 'urn:oid:0.9.2342.19200300.100.1.3']
const NAME_ATTRIBUTES = ['displayName', 'name', 'http://schemas.microsoft.com/identity/claims/displayname', 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name', 'urn:oid:2.16.840.1.113730.3.1.241']
const EMAIL_FORMAT = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress'

const firstOf = (attributes: Record<string, string[]>, names: readonly (string | undefined)[]) =>
  names.map((name) => (name ? attributes[name]?.[0] : undefined)).find((v) => v !== undefined && v.trim() !== '')

/** The address the assertion names: the mapped attribute, the usual ones, else an emailAddress NameID. */
export function assertionEmail(connection: Pick<SamlConnection, 'attributeMapping'>, assertion: VerifiedAssertion): string | null {
  const mapped = connection.attributeMapping.email
  const value = firstOf(assertion.attributes, mapped ? [mapped] : EMAIL_ATTRIBUTES) ?? (assertion.nameIdFormat === EMAIL_FORMAT ? assertion.nameId : undefined)
  if (!value) return null
  const email = normalizeEmail(value)
  return isEmailShape(email) ? email : null
}

/** The role the person's groups give, else the connection's default. */
export function roleFor(connection: Pick<SamlConnection, 'attributeMapping' | 'defaultRole'>, assertion: VerifiedAssertion): { role: string; mapped: boolean } {
  const { groups, groupRoles } = connection.attributeMapping
  const own = groups ? (assertion.attributes[groups] ?? []) : []
  const roles = own.map((group) => groupRoles?.[group]).filter((r): r is string => !!r)
  if (roles.length === 0) return { role: connection.defaultRole, mapped: false }
  return { role: roles.includes('admin') ? 'admin' : roles[0]!, mapped: true }
}

type Outcome = { user: User; session: OpenedSession; created: boolean } | { user: User; secondFactor: true } | 'email_taken' | 'banned' | 'access_removed'

async function verifiedDomains(trx: Transaction<Database>, orgId: number): Promise<Set<string>> {
  const rows = await trx.selectFrom('org_domains').select('domain').where('org_id', '=', orgId).where('verified_at', 'is not', null).execute()
  return new Set(rows.map((r) => r.domain))
}

async function joinOrganization(trx: Transaction<Database>, connection: SamlConnection, userId: number, role: { role: string; mapped: boolean }, now: Date): Promise<void> {
  await trx
    .insertInto('memberships')
    .values({ org_id: connection.orgId, user_id: userId, role: role.role, created_at: now })
    .onConflict((oc) => (role.mapped ? oc.columns(['org_id', 'user_id']).doUpdateSet({ role: role.role }).where('memberships.role', '<>', 'owner') : oc.columns(['org_id', 'user_id']).doNothing()))
    .execute()
}

async function resolveAndOpen(ctx: IamContext, trx: Transaction<Database>, input: SamlLoginInput, email: string): Promise<Outcome> {
  const now = new Date(ctx.now())
  const { connection, assertion } = input
  const displayName = (firstOf(assertion.attributes, [connection.attributeMapping.name, ...NAME_ATTRIBUTES]) ?? email.split('@')[0]!).slice(0, 100)
  const domain = emailDomain(email)
  const inVerifiedDomain = domain !== null && (await verifiedDomains(trx, connection.orgId)).has(domain)
  let user: User | undefined
  let created = false
  const identity = await trx.selectFrom('saml_identities').select(['id', 'user_id']).where('connection_id', '=', connection.id).where('name_id', '=', assertion.nameId).executeTakeFirst()
  if (identity) {
    user = await findUserById(trx, identity.user_id)
    await trx.updateTable('saml_identities').set({ email, last_login_at: now }).where('id', '=', identity.id).execute()
  } else {
    const existing = await findUserByEmail(trx, email)
    if (existing) {
      if (!existing.email_verified || !inVerifiedDomain || isDeletionPending(existing)) return 'email_taken'
      user = existing
    } else {
      user = await insertUser(trx, { email, name: displayName, passwordHash: null, emailVerified: inVerifiedDomain, termsConsent: false, now, timeZone: input.timeZone ?? null })
      created = true
    }
    await trx.insertInto('saml_identities').values({ connection_id: connection.id, name_id: assertion.nameId, user_id: user.id, email, created_at: now, last_login_at: now }).execute()
  }
  if (!user) throw new Error('saml identity without its user')
  if (user.banned_until && user.banned_until.getTime() > now.getTime()) return 'banned'
  if (isDeletionPending(user)) return 'banned'
  // deactivated by the organization's provisioning (SCIM): its connection lets nobody back in, and
  // joining would otherwise leave the blocked membership as it is while a session opens
  if (await isDeprovisionedIn(trx, connection.orgId, user.id)) return 'access_removed'
  await joinOrganization(trx, connection, user.id, roleFor(connection, assertion), now)
  if (await hasSecondFactor(trx, user.id)) return { user, secondFactor: true }
  const device = { userId: user.id, visitorRowId: input.visitor.id, ipAddress: input.ipAddress }
  if (created) await recordSecurityEvent(trx, { type: 'signed_up', ...device, details: { method: 'saml', connectionId: connection.publicId }, at: now })
  // the mails' time zone follows the browser the person last signed in with (session-service.ts createSignInSession)
  if (input.timeZone && !created) await rememberTimeZone(trx, user.id, input.timeZone)
  const session = await openSession(ctx, trx, { ...device, fingerprint: input.fingerprint, remember: false, amr: 'saml' }, (sessionId) => ({
    type: 'login_succeeded',
    ...device,
    details: { method: 'saml', connectionId: connection.publicId, sessionId },
    at: now,
  }))
  return { user, session, created }
}

export async function samlLogin(ctx: IamContext, input: SamlLoginInput): Promise<SamlLoginResult> {
  const email = assertionEmail(input.connection, input.assertion)
  if (!email) return { ok: false, code: 'saml_profile_invalid' }
  // a parallel first sign-in of the same NameID or address loses the unique race once; the retry
  // finds what the winner wrote
  for (let attempt = 0; ; attempt++) {
    try {
      const outcome = await ctx.db.transaction().execute((trx) => resolveAndOpen(ctx, trx, input, email))
      if (outcome === 'email_taken' || outcome === 'banned' || outcome === 'access_removed') return { ok: false, code: outcome }
      if ('secondFactor' in outcome) {
        // the assertion was the first factor: the session the step opens says so in its amr
        const challenge = await issueChallenge(ctx, { userId: outcome.user.id, visitorRowId: input.visitor.id, remember: false, firstFactor: 'saml' })
        return { ok: true, secondFactor: challenge, userId: outcome.user.id, created: false }
      }
      const pair = await completePair(ctx, outcome.session, { subject: outcome.user.public_id, roles: outcome.user.roles, visitor: input.visitor.visitor_id })
      return { ok: true, pair, userId: outcome.user.id, created: outcome.created }
    } catch (error) {
      if (!isUniqueViolation(error)) throw error
      if (attempt >= 1) return { ok: false, code: 'email_taken' }
    }
  }
}
