/** Small pure helpers of the API-token pages. */
export const PRIVILEGES = ['demo', 'restricted', 'protected', 'full', 'custom'] as const

/** "1.2.3.4, 5.6.7.8" or one per line -> ['1.2.3.4', '5.6.7.8']. */
export function parseIpList(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean)
}

/** Dotted-quad IPv4, each part 0-255 without leading zeros. */
export function isIpv4(value: string): boolean {
  return /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/.test(value)
}

export interface TokenListEntry {
  id: number
  name: string
  created_at: string
  expires_at: string | null
  restricted_to_ip_address: string[] | null
  public_identifier: string
  last_used: string | null
  usage_count: number
  privilege_type: string
}
