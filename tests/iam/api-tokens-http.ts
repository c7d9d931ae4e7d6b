/**
 * HTTP helpers for the API token tests: management calls with a signed-in session, public
 * verification from a given client IP (X-Forwarded-For, trusted through PROXY_CONFIG).
 */
import { call, type Session } from '../helpers/accounts'
import type { IamEndpoint, Json } from '../helpers/iam-server'

export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

/** Limits wide enough that only the limiter under test can reject. */
export const WIDE = { points: 100_000, duration: 60, blockDuration: 60 }
export const WIDE_LIMITERS = {
  consumptionRateLimiter: WIDE,
  generalUnionLimiter: { burst: WIDE, slow: WIDE },
  operationRateLimits: {
    newTokenCreationLimiter: WIDE, revokeTokensLimiter: WIDE, getMetadataTokenLimiter: WIDE,
    rotationRateLimiter: WIDE, ipRestrictionUpdate: WIDE, privilegeUpdate: WIDE,
  },
}

/** POST (or GET for list-metadata) /api/manage/<action> as the session, optionally from another IP. */
export function manage(iam: IamEndpoint, s: Session, action: string, body?: unknown, opts: { ip?: string; method?: string } = {}) {
  const method = opts.method ?? (action === 'list-metadata' ? 'GET' : 'POST')
  return call(iam, method, `/api/manage/${action}`, {
    client: { ...s, ip: opts.ip ?? s.ip },
    cookies: { session: s.refreshToken },
    bearer: s.accessToken,
    body: method === 'POST' ? (body ?? {}) : undefined,
  })
}

export type CreatedToken = { rawApiKey: string; rawPublicId: string; expiresAt: string | null; tokenId: number; name: string }

/** Creates a token over HTTP and finds its id through the listing. */
export async function newToken(iam: IamEndpoint, s: Session, body: Json = {}, opts: { ip?: string } = {}): Promise<CreatedToken> {
  const name = (body.name as string | undefined) ?? `key-${Math.random().toString(36).slice(2, 8)}`
  const res = await manage(iam, s, 'new-token', { privilege: 'full', ...body, name }, opts)
  const json = (await res.json()) as { data: Omit<CreatedToken, 'tokenId' | 'name'> }
  if (res.status !== 201) throw new Error(`new-token answered ${res.status}: ${JSON.stringify(json)}\n${iam.logs.filter((l) => l.includes('"error"')).slice(-3).join('\n')}`)
  const list = (await (await manage(iam, s, 'list-metadata', undefined, opts)).json()) as { data: { tokenList: Array<{ id: number; public_identifier: string }> } }
  const entry = list.data.tokenList.find((t) => t.public_identifier === json.data.rawPublicId)
  if (!entry) throw new Error('created token missing from the listing')
  return { ...json.data, tokenId: entry.id, name }
}

export const refOf = (t: CreatedToken) => ({ tokenId: t.tokenId, publicIdentifier: t.rawPublicId, name: t.name })

/** GET /api/public/verify from `ip`, with `key` in x-api-key (omitted when undefined). */
export function verify(iam: IamEndpoint, key: string | undefined, privilege: string | undefined, ip = '198.51.100.20') {
  const headers: Record<string, string> = { 'x-forwarded-for': ip }
  if (key !== undefined) headers['x-api-key'] = key
  const query = privilege === undefined ? '' : `?privilege=${encodeURIComponent(privilege)}`
  return fetch(`${iam.url}/api/public/verify${query}`, { headers })
}

export async function jsonOf(res: Response): Promise<Json> {
  return (await res.json()) as Json
}
