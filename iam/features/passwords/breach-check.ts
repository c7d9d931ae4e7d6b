/**
 * Breached-password check through the k-anonymity range API (HIBP-compatible): only the first 5 hex
 * characters of the SHA-1 leave the process; `Add-Padding: true` hides the answer size. Results are
 * cached per prefix for a short time. When the service cannot be reached, `failOpen` decides.
 */
import { createHash } from 'node:crypto'
import { normalizePassword } from './hasher'

export interface BreachCheckSettings {
  enabled: boolean
  rangeApiUrl: string
  failOpen: boolean
  timeoutMs: number
}

/** clean also covers a skipped or failed-open check; unavailable only when failOpen is false */
export type BreachResult = 'clean' | 'breached' | 'unavailable'

const CACHE_MS = 5 * 60_000
const CACHE_MAX = 1000
const cache = new Map<string, { body: string; at: number }>()

async function fetchRange(settings: BreachCheckSettings, prefix: string, fetchImpl: typeof fetch): Promise<string> {
  const key = `${settings.rangeApiUrl}|${prefix}`
  const hit = cache.get(key)
  if (hit && Date.now() - hit.at < CACHE_MS) return hit.body
  const res = await fetchImpl(`${settings.rangeApiUrl}${prefix}`, {
    headers: { 'Add-Padding': 'true', 'User-Agent': 'identity-platform-iam' },
    signal: AbortSignal.timeout(settings.timeoutMs),
  })
  if (!res.ok) throw new Error(`range API answered ${res.status}`)
  const body = await res.text()
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value as string)
  cache.set(key, { body, at: Date.now() })
  return body
}

/** Whether the password appears in the breach corpus (count > 0; padding lines have count 0). */
export async function checkBreachedPassword(
  password: string,
  settings: BreachCheckSettings,
  warn: (msg: string, fields: Record<string, unknown>) => void,
  fetchImpl: typeof fetch = fetch,
): Promise<BreachResult> {
  if (!settings.enabled) return 'clean'
  const sha1 = createHash('sha1').update(normalizePassword(password), 'utf8').digest('hex').toUpperCase()
  const prefix = sha1.slice(0, 5)
  const suffix = sha1.slice(5)
  try {
    const body = await fetchRange(settings, prefix, fetchImpl)
    for (const line of body.split(/\r?\n/)) {
      const [hashSuffix, count] = line.trim().split(':')
      if (hashSuffix?.toUpperCase() === suffix && Number(count) > 0) return 'breached'
    }
    return 'clean'
  } catch (error) {
    warn('breach check unavailable', { failOpen: settings.failOpen, error: (error as Error).message })
    return settings.failOpen ? 'clean' : 'unavailable'
  }
}
