import { callNodeListener, defineEventHandler } from 'h3'
import { useIam } from '../../context'
import { OIDC_BODY_LIMIT_BYTES, OIDC_MOUNT } from '../../features/oidc/mount'
import { useOidcProvider } from '../../features/oidc/provider'
import { inProviderRequest } from '../../features/oidc/provider-context'
import { endProviderSessionOfAnotherAccount, startsProviderSignIn } from '../../features/oidc/gateway-session'
import { OIDC_CSP } from '../../features/oidc/pages'
import { failTooLarge, readRawBody } from '../../http/raw-body'
import { fastIntrospection } from '../../features/oidc/fast-introspection'
import { routePath } from '../../lib/route-rules'
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
// Koa composes its middleware in callback(): once per process, not per request
let listener: NodeListener | undefined

export default defineEventHandler(async (event) => {
  const ctx = useIam()
  // The gateway forwards only canonical paths under the mount (iam/contract/request-path.ts); the
  // provider is handed the rest of the path, so the rule is checked again where it matters.
  if (!isForwardableTarget(event.node.req.url ?? '/', OIDC_MOUNT)) return httpFail(400, { error: 'Bad Request' })
  if (!ctx.config.oidc.enabled) return httpFail(404, { error: 'Not Found' })
  listener ??= (await useOidcProvider(ctx)).callback() as NodeListener
  const req = event.node.req as typeof event.node.req & { originalUrl?: string; body?: Buffer }
  const introspecting = event.method === 'POST' && routePath(event.path) === `${OIDC_MOUNT}/token/introspection`
  // the introspection fast path reads the body itself when no signature check read it already
  const read = event.context.rawBody ? await event.context.rawBody.result : introspecting ? await readRawBody(event, OIDC_BODY_LIMIT_BYTES) : undefined
  if (read === 'too-large') failTooLarge()
  if (read !== undefined) req.body = read
  event.node.res.setHeader('content-security-policy', OIDC_CSP)
  // A request with an Origin goes to the provider, whose client-based CORS check may refuse it.
  if (introspecting && read !== undefined && req.headers.origin === undefined && /^application\/x-www-form-urlencoded\b/i.test(req.headers['content-type'] ?? '')) {
    const answer = await fastIntrospection({ db: ctx.db, config: ctx.config, issuer: ctx.config.oidc.issuer, now: Date.now() }, { body: read, authorization: req.headers.authorization })
    if (answer) {
      // the provider's headers for the same answer (its no-store, and its CORS middleware's for a
      // request without Origin): an inactive answer here must not tell a caller apart from the
      // provider's answer to an unknown token
      for (const [name, value] of FAST_ANSWER_HEADERS) event.node.res.setHeader(name, value)
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
  const handle = listener
  await inProviderRequest(() => callNodeListener(handle, req, event.node.res))
})
