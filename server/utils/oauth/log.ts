/** OAuth flow events in the gateway's log (server/utils/log.ts). Never pass tokens, codes, cookies or secrets here. */
import { useGatewayLog } from '../log'

export function logOAuth(level: 'info' | 'warn' | 'error', msg: string, fields: Record<string, unknown> = {}): void {
  useGatewayLog()[level](msg, { scope: 'oauth', ...fields })
}
