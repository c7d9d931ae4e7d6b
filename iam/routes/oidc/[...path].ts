import { callNodeListener, defineEventHandler, getCookie, getRequestHeader, setResponseHeader, setResponseStatus } from 'h3'
import { useIam } from '../../context'
import { OIDC_BODY_LIMIT_BYTES, OIDC_MOUNT } from '../../contract/oidc-mount'
import { CLAIMS_SUPPORTED, ID_TOKEN_CLAIMS, providerScopes, providerSigningKeys, sweepAfterResponse, ttlSeconds, useOidcProvider } from '../../features/oidc/provider'
import { endProviderSessionOfAnotherAccount, startsProviderSignIn } from '../../features/oidc/gateway-session'
import { oidcCsp, pageLocale, pageLookOf, tooManyCodesPage } from '../../features/oidc/pages'
import { useLimiter } from '../../features/rate-limits/registry'
import { retrySeconds } from '../../features/rate-limits/limiter'
import { failTooLarge, readRawBody } from '../../http/raw-body'
import { fastIntrospection, type IntrospectionDeps } from '../../fast/introspection'
import { fastClientCredentials, type ClientCredentialsDeps } from '../../fast/client-credentials'
import { fastRefreshToken, type RefreshTokenDeps } from '../../fast/refresh-token'
import { oidcAccountOf } from '../../features/oidc/accounts'
import { sweepWhenDue } from '../../features/oidc/adapter'
import { openClientSecretOnce } from '../../features/oidc/clients'
import { introspectionPolicy } from '../../features/oidc/introspection-policy'
import { routePath } from '../../contract/route-rules'
import { httpFail } from '../../http/respond'
import { isForwardableTarget } from '../../contract/request-path'

/**
 * /oidc/** : the OpenID Provider (features/oidc/provider.ts), reached through the gateway, which
 * forwards the path, query, body and cookies unchanged and signs the request like every other.
 *
 * - The provider derives its mount path from `originalUrl` minus `url`: the prefix is stripped here.
 * - Every URL it prints is built from the issuer: the forwarded host and scheme it trusts
 *   (`provider.proxy`) are set here from `oidc.issuer`, and the client address from the one the
 *   IAM resolved (lib/ip.ts), whatever the request carried.
 * - A version 2 signature covers the body, so the HMAC check read it (middleware 20): the provider
 *   takes those bytes from `req.body` instead of the spent stream.
 */
type NodeListener = Parameters<typeof callNodeListener>[0]

/** oidc-provider's headers on an introspection answer to a request without Origin (tests/gateway/introspection.security.test.ts compares them). */
const FAST_ANSWER_HEADERS: ReadonlyArray<[string, string]> = [
  ['vary', 'Origin'],
  ['access-control-allow-origin', '*'],
  ['access-control-expose-headers', 'WWW-Authenticate'],
  ['cache-control', 'no-store'],
  ['content-type', 'application/json; charset=utf-8'],
]
/** The same for a token answer: the token endpoint also exposes DPoP-Nonce (RFC 9449 section 8). */
const FAST_TOKEN_HEADERS: ReadonlyArray<[string, string]> = FAST_ANSWER_HEADERS.map(([name, value]) => [name, name === 'access-control-expose-headers' ? `DPoP-Nonce,${value}` : value])
// Koa composes its middleware in callback(): once per process, not per request
let listener: NodeListener | undefined
// what the one-statement introspection is handed besides the time: once per process, the access
// rule the same function the provider's allowedPolicy asks (features/oidc/introspection-policy.ts)
let introspectionDeps: Omit<IntrospectionDeps, 'now'> | undefined
// the same for the two-statement client credentials grant (fast/client-credentials.ts): the
// provider's scopes and token lifetime, as features/oidc/provider.ts hands them to the library
let clientCredentialsDeps: Omit<ClientCredentialsDeps, 'now'> | undefined
// and for the two-statement refresh grant (fast/refresh-token.ts): the provider's keys, claims and
// lifetimes, as features/oidc/provider.ts hands them to the library
let refreshTokenDeps: Omit<RefreshTokenDeps, 'now'> | undefined

const clientCredentialsDepsOf = (ctx: ReturnType<typeof useIam>): Omit<ClientCredentialsDeps, 'now'> => ({
  db: ctx.db,
  openSecret: (clientId, sealed) => openClientSecretOnce(ctx.config, clientId, sealed),
  knownScopes: new Set(providerScopes(ctx.config.oidc)),
  ttlSeconds: ttlSeconds(ctx.config.oidc.ttl.clientCredentialsMs),
  stored: () => sweepWhenDue({ db: ctx.db, now: Date.now, later: sweepAfterResponse(ctx) }),
})

/** Built once the provider is (its signing keys are known then: useOidcProvider). */
const refreshTokenDepsOf = (ctx: ReturnType<typeof useIam>): Omit<RefreshTokenDeps, 'now'> => ({
  db: ctx.db,
  issuer: ctx.config.oidc.issuer,
  openSecret: (clientId, sealed) => openClientSecretOnce(ctx.config, clientId, sealed),
  account: (row) => oidcAccountOf(ctx.db, row, Date.now()),
  idTokenClaims: ID_TOKEN_CLAIMS,
  claimsSupported: CLAIMS_SUPPORTED,
  signingKeys: providerSigningKeys(),
  accessTokenTtlSeconds: ttlSeconds(ctx.config.oidc.ttl.accessTokenMs),
  idTokenTtlSeconds: ttlSeconds(ctx.config.oidc.ttl.idTokenMs),
  stored: () => sweepWhenDue({ db: ctx.db, now: Date.now, later: sweepAfterResponse(ctx) }),
})

/** oidc-provider's browser session cookie (its default `cookies.names.session`). */
const PROVIDER_SESSION_COOKIE = '_session'

/**
 * User code entry (POST /oidc/device, the code and the confirmation alike) spends a point per
 * client IP and per provider browser session before the provider sees it: RFC 8628 section 5.1
 * asks for rate limiting, as a user code is short enough to type, and a wrong code names no device
 * code to count against. The library's page cannot tell it (userCodeInputSource only hears of a
 * code it looked up), so the refusal is a page of its own, in words: how long to wait.
 */
async function refuseUserCodeGuessing(event: Parameters<Parameters<typeof defineEventHandler>[0]>[0], ctx: ReturnType<typeof useIam>): Promise<string | undefined> {
  const limiter = useLimiter(ctx, 'deviceUserCode')
  const session = getCookie(event, PROVIDER_SESSION_COOKIE)
  for (const facts of [{ ip: event.context.clientIp as string }, ...(session ? [{ session }] : [])]) {
    const decision = await limiter.consume(facts)
    if (decision.ok) continue
    const seconds = retrySeconds(decision.retryMs)
    const minutes = Math.ceil(seconds / 60)
    setResponseStatus(event, 429)
    setResponseHeader(event, 'retry-after', seconds)
    setResponseHeader(event, 'cache-control', 'no-store')
    setResponseHeader(event, 'content-type', 'text/html; charset=utf-8')
    return tooManyCodesPage(pageLocale(getRequestHeader(event, 'accept-language')), minutes, `${OIDC_MOUNT}/device`, pageLookOf(ctx.config.email))
  }
  return undefined
}

/**
 * Dynamic client registration (POST /oidc/reg) spends a point per client IP before the provider
 * sees it, registered or refused alike: every registration stores a client, and with
 * `oidc.registration.access: "open"` nothing else stands in the way of filling the client table.
 * The refusal is the registration endpoint's own error shape (RFC 7591 section 3.2.2).
 */
async function refuseRegistrationFlood(event: Parameters<Parameters<typeof defineEventHandler>[0]>[0], ctx: ReturnType<typeof useIam>): Promise<string | undefined> {
  const decision = await useLimiter(ctx, 'oidcRegistration').consume({ ip: event.context.clientIp as string })
  if (decision.ok) return undefined
  const seconds = retrySeconds(decision.retryMs)
  setResponseStatus(event, 429)
  setResponseHeader(event, 'retry-after', seconds)
  setResponseHeader(event, 'cache-control', 'no-store')
  setResponseHeader(event, 'content-type', 'application/json; charset=utf-8')
  return JSON.stringify({ error: 'too_many_requests', error_description: `Too many client registrations from this address: try again in ${Math.ceil(seconds / 60)} minutes` })
}

export default defineEventHandler(async (event) => {
  const ctx = useIam()
  // The gateway forwards only canonical paths under the mount (iam/contract/request-path.ts); the
  // provider is handed the rest of the path, so the rule is checked again where it matters.
  if (!isForwardableTarget(event.node.req.url ?? '/', OIDC_MOUNT)) return httpFail(400, { error: 'Bad Request', code: 'bad_request' })
  if (!ctx.config.oidc.enabled) return httpFail(404, { error: 'Not Found', code: 'not_found' })
  listener ??= (await useOidcProvider(ctx)).callback() as NodeListener
  const req = event.node.req as typeof event.node.req & { originalUrl?: string; body?: Buffer }
  const posted = event.method === 'POST' ? routePath(event.path) : undefined
  const introspecting = posted === `${OIDC_MOUNT}/token/introspection`
  const granting = posted === `${OIDC_MOUNT}/token`
  // the introspection and client credentials fast paths read the body themselves when no
  // signature check read it already; read alike with the paths switched off
  // (`oidc.fastIntrospection`, `oidc.fastClientCredentials`), so a switch changes who answers and
  // nothing else (the same body bound, the same 413)
  const read = event.context.rawBody ? await event.context.rawBody.result : introspecting || granting ? await readRawBody(event, OIDC_BODY_LIMIT_BYTES) : undefined
  if (read === 'too-large') failTooLarge(event)
  if (read !== undefined) req.body = read
  event.node.res.setHeader('content-security-policy', oidcCsp(pageLookOf(ctx.config.email)))
  if (event.method === 'POST' && routePath(event.path) === `${OIDC_MOUNT}/device`) {
    const refused = await refuseUserCodeGuessing(event, ctx)
    if (refused !== undefined) return refused
  }
  if (event.method === 'POST' && routePath(event.path) === `${OIDC_MOUNT}/reg`) {
    const refused = await refuseRegistrationFlood(event, ctx)
    if (refused !== undefined) return refused
  }
  // A request with an Origin goes to the provider, whose client-based CORS check may refuse it.
  if (introspecting && ctx.config.oidc.fastIntrospection && read !== undefined && req.headers.origin === undefined) {
    introspectionDeps ??= {
      db: ctx.db,
      issuer: ctx.config.oidc.issuer,
      openSecret: (clientId, sealed) => openClientSecretOnce(ctx.config, clientId, sealed),
      mayIntrospect: introspectionPolicy(ctx.config.oidc.resourceServers),
    }
    const answer = await fastIntrospection({ ...introspectionDeps, now: Date.now() }, { body: read, contentType: req.headers['content-type'], authorization: req.headers.authorization })
    if (answer) {
      // the provider's headers for the same answer (its no-store, and its CORS middleware's for a
      // request without Origin): an inactive answer here must not tell a caller apart from the
      // provider's answer to an unknown token
      for (const [name, value] of FAST_ANSWER_HEADERS) event.node.res.setHeader(name, value)
      return answer
    }
  }
  // A DPoP proof binds the token to a key (features/oidc/provider.ts): the provider checks it.
  if (granting && read !== undefined && req.headers.origin === undefined && req.headers.dpop === undefined) {
    const { oidc } = ctx.config
    const grant = { body: read, contentType: req.headers['content-type'], authorization: req.headers.authorization }
    const answer =
      (oidc.fastClientCredentials ? await fastClientCredentials({ ...(clientCredentialsDeps ??= clientCredentialsDepsOf(ctx)), now: Date.now() }, grant) : undefined) ??
      (oidc.fastRefreshToken ? await fastRefreshToken({ ...(refreshTokenDeps ??= refreshTokenDepsOf(ctx)), now: Date.now() }, grant) : undefined)
    if (answer) {
      for (const [name, value] of FAST_TOKEN_HEADERS) event.node.res.setHeader(name, value)
      return answer
    }
  }
  const issuer = new URL(ctx.config.oidc.issuer)
  req.headers['x-forwarded-host'] = issuer.host
  req.headers['x-forwarded-proto'] = issuer.protocol.slice(0, -1)
  req.headers['x-forwarded-for'] = event.context.clientIp
  const url = req.url ?? '/'
  req.originalUrl = url
  req.url = url.slice(OIDC_MOUNT.length) || '/'
  if (startsProviderSignIn(req.url)) await endProviderSessionOfAnotherAccount(await useOidcProvider(ctx), ctx.db, event.node, ctx.now())
  await callNodeListener(listener, req, event.node.res)
})
