/**
 * The limiters the configuration names (`rate_limiters`), built once per store. The API token
 * limiters follow the spec's table and application rules 1-3: union and consumption limiters block
 * permanently on their 1st rejection, operation limiters on their 2nd consecutive one. Keys are the
 * callers' business (rule 3: `IP`, `IP_list-metadata`, `IP_verify`, `IP_userId`).
 */
import type { IamConfig } from '../../lib/config-schema'
import type { SharedStore } from '../../lib/store'
import { createRateLimiter, type RateLimiter } from './limiter'

export type ApiTokenOperation =
  | 'newTokenCreationLimiter'
  | 'revokeTokensLimiter'
  | 'getMetadataTokenLimiter'
  | 'rotationRateLimiter'
  | 'ipRestrictionUpdate'
  | 'privilegeUpdate'

/** The other configured limiters (DESIGN section 4; no permanent block: they may be keyed by subject). */
export type AuthLimiterName = 'signup' | 'login' | 'oauth' | 'refresh' | 'links' | 'codes' | 'forgotPassword' | 'emails' | 'check' | 'resendVerification'

export interface ConfiguredLimiters {
  /** failed verifications only (rule 5); permanent block on the 1st rejection */
  consumption: RateLimiter
  /** burst + slow parts as one union; permanent block on the 1st rejection */
  generalUnion: RateLimiter
  /** per management operation, keyed `IP_userId`; permanent block on the 2nd consecutive rejection */
  operations: Record<ApiTokenOperation, RateLimiter>
  auth: Record<AuthLimiterName, RateLimiter>
}

const built = new WeakMap<SharedStore, ConfiguredLimiters>()

/** The configured limiters over `store` (memoised per store: one set per booted context). */
export function getConfiguredLimiters(store: SharedStore, config: Pick<IamConfig, 'rate_limiters'>): ConfiguredLimiters {
  const existing = built.get(store)
  if (existing) return existing
  const rl = config.rate_limiters
  const api = rl.apiTokensLimiters
  const operations = Object.fromEntries(
    Object.entries(api.operationRateLimits).map(([name, spec]) => [
      name,
      createRateLimiter(store, `api.${name}`, spec, { permanentAfter: 2 }),
    ]),
  ) as Record<ApiTokenOperation, RateLimiter>
  const authNames: AuthLimiterName[] = ['signup', 'login', 'oauth', 'refresh', 'links', 'codes', 'forgotPassword', 'emails', 'check', 'resendVerification']
  const auth = Object.fromEntries(authNames.map((name) => [name, createRateLimiter(store, `auth.${name}`, rl[name])])) as Record<
    AuthLimiterName,
    RateLimiter
  >
  const limiters: ConfiguredLimiters = {
    consumption: createRateLimiter(store, 'api.consumption', api.consumptionRateLimiter, { permanentAfter: 1 }),
    generalUnion: createRateLimiter(store, 'api.generalUnion', [api.generalUnionLimiter.burst, api.generalUnionLimiter.slow], {
      permanentAfter: 1,
    }),
    operations,
    auth,
  }
  built.set(store, limiters)
  return limiters
}
