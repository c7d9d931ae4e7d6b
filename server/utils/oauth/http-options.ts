/**
 * How the gateway calls an OAuth provider (oauth4webapi's per-call options):
 * - through the outbound guard (shared/outbound.ts): https, public addresses after resolution, no
 *   redirects followed, a deadline and a size cap; `outbound.allowAddresses` in the gateway config
 *   opens ranges on purpose (a provider on the company network);
 * - plain http and loopback only for a URL that names a loopback host (a local demo or test
 *   provider). That switch is derived from the URL being requested, never from a config flag, so
 *   no config value can downgrade a real provider.
 */
import { allowInsecureRequests, customFetch } from 'oauth4webapi'
import { guardedFetchApi, LOOPBACK_RANGES } from '../../../shared/outbound'
import { useGatewayConfig } from '../gateway-config'

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]'])

/** True for http:// URLs on a loopback host. */
export function isLoopbackHttp(url: string | URL): boolean {
  const parsed = typeof url === 'string' ? new URL(url) : url
  return parsed.protocol === 'http:' && LOOPBACK_HOSTS.has(parsed.hostname)
}

// A provider that accepts the connection and never answers would otherwise hold the callback open.
const PROVIDER_TIMEOUT_MS = 10_000
// discovery documents, key sets and token answers are kilobytes
const PROVIDER_MAX_BYTES = 1024 * 1024

type ProviderFetch = ReturnType<typeof guardedFetchApi>
let fetchers: { allow: readonly string[]; remote: ProviderFetch; loopback: ProviderFetch } | undefined

/** The guarded fetch for a call, built once per configured allow-list. */
function providerFetch(loopback: boolean): ProviderFetch {
  const allow = useGatewayConfig().outbound.allowAddresses
  if (fetchers?.allow !== allow) {
    const base = { timeoutMs: PROVIDER_TIMEOUT_MS, maxBytes: PROVIDER_MAX_BYTES }
    fetchers = {
      allow,
      remote: guardedFetchApi({ ...base, allowAddresses: allow }),
      loopback: guardedFetchApi({ ...base, allowHttp: true, allowAddresses: [...allow, ...LOOPBACK_RANGES] }),
    }
  }
  return loopback ? fetchers.loopback : fetchers.remote
}

/**
 * The oauth4webapi option bag for a request to `url`: the guarded fetch, a per-request timeout, and
 * the insecure switch for loopback http only.
 */
export function requestOptionsFor(url: string | URL | undefined): {
  [allowInsecureRequests]?: boolean
  [customFetch]: ProviderFetch
  signal: () => AbortSignal
} {
  const signal = () => AbortSignal.timeout(PROVIDER_TIMEOUT_MS)
  const loopback = url !== undefined && isLoopbackHttp(url)
  return loopback ? { [allowInsecureRequests]: true, [customFetch]: providerFetch(true), signal } : { [customFetch]: providerFetch(false), signal }
}
