/** OAuth flow events in the gateway's log (server/utils/log.ts). Never pass tokens, codes, cookies or secrets here. */
import { useGatewayLog } from '../log'
import type { OAuthRedirectError } from './error-codes'

export function logOAuth(level: 'info' | 'warn' | 'error', msg: string, fields: Record<string, unknown> = {}): void {
  useGatewayLog()[level](msg, { scope: 'oauth', ...fields })
}

/** A refused step of the flow (code exchange, userinfo): logged with the reason, then its failure result. */
export function oauthStepFailed(what: string, provider: { name: string }, error: OAuthRedirectError, reason: unknown): { ok: false; error: OAuthRedirectError } {
  logOAuth('warn', what, { provider: provider.name, error, reason: (reason as Error)?.message ?? String(reason) })
  return { ok: false, error }
}
