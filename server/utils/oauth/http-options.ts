/**
 * oauth4webapi refuses plain-http endpoints unless `allowInsecureRequests` is set on each call.
 * That switch is derived here from the URL being requested, never from configuration: only loopback
 * hosts qualify (a local demo or test provider), so no config value can downgrade a real provider.
 */
import { allowInsecureRequests } from 'oauth4webapi'

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]'])

/** True for http:// URLs on a loopback host. */
export function isLoopbackHttp(url: string | URL): boolean {
  const parsed = typeof url === 'string' ? new URL(url) : url
  return parsed.protocol === 'http:' && LOOPBACK_HOSTS.has(parsed.hostname)
}

// A provider that accepts the connection and never answers would otherwise hold the callback open.
const PROVIDER_TIMEOUT_MS = 10_000

/**
 * The oauth4webapi option bag for a request to `url`: a per-request timeout, and the insecure
 * switch for loopback http only.
 */
export function requestOptionsFor(url: string | URL | undefined): { [allowInsecureRequests]?: boolean; signal: () => AbortSignal } {
  const signal = () => AbortSignal.timeout(PROVIDER_TIMEOUT_MS)
  return url !== undefined && isLoopbackHttp(url) ? { [allowInsecureRequests]: true, signal } : { signal }
}
