/**
 * The feature bound to the booted IAM context, built once per context (memoised here, so the
 * context needs no extra fields): the library operations and the limiters' store.
 */
import type { IamContext } from '../../context'
import { createApiTokenLibrary, type ApiTokenLibrary } from './library-operations'
import type { LimiterDeps } from '../rate-limits/registry'
import type { Result } from './results'
import { recordSecurityEvent } from '../security-events/repository'
import { revokeAllApiTokens, type RevokeAllSuccess } from './revoke-all'

export type ApiTokenService = {
  library: ApiTokenLibrary
  /** where the registry's limiters live (rate-limits/registry.ts) */
  limiterDeps: LimiterDeps
  rateLimitOnSuccessfulRequest: boolean
  revokeAll: (input: { userId: number; ipAddress: string; visitorRowId: number | null }) => Promise<Result<RevokeAllSuccess>>
  /** the audit log entry of a token created, rotated or revoked (names and public identifiers only) */
  recordEvent: (input: TokenEventInput) => Promise<void>
}

export interface TokenEventInput {
  type: 'api_token_created' | 'api_token_rotated' | 'api_token_revoked'
  userId: number
  ipAddress: string
  visitorRowId: number | null
  details: { name: string; publicIdentifier?: string }
}

const services = new WeakMap<IamContext, ApiTokenService>()

export function apiTokenService(ctx: IamContext): ApiTokenService {
  let service = services.get(ctx)
  if (!service) {
    service = {
      library: createApiTokenLibrary({ db: ctx.db, config: ctx.config, log: ctx.log, now: ctx.now }),
      limiterDeps: ctx,
      rateLimitOnSuccessfulRequest: ctx.config.apiTokens.rateLimitOnSuccessfulRequest,
      revokeAll: (input) => revokeAllApiTokens(ctx, input),
      recordEvent: ({ visitorRowId, ...input }) => recordSecurityEvent(ctx.db, { ...input, visitorRowId, at: new Date(ctx.now()) }),
    }
    services.set(ctx, service)
  }
  return service
}
