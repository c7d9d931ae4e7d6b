/**
 * Refresh-token rotation with a grace window for duplicate refreshes (RFC 9700 §4.14.2).
 *
 * Browsers fire the same refresh several times. A rotation prepares the new pair first (new refresh
 * token, access token signed from the claims the guard just read; the refresh expiry is computed by
 * the statement and, for a duplicate, read from the successor's row), files it in the shared store,
 * sealed under the old token, for `reuseGraceMs`, and only then spends the old token in ONE
 * statement (a conditional UPDATE ... WHERE status = 'active' with the insert of the replacement:
 * exactly one winner among parallel rotations, no lock and no BEGIN/COMMIT). The pair is filed
 * under the old token's hash AND the new one's, so only the pair whose token the database actually
 * holds as the successor can ever be found: a rotation that lost, or whose statement failed, leaves
 * an entry nobody looks up (it expires), and a store that fails stops the rotation before anything
 * is spent. The same old token from the same device within the window gets the winner's pair; from
 * another device, later, or without a filed pair, it is reuse and the family dies.
 */
import type { IamContext } from '../../context'
import type { RefreshTokenStatus } from '../../db/schema'
import { orgClaimOf } from '../organizations/org-claim'
import { issueAccessToken } from '../tokens/token-service'
import { hashRefreshToken, newRefreshToken, openForToken, sealForToken } from './refresh-token'
import { impersonationClaims, revokeFamily, type TokenPair } from './session-service'
import { findReplacement, rotateInOneStatement } from './sessions-repo'

/** Why a rotation fails: a replayed token, or a dead one. */
export type RotateFailureCode = 'reused' | 'invalid'
export type RotateResult = { ok: true; pair: TokenPair } | { ok: false; code: RotateFailureCode }

/** The pair as filed before the statement; its refresh expiry is computed by the statement and read from the successor's row. */
type FiledPair = Pick<TokenPair, 'accessToken' | 'accessIat' | 'expiresInMs' | 'refreshToken'>
type GraceEntry = { canary: string; sealed: string }

const graceKey = (hash: string, nextHash: string) => `session:grace:${hash}:${nextHash}`

/** What the refresh guard read and passed: the token's status, its session, the account's roles, the family's device. */
export interface RotationFacts {
  raw: string
  /** the request's device cookie; the guard checked it names the family's device */
  canaryId: string
  /** the token's status when the guard read it */
  status: RefreshTokenStatus
  familyId: string
  userId: number
  /** the user's public id: the access token's `sub` */
  subject: string
  roles: string[]
  /** the session's active organization (organizations.id), null: none; its claim is read only when set */
  activeOrgId: number | null
  /** public id of the family's device (the access token's `visitor` claim) */
  visitor: string
  /** an impersonated session: the administrator's public id (the token's `act.sub`) and the session's hard end; null otherwise */
  impersonatedBy: string | null
  impersonationEndsAt: Date | null
  /** when the family's last_seen is due (older than this), the rotation statement moves it; else null */
  touchBefore: Date | null
  /** the request's device row and address: where a reuse came from, for the owner's security activity */
  visitorRowId: number
  ipAddress: string
}

/** The revocation reason of a reused token, as the anomaly check names it (REFRESH_TOKEN_REUSED). */
const REUSED = 'refresh_token_reused'

/** The winner's pair of a rotation of `hash`, when this device may have it (the grace window). */
async function gracePair(ctx: IamContext, facts: RotationFacts, hash: string): Promise<TokenPair | null> {
  const next = await findReplacement(ctx.db, hash)
  if (!next) return null
  const entry = await ctx.store.get<GraceEntry>(graceKey(hash, next.tokenHash))
  if (!entry || entry.canary !== facts.canaryId) return null
  const filed = openForToken<FiledPair>(facts.raw, entry.sealed)
  return filed && { ...filed, refreshExpiresAt: new Date(next.expiresAt).getTime(), familyId: facts.familyId }
}

/** Prepares, files and commits one rotation; 'not-active' when another rotation spent the token first. */
async function rotateOnce(ctx: IamContext, facts: RotationFacts, hash: string): Promise<TokenPair | 'not-active' | 'invalid'> {
  const now = ctx.now()
  const cfg = ctx.config.jwt.refresh_tokens
  const refreshToken = newRefreshToken()
  const newHash = hashRefreshToken(refreshToken)
  // the org claim costs a statement only for a session acting for an organization
  const org = facts.activeOrgId === null ? null : await orgClaimOf(ctx.db, facts.familyId)
  const access = await issueAccessToken(ctx, {
    subject: facts.subject,
    sessionId: facts.familyId,
    visitor: facts.visitor,
    roles: facts.roles,
    org,
    ...impersonationClaims(facts.impersonatedBy, facts.impersonationEndsAt),
  })
  const filed: FiledPair = { accessToken: access.token, accessIat: access.accessIat, expiresInMs: access.expiresInMs, refreshToken }
  // filed before the token is spent: a duplicate that loses the UPDATE below finds it at once
  if (cfg.reuseGraceMs > 0) {
    await ctx.store.set(graceKey(hash, newHash), { canary: facts.canaryId, sealed: sealForToken(facts.raw, filed) } satisfies GraceEntry, cfg.reuseGraceMs)
  }
  const rotated = await rotateInOneStatement(ctx.db, {
    hash,
    newHash,
    now: new Date(now),
    refreshTtlMs: cfg.refresh_ttl,
    rememberTtlMs: cfg.rememberMe_ttl,
    maxSessionLifeMs: cfg.MAX_SESSION_LIFE,
    touchBefore: facts.touchBefore,
  })
  if (!rotated) return 'not-active'
  if (rotated.replacedBy === null) return 'invalid'
  return { ...filed, refreshExpiresAt: new Date(rotated.expiresAt).getTime(), familyId: facts.familyId }
}

/**
 * Rotates the token of `facts` after the anomaly checks passed (check 1 refused revoked, expired and
 * out-of-grace reused tokens; a rotated token reaching here is a same-device duplicate within the
 * window).
 */
export async function rotateRefreshToken(ctx: IamContext, facts: RotationFacts): Promise<RotateResult> {
  const hash = hashRefreshToken(facts.raw)
  if (facts.status === 'active') {
    const result = await rotateOnce(ctx, facts, hash)
    if (result === 'invalid') return { ok: false, code: 'invalid' }
    if (result !== 'not-active') return { ok: true, pair: result }
  }
  // spent already: by a parallel duplicate just now, or earlier within the grace window
  const pair = await gracePair(ctx, facts, hash)
  if (pair) return { ok: true, pair }
  const now = ctx.now()
  await revokeFamily(ctx.db, facts.familyId, REUSED, now, {
    type: 'session_revoked_anomaly',
    userId: facts.userId,
    visitorRowId: facts.visitorRowId,
    ipAddress: facts.ipAddress,
    details: { reason: REUSED, sessionId: facts.familyId },
    at: new Date(now),
  })
  ctx.log.warn('refresh token reuse: family revoked', { familyId: facts.familyId })
  return { ok: false, code: 'reused' }
}
