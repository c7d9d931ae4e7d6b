/**
 * The provider registry: providers are data (`OAuthProviders` in GATEWAY_CONFIG), and the only
 * code per provider is the optional function callbacks registered here (gateway.md, callbacks),
 * typically from a Nitro plugin. One flow serves every provider.
 */
import { useGatewayConfig, GatewayConfigError, type ProviderConfig } from '../gateway-config'

/** What a callback may look at besides the access token. */
export interface ProviderCallbackContext {
  provider: ProviderConfig
  /** the user object as the provider returned it (read-only: return new fields instead) */
  user: Readonly<Record<string, unknown>>
}

/** Returns the user's email for an access token (called when the profile has none). */
export type EmailCallback = (
  accessToken: string,
  ctx: ProviderCallbackContext,
) => Promise<string | null | undefined> | string | null | undefined

/** Returns extra user fields; merged with mode drop (existing fields win). */
export type ExtraUserInfoCallback = (
  accessToken: string,
  ctx: ProviderCallbackContext,
) => Promise<Record<string, unknown>> | Record<string, unknown>

export interface ProviderCallbacks {
  emailCallBack?: EmailCallback
  extraUserInfoCallBacks?: ExtraUserInfoCallback[]
}

/** A configured provider with its registered callbacks. */
export interface RegisteredProvider {
  config: ProviderConfig
  callbacks: ProviderCallbacks
}

const registered = new Map<string, ProviderCallbacks>()

/**
 * Registers function callbacks for the `oauth` provider `name`. Throws (stopping the start when
 * called from a plugin) for an unknown or oidc provider, a second registration, or non-functions.
 */
export function registerProviderCallbacks(name: string, callbacks: ProviderCallbacks): void {
  const provider = useGatewayConfig().OAuthProviders.find((p) => p.name === name)
  if (!provider) throw new GatewayConfigError(`registerProviderCallbacks: no provider "${name}" in OAuthProviders`)
  // gateway.md: callbacks apply to oauth providers; an OIDC profile comes from verified claims only
  if (provider.kind !== 'oauth') throw new GatewayConfigError(`registerProviderCallbacks: "${name}" is ${provider.kind}; callbacks are for oauth providers`)
  if (registered.has(name)) throw new GatewayConfigError(`registerProviderCallbacks: "${name}" already has callbacks`)
  const { emailCallBack, extraUserInfoCallBacks = [] } = callbacks
  if (emailCallBack !== undefined && typeof emailCallBack !== 'function') {
    throw new GatewayConfigError(`registerProviderCallbacks: "${name}".emailCallBack must be a function`)
  }
  if (!Array.isArray(extraUserInfoCallBacks) || extraUserInfoCallBacks.some((cb) => typeof cb !== 'function')) {
    throw new GatewayConfigError(`registerProviderCallbacks: "${name}".extraUserInfoCallBacks must be a list of functions`)
  }
  registered.set(name, Object.freeze({ emailCallBack, extraUserInfoCallBacks: [...extraUserInfoCallBacks] }))
}

/** The provider named `name`, or undefined (the routes answer 404). */
export function findProvider(name: string): RegisteredProvider | undefined {
  const config = useGatewayConfig().OAuthProviders.find((p) => p.name === name)
  if (!config) return undefined
  return { config, callbacks: registered.get(name) ?? {} }
}
