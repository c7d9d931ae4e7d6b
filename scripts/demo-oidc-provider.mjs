#!/usr/bin/env node
/**
 * A local OpenID provider (oidc-provider 9) for `npm start` and the gateway tests: one demo client,
 * one demo account, devInteractions as its login/consent UI. Development and tests only: it refuses
 * NODE_ENV=production and is never part of a production build.
 *
 * Run: `node scripts/demo-oidc-provider.mjs` (DEMO_OIDC_PORT, default 3002; DEMO_GATEWAY_URL, default
 * http://localhost:3000, the address npm start prints). On start it prints one JSON line `{"demoOidcProvider": {...}}` with the
 * gateway provider entry (`OAuthProviders[]` shape) that scripts/start.mjs can put in the gateway
 * config; `demoProviderEntry()` returns the same object for callers that import this file.
 *
 * Sign in on its login page with any login id; the account `demo` has the email demo@example.com,
 * any other id gets `<id>@example.com`.
 */
import { randomBytes } from 'node:crypto'
import { pathToFileURL } from 'node:url'
import Provider from 'oidc-provider'

export const DEMO_CLIENT_ID = 'demo-gateway'
// A fixed, public, dev-only secret: the demo provider runs on loopback for a local try-out.
export const DEMO_CLIENT_SECRET = 'demo-gateway-secret-not-for-production-use-0001'
export const DEMO_ACCOUNT = { sub: 'demo', email: 'demo@example.com', name: 'Demo User' }

function refuseProduction() {
  if (process.env['NODE_ENV'] === 'production') {
    throw new Error('demo-oidc-provider is a development/test tool and refuses NODE_ENV=production')
  }
}

/** The default account lookup: every login id is an account with a derived email. */
function defaultAccount(sub) {
  if (sub === DEMO_ACCOUNT.sub) return { ...DEMO_ACCOUNT, email_verified: true }
  return { sub, email: `${sub}@example.com`, email_verified: true, name: sub }
}

/**
 * Creates an oidc-provider instance.
 * @param {object} opts
 * @param {string} opts.issuer e.g. http://127.0.0.1:3002
 * @param {object[]} opts.clients oidc-provider client metadata
 * @param {(sub: string) => (Record<string, unknown> | undefined)} [opts.findAccount] claims by login id
 */
export function createOidcProvider({ issuer, clients, findAccount = defaultAccount }) {
  refuseProduction()
  const provider = new Provider(issuer, {
    clients,
    async findAccount(_ctx, sub) {
      const claims = findAccount(sub)
      if (!claims) return undefined
      return { accountId: sub, claims: async () => ({ ...claims, sub }) }
    },
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['name', 'given_name', 'family_name', 'picture'],
    },
    // per-process cookie keys: the demo keeps no state across restarts anyway
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    features: { devInteractions: { enabled: true } },
    // explicit lifetimes (seconds): short, as a local try-out needs, and no start-up notices
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
    // PKCE stays optional for confidential clients (so both gateway settings can be exercised);
    // the gateway sends it whenever supportPKCE is on.
    pkce: { required: () => false },
  })
  return provider
}

/** The gateway `OAuthProviders[]` entry for the demo provider. */
export function demoProviderEntry({ issuer, gatewayUrl }) {
  return {
    kind: 'oidc',
    name: 'demo',
    displayName: 'Demo OpenID provider',
    issuer,
    clientId: DEMO_CLIENT_ID,
    clientSecret: DEMO_CLIENT_SECRET,
    redirectUri: `${gatewayUrl}/oauth/callback/demo`,
    defaultScopes: ['openid', 'email', 'profile'],
    supportPKCE: true,
    redirectUrlOnSuccess: `${gatewayUrl}/account`,
    redirectUrlOnError: `${gatewayUrl}/auth/error`,
    tokenAuthMethod: 'client_secret_basic',
  }
}

async function main() {
  refuseProduction()
  const port = Number(process.env['DEMO_OIDC_PORT'] || 3002)
  const host = '127.0.0.1'
  const issuer = `http://${host}:${port}`
  const gatewayUrl = (process.env['DEMO_GATEWAY_URL'] || 'http://localhost:3000').replace(/\/+$/, '')
  const entry = demoProviderEntry({ issuer, gatewayUrl })
  const provider = createOidcProvider({
    issuer,
    clients: [
      {
        client_id: entry.clientId,
        client_secret: entry.clientSecret,
        redirect_uris: [entry.redirectUri],
        token_endpoint_auth_method: entry.tokenAuthMethod,
        response_types: ['code'],
        grant_types: ['authorization_code'],
      },
    ],
  })
  const server = provider.listen(port, host)
  await new Promise((resolve, reject) => {
    server.once('listening', resolve)
    server.once('error', reject)
  })
  console.log(JSON.stringify({ demoOidcProvider: entry }))
  const stop = () => server.close(() => process.exit(0))
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error) => {
    console.error(error instanceof Error ? error.message : error)
    process.exit(1)
  })
}
