/**
 * Per-API access tokens (POST /auth/user/api-access-token): what the gateway's API proxy sends one
 * API instead of the session's own access token (docs/gateway.md, "Call your APIs through the
 * gateway"). Every API gets a token whose `aud` is that API alone, so a token one API received is
 * refused by the audience check of every other (RFC 9068 section 4, RFC 8707 section 2) and by
 * the IAM itself (its `aud` is not the session audience, and its `sub` is not a serial id).
 *
 * Only audiences listed in `jwt.api_access_tokens.audiences` are issued for: the gateway signs its
 * calls, but a bug or a compromised gateway process must not mint tokens for arbitrary audiences.
 */
import type { IamContext } from '../../context'
import type { OrgClaim } from './access-token'
import { signApiAccessToken } from './access-token'
import { getKeyRing } from './token-service'

/** The claims of the session's verified access token the per-API token carries on. */
export interface SessionTokenFacts {
  userId: number
  sessionId: string
  visitor: string
  roles: string[]
  org?: OrgClaim
  act?: { sub: string }
  /** the session token's `exp` in seconds: no per-API token outlives it */
  exp: number
}

export type ApiAccessTokenResult =
  | { ok: true; token: string; audience: string; expiresAt: number }
  | { ok: false; code: 'audience_not_allowed' | 'no_account' }

/** Whether the IAM issues per-API tokens for `audience` (never the session tokens' own audience: the config refuses it). */
export function isIssuableAudience(ctx: Pick<IamContext, 'config'>, audience: string): boolean {
  const { jwt } = ctx.config
  return audience !== jwt.access_tokens.audience && jwt.api_access_tokens.audiences.includes(audience)
}

/**
 * A token for one API of the session: the session token's claims with `aud` = `audience` and
 * `sub` = the person's public id (users.public_id, as the OpenID Provider names them: an API sees
 * no serial database id). Lives `jwt.api_access_tokens.expiresInMs`, and never past the session
 * token it was asked with (an impersonated session's hard end included, which bounds that token).
 */
export async function issueApiAccessToken(ctx: IamContext, session: SessionTokenFacts, audience: string): Promise<ApiAccessTokenResult> {
  if (!isIssuableAudience(ctx, audience)) return { ok: false, code: 'audience_not_allowed' }
  const row = await ctx.db.selectFrom('users').select('public_id').where('id', '=', session.userId).executeTakeFirst()
  if (!row) return { ok: false, code: 'no_account' }
  const now = ctx.now()
  const settings = ctx.config.jwt
  const expiresAt = Math.min(now + settings.api_access_tokens.expiresInMs, session.exp * 1000)
  const token = await signApiAccessToken(
    await getKeyRing(ctx),
    {
      issuer: settings.access_tokens.issuer,
      audience,
      subject: String(row.public_id),
      sessionId: session.sessionId,
      visitor: session.visitor,
      roles: session.roles,
      ...(session.org ? { org: session.org } : {}),
      ...(session.act ? { act: session.act } : {}),
      expiresAt,
    },
    now,
  )
  return { ok: true, token, audience, expiresAt: Math.floor(expiresAt / 1000) * 1000 }
}
