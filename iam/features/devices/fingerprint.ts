/**
 * The request fingerprint (what anomaly checks compare a device by, docs/anomalies.md): user agent parsed with ua-parser-js 1.x
 * (MIT; 2.x is AGPL), `isbot` for crawlers, our AI-agent list for `botAI`, and geo/ASN/proxy
 * fields when a geo database is configured. Pure: the geo lookup is passed in.
 */
import { isbot } from 'isbot'
import UAParser from 'ua-parser-js'
import { isAiCrawler } from './ai-crawlers'
import type { GeoFields, GeoLookup } from './geo'

export interface FingerPrint extends GeoFields {
  userAgent: string
  ipAddress: string
  /** ua-parser device type, or "desktop" when the agent names none */
  device: string
  bot: boolean
  botAI: boolean
  deviceVendor?: string
  deviceModel?: string
  browser?: string
  browserType?: string
  browserVersion?: string
  os?: string
}

type AgentFields = Pick<FingerPrint, 'device' | 'bot' | 'botAI' | 'deviceVendor' | 'deviceModel' | 'browser' | 'browserType' | 'browserVersion' | 'os'>

function parseAgent(userAgent: string): AgentFields {
  const ua = new UAParser(userAgent).getResult()
  const botAI = isAiCrawler(userAgent)
  const bot = botAI || isbot(userAgent)
  return {
    device: ua.device.type ?? 'desktop',
    bot,
    botAI,
    deviceVendor: ua.device.vendor,
    deviceModel: ua.device.model,
    browser: ua.browser.name,
    browserType: bot ? 'crawler' : ua.browser.name ? 'browser' : undefined,
    browserVersion: ua.browser.version,
    os: ua.os.name,
  }
}

// Parsing the user agent was the largest piece of in-process work of full authentication after
// the token signature (docs/performance.md), and a signed-in browser sends the same one every time.
// Bounded in entries and key length, oldest evicted first: a flood of random agents costs memory
// no more than AGENT_CACHE_MAX short strings.
const AGENT_CACHE_MAX = 1000
const AGENT_KEY_MAX = 512
const agentCache = new Map<string, AgentFields>()

function agentFieldsOf(userAgent: string): AgentFields {
  const cached = agentCache.get(userAgent)
  if (cached) return cached
  const fields = parseAgent(userAgent)
  if (userAgent.length <= AGENT_KEY_MAX) {
    if (agentCache.size >= AGENT_CACHE_MAX) agentCache.delete(agentCache.keys().next().value!)
    agentCache.set(userAgent, Object.freeze(fields))
  }
  return fields
}

/** Builds the fingerprint of one request (fields the agent or the geo database leave undefined are absent). */
export function buildFingerPrint(userAgent: string, ipAddress: string, geo: GeoLookup | null): FingerPrint {
  const fp: FingerPrint = { userAgent, ipAddress, device: '', bot: false, botAI: false }
  // copied key by key rather than spread and then `delete`d: a delete turns the object into a
  // slow dictionary-mode object for every later read (the nine checks read it on every request)
  const parts: object[] = [agentFieldsOf(userAgent), geo?.(ipAddress) ?? {}]
  for (const part of parts) {
    for (const [key, value] of Object.entries(part)) if (value !== undefined) (fp as unknown as Record<string, unknown>)[key] = value
  }
  return fp
}

// A signed-in client sends the same agent from the same address on every request, and full
// authentication runs on each of them (see docs/performance.md). The whole fingerprint is
// a pure function of the agent, the address and the geo database, so it is kept per (geo source,
// address, agent), bounded and evicted like the agent cache; the entries are frozen because every
// request with those values shares one object (req.fingerPrint).
const PRINT_CACHE_MAX = 2000
const prints = new Map<string, Readonly<FingerPrint>>()

/**
 * buildFingerPrint through a bounded cache. `geoSource` names the geo database `geo` reads (its
 * path; any string when `geo` is null): two sources never share an entry.
 */
export function cachedFingerPrint(userAgent: string, ipAddress: string, geo: GeoLookup | null, geoSource: string): Readonly<FingerPrint> {
  if (userAgent.length > AGENT_KEY_MAX) return buildFingerPrint(userAgent, ipAddress, geo)
  const key = `${geo ? geoSource : ''}\n${ipAddress}\n${userAgent}`
  const cached = prints.get(key)
  if (cached) return cached
  const fp = Object.freeze(buildFingerPrint(userAgent, ipAddress, geo))
  if (prints.size >= PRINT_CACHE_MAX) prints.delete(prints.keys().next().value!)
  prints.set(key, fp)
  return fp
}

/** Score contributions; a device at or over `banScore` is banned, at 25% it is a reputation anomaly. */
export const SCORE = { aiCrawler: 100, bot: 10, emptyUserAgent: 10, proxy: 30, hosting: 30 } as const

/** The bot-detector score of one fingerprint (0 = nothing suspicious). */
export function scoreFingerPrint(fp: FingerPrint): number {
  let score = 0
  if (fp.botAI) score += SCORE.aiCrawler
  else if (fp.bot) score += SCORE.bot
  if (!fp.userAgent.trim()) score += SCORE.emptyUserAgent
  if (fp.proxy) score += SCORE.proxy
  if (fp.hosting) score += SCORE.hosting
  return score
}
