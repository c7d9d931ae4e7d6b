/**
 * Whether an endpoint URL may be stored: the outbound guard's rules (shared/outbound.ts) checked
 * when an administrator names it, so a URL that could never be delivered to (http, credentials, an
 * internal address) is refused with a reason at once. The guard checks again on every delivery,
 * against the addresses the name resolves to then (a name that later resolves to an internal
 * address is refused there: DNS rebinding).
 */
import { isIP } from 'node:net'
import { addressAllowed, resolveHost, type OutboundPolicy } from '../../../shared/outbound'
import { WEBHOOK_URL_MAX } from '../../contract/webhooks'

export type UrlCheck = { ok: true; url: string } | { ok: false; message: string }

type Policy = Pick<OutboundPolicy, 'allowHttp' | 'allowAddresses' | 'timeoutMs'>

export async function checkEndpointUrl(raw: string, policy: Policy, resolve = defaultResolve): Promise<UrlCheck> {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return { ok: false, message: 'url: not an absolute URL' }
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowHttp)) return { ok: false, message: 'url: https only' }
  if (url.username || url.password) return { ok: false, message: 'url: no user name or password in it' }
  if (url.hash) return { ok: false, message: 'url: no fragment' }
  // what is stored and sent is the URL written out: characters outside ASCII take three or more each
  if (url.href.length > WEBHOOK_URL_MAX) return { ok: false, message: `url: at most ${WEBHOOK_URL_MAX} characters once written out (a character outside ASCII counts as several)` }
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname
  let addresses: string[]
  if (isIP(host)) addresses = [host]
  else {
    // a name server that never answers costs the request its deadline, not the caller's patience
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<'late'>((settle) => (timer = setTimeout(() => settle('late'), policy.timeoutMs)))
    try {
      const found = await Promise.race([resolve(host), late])
      if (found === 'late') return { ok: false, message: `url: ${host} did not resolve within ${policy.timeoutMs} ms` }
      addresses = found
    } catch {
      return { ok: false, message: `url: ${host} does not resolve` }
    } finally {
      clearTimeout(timer)
    }
    if (addresses.length === 0) return { ok: false, message: `url: ${host} does not resolve` }
  }
  const refused = addresses.find((address) => !addressAllowed(address, policy))
  if (refused === host) return { ok: false, message: `url: ${host} is an address deliveries may not reach` }
  if (refused) return { ok: false, message: `url: ${host} resolves to ${refused}, which deliveries may not reach` }
  return { ok: true, url: url.href }
}

async function defaultResolve(host: string): Promise<string[]> {
  return (await resolveHost(host)).map((a) => a.address)
}
