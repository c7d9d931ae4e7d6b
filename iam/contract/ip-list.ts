/**
 * IP allow-lists of API tokens: IPv4 only (docs/api-tokens.md), IPv4-mapped IPv6 (`::ffff:a.b.c.d`) normalised
 * to IPv4 on write and on check, duplicates dropped, an empty list = no restriction.
 * Pure (zod's IPv4 grammar, the same as node:net isIPv4): the request schemas of the route table use it.
 */
import { z } from 'zod'

export const MAX_ALLOWED_IPS = 64

const ipv4 = z.ipv4()
const isIPv4 = (value: string): boolean => ipv4.safeParse(value).success

/** `::ffff:1.2.3.4` -> `1.2.3.4`; other addresses unchanged. */
export function normalizeMappedIp(ip: string): string {
  const match = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip)
  return match ? match[1]! : ip
}

/**
 * The list as stored: null for no restriction (omitted, null or empty), the normalised unique
 * IPv4 addresses otherwise, or undefined when an entry is not an IPv4 address.
 */
export function toStoredIpList(list: readonly unknown[] | null | undefined): string[] | null | undefined {
  if (list === null || list === undefined || list.length === 0) return null
  if (list.length > MAX_ALLOWED_IPS) return undefined
  const out: string[] = []
  for (const entry of list) {
    if (typeof entry !== 'string') return undefined
    const ip = normalizeMappedIp(entry.trim())
    if (!isIPv4(ip)) return undefined
    if (!out.includes(ip)) out.push(ip)
  }
  return out
}
