/**
 * Sessions: one login = one family; each refresh rotates the family's single active token
 * (RFC 9700 §4.14.2). Opening a session runs inside the caller's transaction so signup/login
 * write the user and the session together.
 */
import { randomUUID } from 'node:crypto'
import type { Kysely, Transaction } from 'kysely'
import type { IamContext } from '../../context'
import type { Database, Visitor } from '../../db/schema'
import { orgClaimSql, parseOrgClaim } from '../organizations/org-claim'
import type { OrgClaim } from '../tokens/access-token'
import type { KeyRing } from '../tokens/signing-keys'
import { issueAccessToken } from '../tokens/token-service'
import { hashRefreshToken, newRefreshToken } from './refresh-token'
import { countSecurityEvent, recordSecurityEvent, securityEventRow, type SecurityEventInput } from '../security-events/repository'
import { enqueueForSecurityEvent, outboxPartOf, securityEventMayNotify } from '../webhooks/outbox'
import { rememberTimeZone } from '../users/users-repo'
import { bindFamily, insertFamily, insertRefreshToken, insertSessionAtOnce, insertSessionWithOutbox, replaceActiveToken, revokeFamilies } from './sessions-repo'

/** What a successful signup/login/refresh/MFA hands to the client. */
export interface TokenPair {
  accessToken: string
  /** issue time in ms */
  accessIat: number
  expiresInMs: number
  refreshToken: string
  /** absolute expiry of the refresh token (ms since epoch), for the cookie's Max-Age */
  refreshExpiresAt: number
  familyId: string
}

type SessionConfig = IamContext['config']['jwt']['refresh_tokens']

/** Refresh lifetime: the remember/normal TTL, never past MAX_SESSION_LIFE counted from the family's start. */
export function refreshExpiry(cfg: SessionConfig, remember: boolean, familyCreatedAt: number, now: number): number {
  const ttl = remember ? cfg.rememberMe_ttl : cfg.refresh_ttl
  return Math.min(now + ttl, familyCreatedAt + cfg.MAX_SESSION_LIFE)
}

export interface OpenSessionInput {
  userId: number
  visitorRowId: number
  ipAddress: string
  fingerprint: Record<string, unknown> | null
  remember: boolean
  /** the sign-in passed a second factor: the session starts with its MFA done (anomaly checks 5 and 6) */
  mfaPassed?: boolean
  /** how the sign-in was made (RFC 8176 method references, space separated); absent: none to name */
  amr?: SignInAmr
}

/**
 * The ways a session is opened, as RFC 8176 names them: a password; a password and a code from
 * an authenticator app or a recovery code; a passkey (a hardware-bound key, the person present
 * and verified by the device's lock, so two factors in one).
 */
export type SignInAmr = 'pwd' | 'pwd otp mfa' | 'hwk user mfa' | EmailAmr | 'email otp mfa' | SamlAmr | 'saml otp mfa'

/**
 * A sign-in an organization's SAML identity provider vouched for (features/enterprise): RFC 8176
 * registers no value for a federated sign-in, so `saml` names it. Followed by the account's own
 * second factor it is `saml otp mfa` (second-factors/sign-in-step.ts): the assertion, not a
 * password, was the first factor.
 */
export type SamlAmr = 'saml'

/**
 * A sign-in by emailed link (`email`) or emailed code (`email otp`: a one-time code, RFC 8176
 * section 2). RFC 8176 registers no value for a mailbox; `email` is the name apps reading `amr`
 * commonly use, and an app that wants more than a mailbox can require `mfa` or `pwd`.
 */
export type EmailAmr = 'email' | 'email otp'

/** How the first step of a sign-in was made, kept with its second-factor challenge. */
export type FirstFactor = 'pwd' | EmailAmr | SamlAmr

export interface OpenedSession {
  familyId: string
  refreshToken: string
  refreshExpiresAt: number
}

/** The rows of a new session: a family and its first refresh token. */
function newSessionRows(ctx: IamContext, input: OpenSessionInput) {
  const now = ctx.now()
  const familyId = randomUUID()
  const refreshToken = newRefreshToken()
  const refreshExpiresAt = refreshExpiry(ctx.config.jwt.refresh_tokens, input.remember, now, now)
  return {
    family: { id: familyId, ...input, now: new Date(now), refreshExpiresAt: new Date(refreshExpiresAt) },
    token: { familyId, hash: hashRefreshToken(refreshToken), expiresAt: new Date(refreshExpiresAt), now: new Date(now) },
    opened: { familyId, refreshToken, refreshExpiresAt } satisfies OpenedSession,
  }
}

/**
 * Inserts a family and its first refresh token (inside `trx`); with `audit`, the event's row goes
 * into the same statement (no round trip of its own, as for a sign-in: createSession).
 */
export async function openSession(ctx: IamContext, trx: Transaction<Database>, input: OpenSessionInput, audit?: SignInAudit): Promise<OpenedSession> {
  const rows = newSessionRows(ctx, input)
  if (audit) {
    const event = audit(rows.opened.familyId)
    await insertSessionAtOnce(trx, rows.family, rows.token, securityEventRow(event))
    await enqueueForSecurityEvent(trx, event)
    countSecurityEvent(event)
    return rows.opened
  }
  await insertFamily(trx, rows.family)
  await insertRefreshToken(trx, rows.token)
  return rows.opened
}

/** Signs the access token that goes with an opened/rotated refresh token. */
export async function completePair(
  ctx: IamContext,
  session: OpenedSession,
  claims: { subject: string; roles: string[]; visitor: string; org?: OrgClaim | null; act?: { sub: string } | null; endsAt?: number | null },
  ring?: KeyRing,
): Promise<TokenPair> {
  const access = await issueAccessToken(
    ctx,
    { subject: claims.subject, sessionId: session.familyId, visitor: claims.visitor, roles: claims.roles, org: claims.org, act: claims.act, endsAt: claims.endsAt },
    ring,
  )
  return {
    accessToken: access.token,
    accessIat: access.accessIat,
    expiresInMs: access.expiresInMs,
    refreshToken: session.refreshToken,
    refreshExpiresAt: session.refreshExpiresAt,
    familyId: session.familyId,
  }
}

/** The audit row of a sign-in, given the new session's id (written by the same statement). */
export type SignInAudit = (familyId: string) => SecurityEventInput

/**
 * Opens a session in one statement (with its sign-in's audit row, when given) and signs its
 * access token.
 */
export async function createSession(
  ctx: IamContext,
  input: OpenSessionInput & { subject: string; roles: string[]; visitor: string },
  audit?: SignInAudit,
): Promise<TokenPair> {
  const rows = newSessionRows(ctx, input)
  const event = audit?.(rows.opened.familyId)
  const outbox = event && securityEventMayNotify(event) ? outboxPartOf(event) : null
  if (event && outbox) {
    // an endpoint wants session.created: its outbox rows in the session's own statement
    await insertSessionWithOutbox(ctx.db, rows.family, rows.token, securityEventRow(event), outbox)
  } else if (event && securityEventMayNotify(event)) {
    // more than one webhook: the outbox rows commit with the session (features/webhooks/outbox.ts)
    await ctx.db.transaction().execute(async (trx) => {
      await insertSessionAtOnce(trx, rows.family, rows.token, securityEventRow(event))
      await enqueueForSecurityEvent(trx, event)
    })
  } else {
    // the usual sign-in: one statement, no webhook subscribed to it
    await insertSessionAtOnce(ctx.db, rows.family, rows.token, event && securityEventRow(event))
  }
  if (event) countSecurityEvent(event)
  return completePair(ctx, rows.opened, { subject: input.subject, roles: input.roles, visitor: input.visitor })
}

/** The device a sign-in comes from: the device row, the network and the fingerprint copy. */
export interface SignInDeviceFacts {
  visitor: Pick<Visitor, 'id' | 'visitor_id'>
  ipAddress: string
  fingerprint: Record<string, unknown> | null
  /** the browser's IANA time zone, checked (iam/contract/time-zones.ts); null or absent: keep the stored one */
  timeZone?: string | null
}

/**
 * Opens the session of a completed sign-in (password, second factor, passkey): one place maps user
 * and device to it. `amr`: how it was made; one that passed a second factor (the TOTP step, a
 * passkey with user verification) starts with its MFA done, so a burst of fresh sign-ins (anomaly
 * check 6) does not ask it for the emailed code as well.
 */
export async function createSignInSession(
  ctx: IamContext,
  user: { id: number; public_id: string; roles: string[] },
  device: SignInDeviceFacts,
  remember: boolean,
  audit?: SignInAudit,
  amr: SignInAmr = 'pwd',
): Promise<TokenPair> {
  // the mails' time zone follows the browser the person last signed in with (a write only when it moved)
  if (device.timeZone) await rememberTimeZone(ctx.db, user.id, device.timeZone)
  return createSession(ctx, {
    userId: user.id,
    subject: user.public_id,
    visitorRowId: device.visitor.id,
    ipAddress: device.ipAddress,
    fingerprint: device.fingerprint,
    remember,
    mfaPassed: amr.includes('mfa'),
    amr,
    roles: user.roles,
    visitor: device.visitor.visitor_id,
  }, audit)
}

/**
 * Loads what an access token needs for a family: the user's roles, the bound device's public id,
 * the active organization's claim (organizations/org-claim.ts) and, for a session a platform
 * administrator opened, the actor and the hard end, in one statement.
 */
export async function familyClaims(db: Kysely<Database> | Transaction<Database>, familyId: string) {
  return db
    .selectFrom('session_families as f')
    .innerJoin('users as u', 'u.id', 'f.user_id')
    .innerJoin('visitors as v', 'v.id', 'f.visitor_id')
    .where('f.id', '=', familyId)
    .select(['f.user_id as userId', 'u.public_id as subject', 'u.roles as roles', 'v.visitor_id as visitor', 'f.created_at as createdAt', 'f.remember as remember', 'f.revoked_at as revokedAt'])
    .select(['f.impersonated_by as impersonatedBy', 'f.impersonation_ends_at as impersonationEndsAt'])
    .select(orgClaimSql.as('org'))
    .executeTakeFirst()
    .then((row) => {
      if (!row) return row
      const { impersonatedBy, impersonationEndsAt, ...rest } = row
      return { ...rest, org: parseOrgClaim(row.org), ...impersonationClaims(impersonatedBy, impersonationEndsAt) }
    })
}

/** The access token claims of an impersonated session (`act`, RFC 8693 section 4.1, and its end); nothing for an ordinary one. */
export function impersonationClaims(impersonatedBy: string | null, endsAt: Date | null): { act: { sub: string } | null; endsAt: number | null } {
  return impersonatedBy ? { act: { sub: impersonatedBy }, endsAt: endsAt?.getTime() ?? null } : { act: null, endsAt: null }
}

/**
 * Revokes one family (logout, reuse, velocity). `audit`: the owner's security event, written in the
 * same transaction and only when this call ended a live family (a second, racing revocation of the
 * same family records nothing).
 */
export async function revokeFamily(db: Kysely<Database>, familyId: string, reason: string, now: number, audit?: SecurityEventInput): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const revoked = await revokeFamilies(trx, { familyId }, reason, new Date(now))
    if (revoked.length && audit) await recordSecurityEvent(trx, audit)
  })
}

/**
 * Inside `trx`: locks the family, retires its active token (status revoked: a later use is a dead
 * session, not a theft signal) and inserts a new one in the same family, so MAX_SESSION_LIFE keeps
 * counting from the first login. Null when the family is revoked or past its lifetime.
 */
export async function renewFamilyToken(ctx: IamContext, trx: Transaction<Database>, familyId: string, now: number): Promise<OpenedSession | null> {
  const cfg = ctx.config.jwt.refresh_tokens
  const family = await trx.selectFrom('session_families').selectAll().where('id', '=', familyId).forUpdate().executeTakeFirst()
  if (!family || family.revoked_at || family.created_at.getTime() + cfg.MAX_SESSION_LIFE <= now) return null
  const refreshToken = newRefreshToken()
  // an impersonated session is never renewed past its hard end
  const refreshExpiresAt = Math.min(refreshExpiry(cfg, family.remember, family.created_at.getTime(), now), family.impersonation_ends_at?.getTime() ?? Infinity)
  if (refreshExpiresAt <= now) return null
  await replaceActiveToken(trx, { familyId, hash: hashRefreshToken(refreshToken), expiresAt: new Date(refreshExpiresAt), now: new Date(now) })
  return { familyId, refreshToken, refreshExpiresAt }
}

/** Signs the access token of a renewed family (roles, device and active organization read afresh). Null when the family is gone. */
export async function pairForFamily(ctx: IamContext, session: OpenedSession): Promise<(TokenPair & { org: OrgClaim | null }) | null> {
  const claims = await familyClaims(ctx.db, session.familyId)
  if (!claims) return null
  return { ...(await completePair(ctx, session, claims)), org: claims.org }
}

/**
 * After a passed adaptive MFA: binds the current device, IP and fingerprint to the family, sets
 * last_mfa_at and issues a new pair in the same family (renewFamilyToken).
 * Null when the family is revoked or past its lifetime.
 */
export async function reissueAfterMfa(
  ctx: IamContext,
  input: { familyId: string; visitorRowId: number; ipAddress: string; fingerprint: Record<string, unknown> | null },
): Promise<TokenPair | null> {
  const now = ctx.now()
  const session = await ctx.db.transaction().execute(async (trx) => {
    const renewed = await renewFamilyToken(ctx, trx, input.familyId, now)
    if (!renewed) return null
    await bindFamily(trx, input.familyId, { visitorRowId: input.visitorRowId, ipAddress: input.ipAddress, fingerprint: input.fingerprint, now: new Date(now) })
    return renewed
  })
  return session ? pairForFamily(ctx, session) : null
}
