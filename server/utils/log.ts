/**
 * The gateway's logger: the same pino setup as the IAM (shared/log.ts: asynchronous stdout,
 * credential-shaped keys redacted at any depth), level from the config's `logLevel`.
 */
import { createLogger, type Logger } from '../../shared/log'
import { useGatewayConfig } from './gateway-config'

let logger: Logger | undefined

/** The process-wide logger (created on first use, after the config was parsed). */
export function useGatewayLog(): Logger {
  logger ??= createLogger(useGatewayConfig().logLevel, { app: 'gateway' })
  return logger
}
