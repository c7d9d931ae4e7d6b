/**
 * A small scriptable authorization server (node:http + jose) for the cases a real provider will
 * not produce: bad ID token signatures, wrong nonce/azp/at_hash, a userinfo for another subject, a
 * failing token endpoint. `oidc: true` adds discovery (under an issuer path, like
 * https://host/realms/x), a JWKS and ID tokens; without it, it is a plain OAuth 2.0 provider with
 * a GitHub-style user API (`/user`, `/user/emails`, `/user/orgs`). The authorize endpoint
 * approves at once (302 back with code, state and, for OIDC, iss). Tests set `behaviour` per case.
 */
import { createHash, randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose'

export interface FakeBehaviour {
  /** token endpoint answers this status with `{ error: "invalid_grant" }` */
  tokenStatus?: number
  /** ID token claim overrides; `undefined` removes the claim */
  idTokenClaims?: Record<string, unknown>
  /** sign the ID token with a key that is not in the JWKS (same kid) */
  foreignSignature?: boolean
  /** at_hash: 'right' (default), 'wrong' or 'omit' */
  atHash?: 'right' | 'wrong' | 'omit'
  /** userinfo / user answers this status with `{ error }` */
  userinfoStatus?: number
  /** the userinfo / user body (plain OAuth: the whole user object) */
  userinfo?: Record<string, unknown>
  emails?: Array<{ email: string; primary: boolean; verified: boolean }>
}

export interface FakeRequest {
  method: string
  path: string
  headers: IncomingMessage['headers']
  query: URLSearchParams
  form: URLSearchParams
}

export interface FakeProvider {
  /** OIDC issuer (base URL + issuer path) or the plain OAuth base URL */
  issuer: string
  endpoints: { authorization: string; token: string; userinfo: string }
  behaviour: FakeBehaviour
  requests: FakeRequest[]
  /** access tokens issued, newest last */
  accessTokens: string[]
  stop(): Promise<void>
}

export interface FakeOptions {
  oidc?: boolean
  /** path of the issuer, e.g. '/realms/test' */
  issuerPath?: string
  clients: Record<string, string>
  subject?: string
}

interface CodeGrant {
  clientId: string
  redirectUri: string
  challenge?: string
  nonce?: string
}

const b64sha256 = (value: string) => createHash('sha256').update(value).digest('base64url')
// OIDC Core 3.1.3.6: base64url of the left half of the SHA-256 (RS256) digest
const atHashOf = (token: string) => createHash('sha256').update(token).digest().subarray(0, 16).toString('base64url')

/** Starts the fake on a free loopback port. */
export async function startOAuth2Fake(options: FakeOptions): Promise<FakeProvider> {
  const subject = options.subject ?? 'user-1'
  const kid = 'k1'
  const good = await generateKeyPair('RS256', { extractable: true })
  const foreign = await generateKeyPair('RS256')
  const publicJwk: JWK = { ...(await exportJWK(good.publicKey)), kid, alg: 'RS256', use: 'sig' }
  const codes = new Map<string, CodeGrant>()
  const tokens = new Set<string>()
  const fake = { behaviour: {}, requests: [], accessTokens: [] } as unknown as FakeProvider
  const prefix = options.issuerPath ?? ''

  async function idToken(grant: CodeGrant, accessToken: string, key: CryptoKey): Promise<string> {
    const now = Math.floor(Date.now() / 1000)
    const claims: Record<string, unknown> = {
      iss: fake.issuer,
      sub: subject,
      aud: grant.clientId,
      iat: now,
      exp: now + 300,
      nonce: grant.nonce,
      at_hash: atHashOf(accessToken),
      email: 'oidc-user@example.com',
    }
    if (fake.behaviour.atHash === 'wrong') claims.at_hash = atHashOf(`${accessToken}x`)
    if (fake.behaviour.atHash === 'omit') delete claims.at_hash
    for (const [k, v] of Object.entries(fake.behaviour.idTokenClaims ?? {})) {
      if (v === undefined) delete claims[k]
      else claims[k] = v
    }
    return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid }).sign(key)
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      void (async () => {
        const url = new URL(req.url ?? '/', fake.issuer)
        const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'))
        const path = url.pathname.startsWith(prefix) ? url.pathname.slice(prefix.length) : url.pathname
        fake.requests.push({ method: req.method ?? 'GET', path, headers: req.headers, query: url.searchParams, form })
        const json = (status: number, body: unknown) => {
          res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' })
          res.end(JSON.stringify(body))
        }
        const bearer = () => {
          const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1]
          return token && tokens.has(token) ? token : undefined
        }
        if (options.oidc && path === '/.well-known/openid-configuration') {
          return json(200, {
            issuer: fake.issuer,
            authorization_endpoint: fake.endpoints.authorization,
            token_endpoint: fake.endpoints.token,
            userinfo_endpoint: fake.endpoints.userinfo,
            jwks_uri: `${fake.issuer}/jwks`,
            response_types_supported: ['code'],
            subject_types_supported: ['public'],
            id_token_signing_alg_values_supported: ['RS256'],
            authorization_response_iss_parameter_supported: true,
          })
        }
        if (options.oidc && path === '/jwks') return json(200, { keys: [publicJwk] })
        if (path === '/authorize') {
          const q = url.searchParams
          const code = randomBytes(16).toString('hex')
          codes.set(code, {
            clientId: q.get('client_id') ?? '',
            redirectUri: q.get('redirect_uri') ?? '',
            challenge: q.get('code_challenge') ?? undefined,
            nonce: q.get('nonce') ?? undefined,
          })
          const back = new URL(q.get('redirect_uri') ?? '')
          back.searchParams.set('code', code)
          if (q.get('state')) back.searchParams.set('state', q.get('state') ?? '')
          if (options.oidc) back.searchParams.set('iss', fake.issuer)
          res.writeHead(302, { location: back.href })
          return res.end()
        }
        if (path === '/token' && req.method === 'POST') {
          let clientId = form.get('client_id') ?? ''
          let secret = form.get('client_secret') ?? ''
          const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1]
          if (basic) {
            const [id = '', pw = ''] = Buffer.from(basic, 'base64').toString().split(':').map(decodeURIComponent)
            clientId = id
            secret = pw
          }
          if (options.clients[clientId] === undefined || options.clients[clientId] !== secret) return json(401, { error: 'invalid_client' })
          if (fake.behaviour.tokenStatus) return json(fake.behaviour.tokenStatus, { error: 'invalid_grant' })
          const grant = codes.get(form.get('code') ?? '')
          codes.delete(form.get('code') ?? '')
          if (!grant || grant.clientId !== clientId || grant.redirectUri !== form.get('redirect_uri')) return json(400, { error: 'invalid_grant' })
          if (grant.challenge && b64sha256(form.get('code_verifier') ?? '') !== grant.challenge) return json(400, { error: 'invalid_grant', error_description: 'PKCE' })
          const accessToken = randomBytes(24).toString('base64url')
          tokens.add(accessToken)
          fake.accessTokens.push(accessToken)
          const body: Record<string, unknown> = { access_token: accessToken, token_type: 'Bearer', expires_in: 3600 }
          if (options.oidc) body.id_token = await idToken(grant, accessToken, fake.behaviour.foreignSignature ? foreign.privateKey : good.privateKey)
          return json(200, body)
        }
        if (path === '/userinfo' || path === '/user') {
          if (!bearer()) return json(401, { error: 'invalid_token' })
          if (fake.behaviour.userinfoStatus) return json(fake.behaviour.userinfoStatus, { error: 'server_error' })
          return json(200, fake.behaviour.userinfo ?? (options.oidc ? { sub: subject, email: 'oidc-user@example.com', name: 'OIDC User' } : { id: 4242, login: 'octo', name: 'Octo Cat', email: 'octo@example.com' }))
        }
        if (path === '/user/emails') {
          if (!bearer()) return json(401, { error: 'invalid_token' })
          return json(200, fake.behaviour.emails ?? [{ email: 'secondary@example.com', primary: false, verified: true }, { email: 'primary@example.com', primary: true, verified: true }])
        }
        if (path === '/user/orgs') {
          if (!bearer()) return json(401, { error: 'invalid_token' })
          return json(200, [{ login: 'acme' }])
        }
        json(404, { error: 'not_found' })
      })().catch((error: unknown) => {
        res.writeHead(500)
        res.end(String(error))
      })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  fake.issuer = `${base}${prefix}`
  fake.endpoints = {
    authorization: `${fake.issuer}/authorize`,
    token: `${fake.issuer}/token`,
    userinfo: `${fake.issuer}${options.oidc ? '/userinfo' : '/user'}`,
  }
  fake.stop = () => new Promise((resolve) => server.close(() => resolve()))
  return fake
}
