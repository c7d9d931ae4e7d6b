/**
 * The TXT lookup of domain verification: a seam, so tests point it at their own DNS server
 * (config `enterprise.dnsServers`) and the feature takes any `TxtLookup`. A name without records
 * answers an empty list; an unreachable resolver throws, and the caller says so instead of
 * calling the domain unverified.
 */
import { Resolver } from 'node:dns/promises'

/** Every TXT record of `name`, each joined from its strings (RFC 7208 section 3.3 joins them so too). */
export type TxtLookup = (name: string) => Promise<string[]>

const NO_RECORDS = new Set(['ENOTFOUND', 'ENODATA', 'NXDOMAIN'])

export function createTxtLookup(settings: { dnsServers?: readonly string[]; timeoutMs: number }): TxtLookup {
  return async (name) => {
    const resolver = new Resolver({ timeout: settings.timeoutMs, tries: 2 })
    if (settings.dnsServers?.length) resolver.setServers([...settings.dnsServers])
    try {
      const records = await resolver.resolveTxt(name)
      return records.map((chunks) => chunks.join(''))
    } catch (error) {
      if (NO_RECORDS.has((error as NodeJS.ErrnoException).code ?? '')) return []
      throw error
    }
  }
}
