/**
 * The feature bound to the booted IAM context, built once per context (memoised here, so the
 * context needs no extra fields): the library operations and the limiters.
 */
import type { IamContext } from '../../context'
import { createApiTokenLibrary, type ApiTokenLibrary } from './library'
import { createApiTokenLimiters, type ApiTokenLimiters } from './limiters'
import type { Result } from './results'
import { revokeAllApiTokens, type RevokeAllSuccess } from './revoke-all'

export type ApiTokenService = {
  library: ApiTokenLibrary
  limiters: ApiTokenLimiters
  rateLimitOnSuccessfulRequest: boolean
  revokeAll: (input: { userId: number; ipAddress: string; visitorRowId: number | null }) => Promise<Result<RevokeAllSuccess>>
}

const services = new WeakMap<IamContext, ApiTokenService>()

export function apiTokenService(ctx: IamContext): ApiTokenService {
  let service = services.get(ctx)
  if (!service) {
    service = {
      library: createApiTokenLibrary({ db: ctx.db, config: ctx.config, log: ctx.log, now: ctx.now }),
      limiters: createApiTokenLimiters(ctx.store, ctx.config.rate_limiters.apiTokensLimiters),
      rateLimitOnSuccessfulRequest: ctx.config.apiTokens.rateLimitOnSuccessfulRequest,
      revokeAll: (input) => revokeAllApiTokens(ctx, input),
    }
    services.set(ctx, service)
  }
  return service
}
