/**
 * The OpenID Provider rows' fixtures, against the IAM directly (the bench calls it unsigned, as its
 * other rows do): clients registered through dynamic registration (the bench turns it on; the CLI
 * cannot reach the in-memory PGlite of the run), and a refresh token obtained the way a browser
 * gets one: the authorization request, the interaction's continue and consent steps with a signed-in
 * session of the IAM, the resumed request, and the code exchanged with PKCE.
 */
import { createHash, randomBytes } from 'node:crypto'

const b64url = (buf) => Buffer.from(buf).toString('base64url')
const basic = (id, secret) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`

/** Registers a confidential client (RFC 7591); its id, secret and Authorization header. */
export async function registerClient(iamUrl, metadata) {
  const res = await fetch(`${iamUrl}/oidc/reg`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(metadata) })
  const body = await res.json()
  if (res.status !== 201) throw new Error(`client registration answered ${res.status}: ${JSON.stringify(body)}`)
  return { id: body.client_id, secret: body.client_secret, authorization: basic(body.client_id, body.client_secret) }
}

/** A token endpoint POST (form body, client_secret_basic). */
export async function tokenRequest(iamUrl, client, params) {
  const res = await fetch(`${iamUrl}/oidc/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: client.authorization },
    body: new URLSearchParams(params).toString(),
  })
  const body = await res.json()
  if (res.status !== 200) throw new Error(`token endpoint answered ${res.status}: ${JSON.stringify(body)}`)
  return body
}

/** name=value of each Set-Cookie line, into `jar`. */
function keep(jar, res) {
  for (const line of res.headers.getSetCookie()) {
    const [pair = ''] = line.split(';')
    const eq = pair.indexOf('=')
    jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim())
  }
}

/**
 * A refresh token of `client` for the account of session `s` (offline_access, consent given):
 * the IAM's own URLs stand in for the gateway's (the issuer's origin is the gateway's).
 */
export async function refreshTokenFor(iamUrl, issuer, client, redirectUri, s) {
  const jar = new Map([['canary_id', s.canary], ['session', s.refreshToken]])
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ')
  const local = (url) => new URL(new URL(url, issuer).pathname + new URL(url, issuer).search, iamUrl).href
  const verifier = b64url(randomBytes(32))
  const challenge = b64url(createHash('sha256').update(verifier).digest())
  const query = new URLSearchParams({ client_id: client.id, redirect_uri: redirectUri, response_type: 'code', scope: 'openid offline_access', prompt: 'consent', code_challenge: challenge, code_challenge_method: 'S256' })
  let url = `${iamUrl}/oidc/auth?${query}`
  for (let hop = 0; hop < 10; hop++) {
    if (url.startsWith(redirectUri)) {
      const code = new URL(url).searchParams.get('code')
      const tokens = await tokenRequest(iamUrl, client, { grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier })
      if (!tokens.refresh_token) throw new Error('no refresh token issued')
      return tokens.refresh_token
    }
    const interaction = /^\/interaction\/([\w-]+)$/.exec(new URL(url, issuer).pathname)
    if (interaction) {
      const uid = interaction[1]
      const details = await (await fetch(`${iamUrl}/auth/oidc/interaction/${uid}`, { headers: { cookie: cookie() } })).json()
      const step = details.data.prompt === 'consent' ? 'consent' : 'login'
      const res = await fetch(`${iamUrl}/auth/oidc/interaction/${uid}/${step}`, { method: 'POST', headers: { cookie: cookie(), authorization: `Bearer ${s.accessToken}`, 'user-agent': s.ua } })
      const body = await res.json()
      if (res.status !== 200) throw new Error(`interaction ${step} answered ${res.status}: ${JSON.stringify(body)}`)
      url = local(body.data.redirectTo)
      continue
    }
    const res = await fetch(url, { headers: { cookie: cookie() }, redirect: 'manual' })
    keep(jar, res)
    const location = res.headers.get('location')
    if (!location) throw new Error(`authorization answered ${res.status} without a redirect`)
    url = location.startsWith(redirectUri) ? location : local(location)
  }
  throw new Error('too many redirects')
}
