/**
 * The key that signs the OAuth state cookie: `cookieSecret` from the gateway config. In the dev
 * profile (NODE_ENV is not production) a missing one is generated per process, with a warning:
 * flows in flight break on restart, and several instances would not accept each other's cookies.
 * In production a missing secret stops the start.
 */
import { randomBytes } from 'node:crypto'
import { GatewayConfigError, useGatewayConfig } from '../gateway-config'
import { logOAuth } from './log'

let generated: string | undefined

/** True when the process runs with NODE_ENV=production (read at run time, not inlined by the build). */
export function isProduction(): boolean {
  const { env } = process
  return env['NODE_ENV'] === 'production'
}

/** The state-cookie signing key; throws GatewayConfigError in production when none is configured. */
export function useCookieSecret(): string {
  const configured = useGatewayConfig().cookieSecret
  if (configured) return configured
  if (isProduction()) throw new GatewayConfigError('cookieSecret: required in production (at least 32 characters)')
  if (!generated) {
    // 32 bytes from the CSPRNG: 256 bits, the HMAC-SHA256 key size
    generated = randomBytes(32).toString('base64url')
    logOAuth('warn', 'cookieSecret is not configured: using a per-process secret (dev profile only)')
  }
  return generated
}
