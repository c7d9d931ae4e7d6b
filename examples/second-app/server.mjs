#!/usr/bin/env node
/**
 * A second web app that signs people in with the identity platform's OpenID Provider: plain Node,
 * no build step, oauth4webapi as the OpenID Connect client. Authorization code + PKCE (S256) with a
 * state and a nonce, the ID token checked (signature, issuer, audience, nonce), the userinfo
 * claims shown, and sign-out through RP-initiated logout (the provider's end_session_endpoint),
 * which also ends the session on the platform's own pages.
 *
 * Run (from the repository root, with `npm start` running; it registers the "Demo app" client and
 * keeps its secret in .data/iam/demo-client.json, which this reads):
 *
 *   node examples/second-app/server.mjs      # then open http://localhost:4000
 *
 * Settings (environment): ISSUER, CLIENT_ID and CLIENT_SECRET (default: what .data/iam/demo-client.json
 * names, the issuer of the gateway npm start runs, on whatever port), PORT (the port of the demo
 * client's redirect URI there, else 4000), BASE_URL (http://localhost:<PORT>: the client's
 * registered redirect URI is BASE_URL/callback, its post-logout URI BASE_URL/).
 *
 * Sessions live in this process's memory: a demonstration, not a production session store.
 */
import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import * as oauth from 'oauth4webapi'

// Cookies do not tell ports apart: on localhost every app of the try-out (the gateway, an example
// Nuxt app, this one) sees the others' cookies, so this one's name is its own.
const SESSION_COOKIE = 'second_app_session'

const escapeHtml = (value) => String(value).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c])

const page = (title, body) =>
  `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title>` +
  '<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem}pre{background:#f4f4f4;padding:1rem;overflow:auto}a.button{display:inline-block;padding:.5rem 1rem;background:#1d4ed8;color:#fff;border-radius:6px;text-decoration:none}</style>' +
  `</head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`

/**
 * The app as a request listener.
 * @param {{ issuer: string, clientId: string, clientSecret: string, baseUrl: string }} options
 */
export function secondApp({ issuer, clientId, clientSecret, baseUrl }) {
  const base = baseUrl.replace(/\/+$/, '')
  const redirectUri = `${base}/callback`
  const client = { client_id: clientId }
  const clientAuth = oauth.ClientSecretBasic(clientSecret)
  // plain http is for a local try-out only (oauth4webapi refuses it unless told per call)
  const http = new URL(issuer).protocol === 'http:' ? { [oauth.allowInsecureRequests]: true } : {}
  /** session id (cookie) -> { pending?: { verifier, state, nonce }, idToken?, claims? } */
  const sessions = new Map()
  let discovered

  const authorizationServer = async () => {
    // on first use, not at start: the provider may come up after this app
    discovered ??= oauth
      .discoveryRequest(new URL(issuer), { algorithm: 'oidc', ...http })
      .then((res) => oauth.processDiscoveryResponse(new URL(issuer), res))
      .catch((error) => {
        discovered = undefined
        throw error
      })
    return discovered
  }

  const sessionOf = (req, res) => {
    const sid = new RegExp(`(?:^|;\\s*)${SESSION_COOKIE}=([A-Za-z0-9_-]+)`).exec(req.headers.cookie ?? '')?.[1]
    if (sid && sessions.has(sid)) return sessions.get(sid)
    const id = randomBytes(24).toString('base64url')
    const session = {}
    sessions.set(id, session)
    res.setHeader('set-cookie', `${SESSION_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Lax`)
    return session
  }

  const redirect = (res, location) => {
    res.writeHead(302, { location })
    res.end()
  }
  const html = (res, status, body) => {
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
    res.end(body)
  }

  return async (req, res) => {
    const url = new URL(req.url ?? '/', base)
    try {
      const session = sessionOf(req, res)
      if (req.method !== 'GET') return html(res, 405, page('Not allowed', ''))

      if (url.pathname === '/') {
        if (!session.claims) {
          return html(res, 200, page('Second app', '<p>You are not signed in.</p><p><a class="button" href="/login">Sign in</a></p>'))
        }
        const who = session.claims.name || session.claims.email || session.claims.sub
        return html(
          res,
          200,
          page('Second app', `<p>Signed in as <strong>${escapeHtml(who)}</strong>.</p><h2>Your claims</h2><pre>${escapeHtml(JSON.stringify(session.claims, null, 2))}</pre><p><a class="button" href="/logout">Sign out</a></p>`),
        )
      }

      if (url.pathname === '/login') {
        const as = await authorizationServer()
        const pending = { verifier: oauth.generateRandomCodeVerifier(), state: oauth.generateRandomState(), nonce: oauth.generateRandomNonce() }
        session.pending = pending
        const target = new URL(as.authorization_endpoint)
        target.search = new URLSearchParams({
          client_id: clientId,
          redirect_uri: redirectUri,
          response_type: 'code',
          scope: 'openid email profile',
          state: pending.state,
          nonce: pending.nonce,
          code_challenge: await oauth.calculatePKCECodeChallenge(pending.verifier),
          code_challenge_method: 'S256',
        }).toString()
        return redirect(res, target.href)
      }

      if (url.pathname === '/callback') {
        const pending = session.pending
        if (!pending) return html(res, 400, page('Sign-in not started here', '<p><a href="/login">Start again</a></p>'))
        session.pending = undefined
        const as = await authorizationServer()
        // state and `iss` (RFC 9207) checked; an error the provider sent back (access_denied ...) throws here
        const params = oauth.validateAuthResponse(as, client, url, pending.state)
        const response = await oauth.authorizationCodeGrantRequest(as, client, clientAuth, params, redirectUri, pending.verifier, http)
        const tokens = await oauth.processAuthorizationCodeResponse(as, client, response, { expectedNonce: pending.nonce, requireIdToken: true })
        const { sub } = oauth.getValidatedIdTokenClaims(tokens)
        const info = await oauth.processUserInfoResponse(as, client, sub, await oauth.userInfoRequest(as, client, tokens.access_token, http))
        session.idToken = tokens.id_token
        session.claims = info
        return redirect(res, '/')
      }

      if (url.pathname === '/logout') {
        const idToken = session.idToken
        session.claims = undefined
        session.idToken = undefined
        const as = await authorizationServer()
        if (!as.end_session_endpoint) return redirect(res, '/')
        const target = new URL(as.end_session_endpoint)
        target.search = new URLSearchParams({ client_id: clientId, post_logout_redirect_uri: `${base}/`, ...(idToken ? { id_token_hint: idToken } : {}) }).toString()
        return redirect(res, target.href)
      }

      return html(res, 404, page('Not found', '<p><a href="/">Home</a></p>'))
    } catch (error) {
      const detail = error instanceof oauth.AuthorizationResponseError || error instanceof oauth.ResponseBodyError ? `${error.error}: ${error.error_description ?? ''}` : error?.message
      console.error(`second-app: ${url.pathname}: ${detail}`)
      return html(res, 502, page('Sign-in failed', `<p>${escapeHtml(detail)}</p><p><a href="/">Home</a></p>`))
    }
  }
}

/** The demo client npm start registered (scripts/start.mjs ensureDemoClient), when this runs in the repository. */
function demoClient() {
  const file = join(import.meta.dirname, '..', '..', '.data', 'iam', 'demo-client.json')
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {}
}

async function main() {
  const kept = demoClient()
  const keptPort = kept.redirectUri ? new URL(kept.redirectUri).port : ''
  const port = Number(process.env.PORT || keptPort || 4000)
  const clientId = process.env.CLIENT_ID || kept.clientId
  const clientSecret = process.env.CLIENT_SECRET || kept.clientSecret
  if (!clientId || !clientSecret) {
    console.error('No client: run `npm start` first (it registers the "Demo app" client), or set CLIENT_ID and CLIENT_SECRET.')
    process.exit(1)
  }
  const baseUrl = process.env.BASE_URL || `http://localhost:${port}`
  const issuer = process.env.ISSUER || kept.issuer || 'http://localhost:3000/oidc'
  if (!process.env.CLIENT_ID && kept.redirectUri && kept.redirectUri !== `${baseUrl}/callback`) {
    console.warn(`The demo client's redirect URI is ${kept.redirectUri}, not ${baseUrl}/callback: the provider will refuse the sign-in. Use PORT=${keptPort}, or a client of your own (CLIENT_ID, CLIENT_SECRET).`)
  }
  const server = createServer(secondApp({ issuer, clientId, clientSecret, baseUrl }))
  server.listen(port, '127.0.0.1', () => console.log(`Second app on ${baseUrl} (signs in with ${issuer} as ${clientId})`))
  const stop = () => server.close(() => process.exit(0))
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main()
