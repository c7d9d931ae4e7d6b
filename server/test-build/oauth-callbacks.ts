/**
 * Callbacks for the gateway tests (tests/gateway/oauth-plain.test.ts), registered by
 * ./oauth-test-callbacks.ts (test build only) when GATEWAY_TEST_OAUTH_CALLBACKS=1 outside production.
 * They talk to the fake OAuth2 provider next to the configured userInfoEndpoint, like a real
 * GitHub-style integration would (`/user/emails`, `/user/orgs`).
 */
import { useGatewayConfig } from '../utils/gateway-config'
import { registerProviderCallbacks, type ProviderCallbackContext } from '../utils/oauth/registry'

async function getJson(ctx: ProviderCallbackContext, path: string, accessToken: string): Promise<unknown> {
  if (ctx.provider.kind !== 'oauth') throw new Error('oauth providers only')
  const res = await fetch(new URL(path, ctx.provider.userInfoEndpoint), { headers: { authorization: `Bearer ${accessToken}` } })
  if (!res.ok) throw new Error(`${path} answered ${res.status}`)
  return res.json()
}

/** Registers the test callbacks for whichever of the test provider names are configured. */
export function registerTestCallbacks(): void {
  const names = new Set(useGatewayConfig().OAuthProviders.map((p) => p.name))
  if (names.has('fake-email')) {
    registerProviderCallbacks('fake-email', {
      async emailCallBack(accessToken, ctx) {
        const emails = (await getJson(ctx, '/user/emails', accessToken)) as Array<{ email: string; primary: boolean }>
        return emails.find((e) => e.primary)?.email
      },
    })
  }
  if (names.has('fake-extra')) {
    registerProviderCallbacks('fake-extra', {
      extraUserInfoCallBacks: [
        async (accessToken, ctx) => ({ orgs: await getJson(ctx, '/user/orgs', accessToken), plan: 'team' }),
        // conflicts with provider fields and the first callback: all three keys are dropped
        () => ({ email: 'attacker@evil.test', login: 'overwritten', plan: 'free', locale: 'fr' }),
      ],
    })
  }
  if (names.has('fake-throw')) {
    registerProviderCallbacks('fake-throw', {
      extraUserInfoCallBacks: [
        () => {
          throw new Error('extra user info backend down')
        },
      ],
    })
  }
}
