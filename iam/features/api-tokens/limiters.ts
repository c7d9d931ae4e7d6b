/**
 * The nine API token limiters (spec "API token rate limiters", Application rules 1-5), configured
 * under rate_limiters.apiTokensLimiters. Union and consumption limiters block permanently at their
 * first rejection, operation limiters at the second consecutive one (rule 2).
 *
 * Keys (rule 3): the union limiter by client IP (an IPv6 client by its /64, see limiterIpKey), `<IP>_list-metadata` for listing and
 * `<IP>_verify` for verification; operation limiters by `<IP>_<userId>`. The consumption limiter
 * also counts per token: under the SHA-256 of the presented value, so no raw token is ever a
 * storage key.
 */
import type { IamConfig } from '../../lib/config-schema'
import { limiterIpKey } from '../../lib/ip'
import type { SharedStore } from '../../lib/store'
import { createRateLimiter, type RateLimiter } from '../rate-limits/limiter'
import { hashToken } from './token-format'

export const OPERATION_ACTIONS = ['new-token', 'revoke', 'metadata', 'rotate', 'ip-restriction-update', 'privilege-update', 'revoke-all'] as const
export type OperationAction = (typeof OPERATION_ACTIONS)[number]

export type ApiTokenLimiters = {
  consumption: RateLimiter
  union: RateLimiter
  operations: Record<OperationAction, RateLimiter>
}

export function createApiTokenLimiters(
  store: SharedStore,
  config: IamConfig['rate_limiters']['apiTokensLimiters'],
): ApiTokenLimiters {
  const ops = config.operationRateLimits
  const operation = (name: string, spec: typeof ops.newTokenCreationLimiter) =>
    createRateLimiter(store, `api-tokens-${name}`, spec, { permanentAfter: 2 })
  return {
    consumption: createRateLimiter(store, 'api-tokens-consumption', config.consumptionRateLimiter, { permanentAfter: 1 }),
    union: createRateLimiter(
      store,
      'api-tokens-general-union',
      [config.generalUnionLimiter.burst, config.generalUnionLimiter.slow],
      { permanentAfter: 1 },
    ),
    operations: {
      'new-token': operation('new-token', ops.newTokenCreationLimiter),
      revoke: operation('revoke', ops.revokeTokensLimiter),
      metadata: operation('metadata', ops.getMetadataTokenLimiter),
      rotate: operation('rotate', ops.rotationRateLimiter),
      'ip-restriction-update': operation('ip-restriction-update', ops.ipRestrictionUpdate),
      'privilege-update': operation('privilege-update', ops.privilegeUpdate),
      // its own counter with revokeTokensLimiter's numbers (issue 11, 4.4: not a spec action)
      'revoke-all': operation('revoke-all', ops.revokeTokensLimiter),
    },
  }
}

/** `ip` is the client IP; the keys hold its limiterIpKey (an IPv6 client counts as its /64). */
export const limiterKeys = {
  ip: (ip: string) => limiterIpKey(ip),
  listing: (ip: string) => `${limiterIpKey(ip)}_list-metadata`,
  verify: (ip: string) => `${limiterIpKey(ip)}_verify`,
  operation: (ip: string, userId: number) => `${limiterIpKey(ip)}_${userId}`,
  token: (presented: string) => `token_${hashToken(presented)}`,
}
