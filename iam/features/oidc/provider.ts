/**
 * The OpenID Provider (oidc-provider, OpenID Certified) inside the IAM, mounted under /oidc
 * (routes/oidc/[...path].ts). One instance per process, built on first use from the booted
 * context; everything it keeps lives in the database (adapter.ts), so instances are
 * interchangeable behind the gateway.
 *
 * What it offers (OIDC Core 1.0, RFC 9700): authorization code with PKCE (S256; required of every
 * client, RFC 9700 section 2.1.1), refresh tokens (rotated for public clients; a reused one revokes its grant),
 * client credentials, device authorization (RFC 8628), introspection (RFC 7662), revocation
 * (RFC 7009), userinfo, RP-initiated and back-channel logout, PAR (RFC 9126), resource indicators
 * (RFC 8707) with JWT access tokens (RFC 9068), DPoP sender-constrained tokens (RFC 9449), and
 * `iss` in authorization responses (RFC 9207).
 *
 * Sign-in and consent are the gateway's pages: the provider sends the browser to
 * /interaction/<uid>, and interactions.ts finishes it for the signed-in account.
 */
import { createHmac } from 'node:crypto'
import type { JWK } from 'jose'
import Provider, { errors, type Configuration, type KoaContextWithOIDC } from 'oidc-provider'
import type { IamContext } from '../../context'
import type { IamConfig } from '../../lib/config-schema'
import { runAfterResponse } from '../../lib/background'
import { createAdapterFactory } from './adapter'
import { findOidcAccount } from './accounts'
import { introspectionPolicy } from './introspection-policy'
import { recordOidcEvent } from './connected-apps'
import { readAheadContextFrom } from './request-memo'
import { loadOidcKeys } from './keys'
import { liveDeviceCodes, tooManyDeviceCodes } from './device-codes'
import { deviceConfirmPage, deviceDonePage, deviceInputPage, errorPage, pageLocale, pageLookOf, signedOutPage, signOutPage } from './pages'
import { guardedFetchApi, LOOPBACK_RANGES } from '../../../shared/outbound'
import { OIDC_MOUNT } from '../../contract/oidc-mount'
import { clientIdMetadataDocumentFeature } from './client-metadata-documents'
import { blockedHostPatterns } from './blocked-hosts'
import { recordDocumentClientSeen } from './client-directory'

/**
 * The OpenID scopes (OIDC Core 5.4) and the claims each releases. `amr` (RFC 8176 method
 * references: how the person signed in) goes with `openid`, so every ID token says it without the
 * client asking through the claims parameter; userinfo has no `amr` to give. `organization`
 * releases `orgs`: every organization the person belongs to, each in the shape of the session
 * tokens' `org` claim (docs/oidc-provider.md says why a list). `locale` is the language the person
 * chose in their account (OIDC Core 5.1), released only once they chose one.
 */
const CLAIMS = { openid: ['sub', 'amr'], email: ['email', 'email_verified'], profile: ['name', 'locale'], organization: ['orgs'] }

/**
 * What the provider makes of CLAIMS for an ID token (its helpers/configuration.js): the `openid`
 * scope's claims in order, `sub` added when absent, and the claims it supports, every scope's (each
 * scope CLAIMS names is one of its scopes). The fast refresh grant (fast/refresh-token.ts) picks
 * the ID token's claims with them.
 */
export const ID_TOKEN_CLAIMS: readonly string[] = CLAIMS.openid.includes('sub') ? CLAIMS.openid : [...CLAIMS.openid, 'sub']
export const CLAIMS_SUPPORTED: ReadonlySet<string> = new Set(Object.values(CLAIMS).flat())

// the keys handed to the provider (its `jwks.keys`), in their order: the fast refresh grant signs
// with the one the provider's keystore would select
let signingKeys: readonly JWK[] = []
/** The provider's signing keys, once it was built (useOidcProvider). */
export const providerSigningKeys = (): readonly JWK[] => signingKeys

/** Keys signing the provider's cookies: configured, else derived from secrets.codes (same on every instance). */
function cookieKeys(ctx: IamContext): string[] {
  const { secrets } = ctx.config
  if (secrets.oidcCookieKeys?.length) return [...secrets.oidcCookieKeys]
  if (!secrets.codes) throw new Error('secrets.codes is not configured')
  return [createHmac('sha256', secrets.codes).update('oidc-provider cookie signing').digest('base64url')]
}

/**
 * The secret of the provider's DPoP nonces (RFC 9449 section 8): 32 bytes derived from
 * secrets.codes, so every instance issues and accepts the same nonces. The library's nonces are
 * stateless (an HMAC over a time window), so nothing is stored.
 */
function dpopNonceSecret(ctx: IamContext): Buffer {
  const { secrets } = ctx.config
  if (!secrets.codes) throw new Error('secrets.codes is not configured')
  return createHmac('sha256', secrets.codes).update('oidc-provider DPoP nonces').digest()
}

type OidcCtx = KoaContextWithOIDC

/** The language of the provider's own pages: the request's Accept-Language (pages.ts). */
const localeOf = (octx: OidcCtx) => pageLocale(octx.get('accept-language'))

/** the library stops waiting after 2.5 s itself (its fetch helper); this bounds a call it did not */
const OUTBOUND_TIMEOUT_MS = 5_000
/** a key set, sector identifier document or request object is a few kilobytes */
const OUTBOUND_MAX_BYTES = 256 * 1024

/**
 * The provider's outbound HTTP (a client's jwks_uri, sector identifier, request_uri) goes through
 * the one guard every outbound call uses (shared/outbound.ts): https only, no special-use address
 * after resolution, redirects not followed, one deadline and a size cap. The library's own
 * dispatcher check is left unused because the guard decides before connecting. With
 * `oidc.allowLoopbackRequests` (development and tests, refused in production) loopback addresses
 * and plain http are allowed too.
 */
function outboundFetch(allowLoopback: boolean) {
  return guardedFetchApi({
    allowHttp: allowLoopback,
    allowAddresses: allowLoopback ? LOOPBACK_RANGES : [],
    timeoutMs: OUTBOUND_TIMEOUT_MS,
    maxBytes: OUTBOUND_MAX_BYTES,
  })
}

/** The scopes the provider knows: the OpenID ones and the APIs' own (a client's registered `scope` may name both). */
export function providerScopes(oidc: Pick<IamConfig['oidc'], 'resourceServers'>): string[] {
  return [...new Set(['openid', 'offline_access', 'profile', 'email', 'organization', ...oidc.resourceServers.flatMap((rs) => rs.scopes)])]
}

/** A lifetime in whole seconds, at least one, as the provider's `ttl` takes it. */
export const ttlSeconds = (ms: number): number => Math.max(1, Math.floor(ms / 1000))

/** How the adapter's sweep of expired artefacts runs after the answer (lib/background.ts); the fast client credentials grant sweeps the same way. */
export function sweepAfterResponse(ctx: Pick<IamContext, 'log'>): (task: () => Promise<void>) => void {
  return (task) => runAfterResponse(task, (error) => ctx.log.warn('oidc: sweeping expired artefacts failed', { error: error.message }))
}

/** Builds the provider for this IAM. */
export async function createOidcProvider(ctx: IamContext): Promise<Provider> {
  const { config, db } = ctx
  const { oidc } = config
  const ttl = oidc.ttl
  const keys = await loadOidcKeys(db, config)
  signingKeys = keys
  const httpsIssuer = new URL(oidc.issuer).protocol === 'https:'
  const resourceServers = new Map(oidc.resourceServers.map((rs) => [rs.indicator, rs]))
  const mayIntrospect = introspectionPolicy(oidc.resourceServers)
  // the pages the provider renders itself wear the team's brand (pages.ts)
  const look = pageLookOf(config.email)

  // the adapter's read-ahead finds each request through the provider's own context, `Provider.ctx`
  // (its public static getter: the Koa context of the request being served; request-memo.ts)
  readAheadContextFrom(() => Provider.ctx)
  const provider = new Provider(oidc.issuer, {
    adapter: createAdapterFactory({
      db,
      config,
      now: () => Date.now(),
      later: sweepAfterResponse(ctx),
    }),
    clients: [],
    fetch: outboundFetch(oidc.allowLoopbackRequests),
    jwks: { keys },
    cookies: {
      keys: cookieKeys(ctx),
      // The provider's session cookie stays on its own path, away from the rest of the gateway's
      // origin. Behind an https issuer it is SameSite=None (and Secure), so an app may also send
      // the authorization request and the sign-out as a cross-site form POST, which OIDC Core 3.1.2.1
      // and RP-Initiated Logout 1.0 section 2 require the endpoints to take; under Lax that POST
      // would arrive without the session and ask the person to sign in again. Browsers refuse
      // SameSite=None without Secure, so a plain-http issuer (dev) keeps Lax and GET only.
      long: { path: OIDC_MOUNT, httpOnly: true, sameSite: httpsIssuer ? 'none' : 'lax', secure: httpsIssuer },
      short: { httpOnly: true, sameSite: 'lax', secure: httpsIssuer },
    },
    enableHttpPostMethods: httpsIssuer,
    // authorization code only: no implicit or hybrid response hands tokens to the browser (RFC 9700 section 2.1.2)
    responseTypes: ['code'],
    // PKCE for every client, confidential ones too (RFC 9700 section 2.1.1): a client secret does
    // not stop an injected authorization code from being redeemed by the client it was issued to;
    // the library's default asks it of public clients only
    pkce: { required: () => true },
    claims: CLAIMS,
    // the OpenID scopes, and the APIs' own (a client's registered `scope` may name both)
    scopes: providerScopes(oidc),
    conformIdTokenClaims: true,
    extraClientMetadata: {
      properties: ['first_party'],
      validator(_ctx: OidcCtx | undefined, key: string, value: unknown) {
        if (key === 'first_party' && value !== undefined && typeof value !== 'boolean') throw new errors.InvalidClientMetadata('first_party must be a boolean')
      },
    },
    findAccount: (_ctx: OidcCtx, sub: string) => findOidcAccount(db, sub, Date.now()),
    interactions: { url: (_ctx: OidcCtx, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    // The team's own apps (first_party) get no consent page: their grant covers what they ask for.
    async loadExistingGrant(octx: OidcCtx) {
      const { client, session, provider: p } = octx.oidc
      if (!client || !session) return undefined
      const grantId = octx.oidc.result?.consent?.grantId || session.grantIdFor(client.clientId)
      const existing = grantId ? await p.Grant.find(grantId) : undefined
      if (client['first_party'] !== true || !session.accountId) return existing
      const grant = existing ?? new p.Grant({ clientId: client.clientId, accountId: session.accountId })
      if (!existing) {
        await recordOidcEvent(db, { type: 'oidc_app_authorized', accountId: session.accountId, ipAddress: octx.ip, details: { clientId: client.clientId, firstParty: true }, now: Date.now() })
      }
      grant.addOIDCScope([...octx.oidc.requestParamOIDCScopes].join(' '))
      const claims = [...octx.oidc.requestParamClaims]
      if (claims.length) grant.addOIDCClaims(claims)
      for (const [indicator, server] of Object.entries(octx.oidc.resourceServers ?? {}) as Array<[string, { scope?: string }]>) {
        const requested = [...octx.oidc.requestParamScopes].filter((s: string) => (server.scope ?? '').split(' ').includes(s))
        if (requested.length) grant.addResourceScope(indicator, requested.join(' '))
      }
      await grant.save()
      return grant
    },
    // the typings tie `introspection.enabled` to openid4vci's settings; the runtime takes it alone
    features: {
      devInteractions: { enabled: false },
      introspection: {
        enabled: true,
        // the library's default lets any confidential client introspect any token: a client learns
        // about its own tokens, a resource server about the access tokens for it, and nothing else
        // (introspection-policy.ts; the one-statement path asks the same function)
        allowedPolicy: (_octx: OidcCtx, client: { clientId: string; clientAuthMethod?: string }, token: { kind: string; clientId?: string; aud?: unknown }) =>
          mayIntrospect({ clientId: client.clientId, authenticated: client.clientAuthMethod !== undefined && client.clientAuthMethod !== 'none' }, { accessToken: token.kind === 'AccessToken' || token.kind === 'ClientCredentials', clientId: token.clientId, aud: token.aud }),
      },
      revocation: { enabled: true },
      userinfo: { enabled: true },
      clientCredentials: { enabled: true },
      // RFC 7591, off by default; with an initial access token unless opened on purpose. The
      // library compares the token in constant time. What a client may register for itself is
      // refused as it is stored (adapter.ts, registration-policy.ts).
      registration: {
        enabled: oidc.registration.enabled,
        initialAccessToken: oidc.registration.access === 'initialAccessToken' ? (config.secrets.oidcRegistrationToken ?? false) : false,
        issueRegistrationAccessToken: oidc.registration.management,
      },
      // RFC 7592: read, update, delete with the registration access token, which an update rotates
      registrationManagement: { enabled: oidc.registration.enabled && oidc.registration.management, rotateRegistrationAccessToken: true },
      clientIdMetadataDocument: clientIdMetadataDocumentFeature(oidc.clientIdMetadataDocuments, () => blockedHostPatterns(db, Date.now())),
      pushedAuthorizationRequests: { enabled: true },
      // DPoP (RFC 9449): a client that sends a proof to the token endpoint gets tokens bound to its
      // key (`cnf.jkt` in the JWT access token, token_type DPoP; a public client's refresh token is
      // bound too), which a resource server accepts only with a proof by that key (verifier/).
      // Proofs are checked for htm, htu, ath and a recent iat, their jti kept against replay; a
      // proof whose iat is off gets the provider's `use_dpop_nonce` answer with a DPoP-Nonce to
      // sign (section 8). Nonces are not required of every proof: oauth4webapi and the MCP
      // clients retry with one when asked, but a client that does not would fail every request.
      dPoP: { enabled: true, nonceSecret: dpopNonceSecret(ctx), requireNonce: () => false, allowReplay: false },
      backchannelLogout: { enabled: true },
      rpInitiatedLogout: {
        enabled: true,
        async logoutSource(octx: OidcCtx, form: string) {
          octx.body = signOutPage(localeOf(octx), form, octx.oidc.client?.clientName, look)
        },
        async postLogoutSuccessSource(octx: OidcCtx) {
          octx.body = signedOutPage(localeOf(octx), look)
        },
      },
      deviceFlow: {
        enabled: true,
        charset: 'base-20',
        mask: '****-****',
        async userCodeInputSource(octx: OidcCtx, form: string, _out: unknown, err?: { name?: string; userCode?: unknown }) {
          const problem = err ? (err.userCode || err.name === 'NoCodeError' ? 'invalid_code' : 'interrupted') : null
          // The provider's form holds a hidden xsrf field, then the text input named user_code: the
          // label, help text and autocomplete go on that input, and its inline onfocus handler,
          // which the page's CSP refuses, goes.
          const labelled = form
            .replace('name="user_code"', 'id="user_code" aria-describedby="user-code-help" name="user_code"')
            .replace('autocomplete="off"', 'autocomplete="one-time-code"')
            .replace(/\s+onfocus="[^"]*"/, '')
          octx.body = deviceInputPage(localeOf(octx), labelled, problem, look)
        },
        async userCodeConfirmSource(octx: OidcCtx, form: string, client: { clientName?: string; clientId: string }, _info: unknown, userCode: string) {
          octx.body = deviceConfirmPage(localeOf(octx), form, client.clientName || client.clientId, userCode, look)
        },
        async successSource(octx: OidcCtx) {
          const accountId = octx.oidc.session?.accountId
          if (accountId) {
            await recordOidcEvent(db, { type: 'oidc_device_approved', accountId, ipAddress: octx.ip, details: { clientId: octx.oidc.client?.clientId }, now: Date.now() })
          }
          octx.body = deviceDonePage(localeOf(octx), octx.oidc.client?.clientName, look)
        },
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: (_octx: OidcCtx, _client: unknown, oneOf?: readonly string[]) => oneOf ?? undefined,
        useGrantedResource: () => true,
        getResourceServerInfo(_octx: OidcCtx, indicator: string) {
          const server = resourceServers.get(indicator)
          if (!server) throw new errors.InvalidTarget()
          return {
            scope: server.scopes.join(' '),
            audience: indicator,
            accessTokenTTL: ttlSeconds(server.accessTokenTtlMs ?? ttl.accessTokenMs),
            ...(server.accessTokenFormat === 'opaque' ? { accessTokenFormat: 'opaque' } : { accessTokenFormat: 'jwt', jwt: { sign: { alg: 'RS256' } } }),
          }
        },
      },
    } as unknown as Configuration['features'],
    enabledJWA: {
      idTokenSigningAlgValues: ['RS256', 'ES256', 'EdDSA'],
      userinfoSigningAlgValues: ['RS256', 'ES256', 'EdDSA'],
    },
    ttl: {
      AccessToken: (_octx: OidcCtx, token: { resourceServer?: { accessTokenTTL?: number } }) => token.resourceServer?.accessTokenTTL ?? ttlSeconds(ttl.accessTokenMs),
      AuthorizationCode: ttlSeconds(ttl.authorizationCodeMs),
      ClientCredentials: (_octx: OidcCtx, token: { resourceServer?: { accessTokenTTL?: number } }) => token.resourceServer?.accessTokenTTL ?? ttlSeconds(ttl.clientCredentialsMs),
      DeviceCode: ttlSeconds(ttl.deviceCodeMs),
      Grant: ttlSeconds(ttl.grantMs),
      IdToken: ttlSeconds(ttl.idTokenMs),
      Interaction: ttlSeconds(ttl.interactionMs),
      RefreshToken: ttlSeconds(ttl.refreshTokenMs),
      Session: ttlSeconds(ttl.sessionMs),
    },
    async renderError(octx: OidcCtx, out: { error?: string; error_description?: string }) {
      octx.type = 'html'
      octx.body = errorPage(out, localeOf(octx), look)
    },
  })
  // URLs the provider prints are built from the issuer (routes/oidc sets the forwarded host and
  // scheme from it), never from what a request claims.
  provider.proxy = true
  // the bound on a client's live device codes (device-codes.ts), once the provider stored the new one
  provider.use(async (octx, next) => {
    await next()
    const oidcCtx = (octx as Partial<OidcCtx>).oidc
    if (octx.status !== 200 || oidcCtx?.route !== 'device_authorization' || !oidcCtx.client) return
    const max = oidc.deviceFlow.maxLiveCodesPerClient
    if ((await liveDeviceCodes(db, oidcCtx.client.clientId, Date.now())) <= max) return
    await oidcCtx.entities.DeviceCode?.destroy()
    // the library's own RFC 8628 error: its status and fields, as the provider renders its errors
    const refusal = new errors.SlowDown(tooManyDeviceCodes(max).error_description)
    octx.status = refusal.statusCode
    octx.body = { error: refusal.error, error_description: refusal.error_description }
  })
  // a client known only by its metadata document leaves no row of its own: the console's list
  // (client-directory.ts) learns of it when a person allows it and when it gets tokens
  const seen = (octx: OidcCtx) => {
    const client = octx.oidc?.client as (OidcCtx['oidc']['client'] & { clientIdMetadataDocument?: boolean }) | undefined
    if (!client?.clientIdMetadataDocument) return
    const input = { clientId: client.clientId, name: client.clientName ?? null, nowMs: Date.now() }
    runAfterResponse(() => recordDocumentClientSeen(db, input), (error) => ctx.log.warn('oidc: recording a document client failed', { error: error.message }))
  }
  provider.on('authorization.success', seen)
  provider.on('grant.success', seen)
  provider.on('server_error', (_octx: OidcCtx, error: Error) => ctx.log.error('oidc server error', { error: error.message }))
  // a back-channel logout the app's back end did not take: the session ended here all the same
  provider.on('backchannel.error', (_octx: OidcCtx, error: Error, client: { clientId: string }) =>
    ctx.log.warn('oidc back-channel logout not delivered', { clientId: client.clientId, error: error.message }),
  )
  return provider
}

let building: Promise<Provider> | undefined

/** The process's provider (built on first use). */
export function useOidcProvider(ctx: IamContext): Promise<Provider> {
  building ??= createOidcProvider(ctx).catch((error) => {
    building = undefined
    throw error
  })
  return building
}
