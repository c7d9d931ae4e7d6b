/**
 * The gateway configuration: `GATEWAY_CONFIG` (or runtime config
 * `gatewayConfig`) names a JSON file with `iam` and `OAuthProviders`; function-valued provider
 * `callbacks` are registered in code (`registerProviderCallbacks`). Parsed once, strictly: a bad
 * file stops the start with a message naming the key.
 */
import { readFileSync } from 'node:fs'
import { z } from 'zod'
import { isIP } from '../../shared/ip'
import { LOG_LEVELS } from '../../shared/log'
import { DEFAULT_METRICS_ALLOW, isAllowEntry } from '../../shared/metrics-access'
import { contrastProblem, hexColor, httpsUrl } from '../../shared/brand'

const absoluteUrl = z.url({ protocol: /^https?$/ })

// Parameters the flow itself sets: extraAuthParams may not override them (state, PKCE and nonce
// would otherwise be attacker-shaped by a config typo, and redirect_uri must match the callback).
const RESERVED_AUTH_PARAMS = new Set([
  'client_id',
  'redirect_uri',
  'response_type',
  'scope',
  'state',
  'nonce',
  'code_challenge',
  'code_challenge_method',
])

const providerBase = {
  name: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, 'provider names are 1-64 of [A-Za-z0-9_-]')
    // /oauth/callback/:provider would be shadowed by a provider named "callback"
    .refine((name) => name !== 'callback', 'the provider name "callback" is reserved'),
  clientId: z.string().min(1),
  clientSecret: z.string().min(1),
  redirectUri: absoluteUrl,
  defaultScopes: z.array(z.string().min(1)).default([]),
  supportPKCE: z.boolean().default(false),
  redirectUrlOnSuccess: absoluteUrl,
  redirectUrlOnError: absoluteUrl,
  extraAuthParams: z
    .record(z.string(), z.string())
    .default({})
    .refine(
      (params) => Object.keys(params).every((key) => !RESERVED_AUTH_PARAMS.has(key)),
      `extraAuthParams may not set ${[...RESERVED_AUTH_PARAMS].join(', ')}`,
    )
    .refine(
      (params) => !params['response_mode'] || ['query', 'form_post'].includes(params['response_mode']),
      'extraAuthParams.response_mode must be query or form_post',
    ),
  tokenAuthMethod: z.enum(['client_secret_basic', 'client_secret_post']).default('client_secret_basic'),
  /** a human label for the sign-in button */
  displayName: z.string().optional(),
}

const oidcProviderSchema = z.strictObject({ kind: z.literal('oidc'), issuer: absoluteUrl, ...providerBase })
const oauthProviderSchema = z.strictObject({
  kind: z.literal('oauth'),
  authorizationEndpoint: absoluteUrl,
  tokenEndpoint: absoluteUrl,
  userInfoEndpoint: absoluteUrl,
  ...providerBase,
})

// Built from the two names above, not inline: the auto-import scanner reads exports with regular
// expressions, and an inline `('kind', [\n  z.strictObject(...` made it list `z` as an export of
// this file (tests/unit/auto-import-exports.test.ts).
export const providerSchema = z.discriminatedUnion('kind', [oidcProviderSchema, oauthProviderSchema])

/** The largest body the API proxy buffers for an API without its own `maxBodyBytes` (1 MiB). */
export const UPSTREAM_DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024

/**
 * An upstream base URL: absolute http(s), with an optional base path, and nothing the proxy could
 * not append a path to safely (no query, no fragment, no user:password).
 */
const upstreamUrl = absoluteUrl.refine((value) => {
  if (!URL.canParse(value)) return true // absoluteUrl says why
  const url = new URL(value)
  return !value.includes('?') && !value.includes('#') && !url.username && !url.password
}, 'upstream must be an absolute http(s) URL without query, fragment or credentials')

/**
 * One API the browser calls through the gateway (the token-mediating proxy, server/utils/upstream-proxy.ts):
 * `/api/upstream/<name>/<path>?<query>` goes to `<upstream><path>?<query>` with the signed-in
 * user's access token as `Authorization: Bearer`.
 * - `name`: the path segment after /api/upstream/; 1-64 of [a-z0-9-], unique.
 * - `upstream`: where the API lives; its path is a base the request's path is appended to, and no
 *   request path leaves it (`..`, encoded slashes and backslashes are refused with 400).
 * - `audience`: required; the `aud` of the tokens this API receives. The proxy asks the IAM for a
 *   token of this audience alone (server/utils/upstream-token.ts), so a token one API received is
 *   refused by every other; the IAM issues only for audiences in its
 *   `jwt.api_access_tokens.audiences`, and otherwise the proxy answers 502 and logs it, and
 *   nothing is sent to the API.
 * - `scopes`: roles the user's access token must all carry (its `roles` claim, or a
 *   space-separated `scope` claim); otherwise 403 and nothing is sent.
 * - `timeoutMs`: how long to wait for the API's answer (its status and headers); then 504.
 * - `maxBodyBytes`: the largest request body forwarded (default 1 MiB); larger is 413.
 */
const AUDIENCE_REQUIRED =
  "required: set it to the audience this API checks in its tokens' aud (a value of its own, no other API's), and list it in the IAM's jwt.api_access_tokens.audiences"

export const apiSchema = z.strictObject({
  name: z.string().regex(/^[a-z0-9-]{1,64}$/, 'API names are 1-64 of [a-z0-9-]'),
  upstream: upstreamUrl,
  audience: z.string({ error: (issue) => (issue.input === undefined ? AUDIENCE_REQUIRED : undefined) }).min(1, AUDIENCE_REQUIRED),
  scopes: z.array(z.string().min(1)).default([]),
  timeoutMs: z.number().int().positive().max(300_000).default(10_000),
  maxBodyBytes: z.number().int().nonnegative().max(64 * 1024 * 1024).default(UPSTREAM_DEFAULT_BODY_LIMIT_BYTES),
})

/**
 * A logo or favicon: an https URL (its origin is added to the page CSP's img-src alone,
 * server/plugins/csp-hashes.ts) or a path on the gateway's own origin (`/brand/logo.svg`, served
 * from public/). Not `//host/...`: a scheme-relative address names another origin while looking
 * like a path, and a backslash is read as a slash by browsers (WHATWG URL, special schemes).
 */
const brandImageUrl = z.union([httpsUrl, z.string().regex(/^\/(?![/\\])[^\\\s]*$/, 'expected a path such as /brand/logo.svg')], {
  error: 'expected an https:// URL or a path on this site such as /brand/logo.svg',
})

/**
 * A team's brand on every page (docs/gateway.md, "Brand"); what the IAM puts in mails is its own
 * `email.brand`. Every key is optional: unset, the pages look as they always did, named by
 * NUXT_PUBLIC_SITE_NAME and pointing to NUXT_PUBLIC_SUPPORT_EMAIL.
 * - `colors.primary` is the buttons' background and `colors.primaryText` their text: refused below
 *   4.5:1 (shared/brand.ts), so no brand makes a button unreadable.
 */
export const brandSchema = z
  .strictObject({
    name: z.string().trim().min(1).max(80).optional(),
    logoUrl: brandImageUrl.optional(),
    faviconUrl: brandImageUrl.optional(),
    colors: z
      .strictObject({ primary: hexColor, primaryText: hexColor })
      .superRefine((colors, ctx) => {
        const problem = contrastProblem(colors.primary, colors.primaryText)
        if (problem) ctx.addIssue({ code: 'custom', message: problem, path: ['primaryText'] })
      })
      .optional(),
    supportEmail: z.email().optional(),
    legal: z.strictObject({ termsUrl: httpsUrl.optional(), privacyUrl: httpsUrl.optional() }).prefault({}),
  })
  .prefault({})

export const gatewayConfigSchema = z.strictObject({
  iam: z
    .strictObject({
      url: absoluteUrl.default('http://127.0.0.1:3001'),
      hmac: z.strictObject({ clientId: z.string().min(1), sharedSecret: z.string().min(32) }).optional(),
      timeoutMs: z.number().int().positive().default(10_000),
    })
    .prefault({}),
  /**
   * A load balancer in front of the gateway: with `trust` on, a request whose socket address is
   * `ipToTrust` comes from the right-most X-Forwarded-For address that is not that proxy (the
   * IAM's `service.proxy` rule, iam/lib/ip.ts); otherwise X-Forwarded-For is ignored.
   */
  proxy: z
    .strictObject({ trust: z.boolean().default(false), ipToTrust: z.string().optional() })
    .prefault({})
    .refine((proxy) => !proxy.trust || (proxy.ipToTrust !== undefined && isIP(proxy.ipToTrust)), {
      message: 'proxy.ipToTrust must be the IP address of the trusted proxy when proxy.trust is true',
      path: ['ipToTrust'],
    }),
  /** who may read GET /metrics: IPs/CIDRs of the resolved client IP, or anyone with `Authorization: Bearer <token>` */
  metrics: z
    .strictObject({
      allow: z.array(z.string().refine(isAllowEntry, 'expected an IP address or CIDR')).default([...DEFAULT_METRICS_ALLOW]),
      token: z.string().min(32).optional(),
    })
    .prefault({}),
  /** key for signing the OAuth flow cookies; generated per process when absent (dev only) */
  cookieSecret: z.string().min(32).optional(),
  /** the level of its JSON log (shared/log.ts), like the IAM's `logLevel` */
  logLevel: z.enum(LOG_LEVELS).default('info'),
  OAuthProviders: z
    .array(providerSchema)
    .default([])
    .refine((list) => new Set(list.map((p) => p.name)).size === list.length, 'provider names must be unique'),
  /**
   * Calls to the OAuth providers above go through the outbound guard (shared/outbound.ts), which
   * refuses private, loopback and link-local addresses after resolution. Ranges listed here are
   * reachable on purpose (a provider on the company network). A provider URL that names a loopback
   * host over http (a local demo provider) reaches loopback without an entry.
   */
  outbound: z
    .strictObject({ allowAddresses: z.array(z.string().refine(isAllowEntry, 'expected an IP address or CIDR')).default([]) })
    .prefault({}),
  /**
   * The IAM's bot check by a Turnstile-style provider (its `botChallenge.provider: "turnstile"`,
   * docs/bot-challenge.md): the origin the pages that solve the check load the provider's widget
   * from. Set, the page CSP opens `script-src` and `frame-src` to it (server/plugins/csp-hashes.ts)
   * and GET /api/auth/bot-challenge names its script; absent, no page loads anything from a third party.
   */
  botChallenge: z.strictObject({ turnstileOrigin: z.url({ protocol: /^https$/ }).optional() }).prefault({}),
  brand: brandSchema,
  /** APIs the browser reaches through /api/upstream/<name>/** with the user's access token (apiSchema) */
  apis: z
    .array(apiSchema)
    .default([])
    .refine((list) => new Set(list.map((api) => api.name)).size === list.length, 'API names must be unique'),
})

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>
export type ProviderConfig = z.infer<typeof providerSchema>
export type ApiConfig = z.infer<typeof apiSchema>
export type BrandConfig = z.infer<typeof brandSchema>

export class GatewayConfigError extends Error {
  override name = 'GatewayConfigError'
}

/** ` (API "<name>")` for an issue inside an `apis` entry that has a name: which entry, beside its index. */
function apiNamed(raw: unknown, path: readonly PropertyKey[]): string {
  if (path[0] !== 'apis' || typeof path[1] !== 'number' || path.length < 3) return ''
  const apis = raw && typeof raw === 'object' ? (raw as { apis?: unknown }).apis : undefined
  const name: unknown = Array.isArray(apis) ? (apis[path[1]] as { name?: unknown } | undefined)?.name : undefined
  return typeof name === 'string' ? ` (API ${JSON.stringify(name)})` : ''
}

export function parseGatewayConfig(raw: unknown): GatewayConfig {
  const result = gatewayConfigSchema.safeParse(raw ?? {})
  if (result.success) return result.data
  const lines = result.error.issues.flatMap((issue) => {
    const at = issue.path.map(String).join('.') + apiNamed(raw, issue.path)
    if (issue.code === 'unrecognized_keys') return issue.keys.map((k) => `${at ? `${at}.` : ''}${k}: unknown key`)
    return [`${at || '(root)'}: ${issue.message}`]
  })
  throw new GatewayConfigError(`Invalid gateway configuration:\n${lines.join('\n')}`)
}

let cached: GatewayConfig | undefined

/** The parsed configuration, read once from GATEWAY_CONFIG / NUXT_GATEWAY_CONFIG (or defaults). */
export function useGatewayConfig(): GatewayConfig {
  if (cached) return cached
  const { env } = process
  const path = env['GATEWAY_CONFIG'] || env['NUXT_GATEWAY_CONFIG']
  let raw: unknown = {}
  if (path) {
    try {
      raw = JSON.parse(readFileSync(path, 'utf8'))
    } catch (error) {
      throw new GatewayConfigError(`GATEWAY_CONFIG: cannot read ${path} as JSON (${(error as Error).message})`)
    }
  }
  cached = parseGatewayConfig(raw)
  return cached
}
