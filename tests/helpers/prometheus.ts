/**
 * A strict reader of the Prometheus text exposition format (0.0.4): HELP and TYPE lines, samples
 * `name{label="value",...} value [timestamp]`, label values with \\ \" \n escapes. Throws on any
 * line it cannot read, on a sample of an undeclared family, on a family declared twice and on a
 * repeated series, so a test that reads /metrics through it also checks the format.
 */
export interface Sample {
  name: string
  labels: Record<string, string>
  value: number
}

export interface Exposition {
  types: Map<string, string>
  samples: Sample[]
  /** the value of one series; undefined when absent */
  value(name: string, labels?: Record<string, string>): number | undefined
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped'])
const SUFFIXES: Record<string, string[]> = { histogram: ['_bucket', '_sum', '_count'], summary: ['_sum', '_count', ''] }

// Prometheus reads values with Go's ParseFloat, which takes NaN and Inf in any case (prom-client writes `Nan`).
function parseValue(text: string, line: string): number {
  const lower = text.toLowerCase()
  if (lower === '+inf' || lower === 'inf') return Infinity
  if (lower === '-inf') return -Infinity
  if (lower === 'nan') return NaN
  if (!/^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/.test(text)) throw new Error(`bad sample value in: ${line}`)
  return Number(text)
}

/** Reads `{a="x",b="y"}` from `text` at `start` (the `{`); returns the labels and the index after `}`. */
function parseLabels(text: string, start: number, line: string): { labels: Record<string, string>; end: number } {
  const labels: Record<string, string> = {}
  let i = start + 1
  const fail = (): never => {
    throw new Error(`bad labels in: ${line}`)
  }
  while (text[i] !== '}') {
    const eq = text.indexOf('=', i)
    if (eq === -1) fail()
    const name = text.slice(i, eq)
    if (!LABEL_NAME.test(name) || name in labels || text[eq + 1] !== '"') fail()
    let value = ''
    let j = eq + 2
    for (; j < text.length && text[j] !== '"'; j++) {
      if (text[j] === '\\') {
        const next = text[++j]
        if (next === 'n') value += '\n'
        else if (next === '\\' || next === '"') value += next
        else fail()
      } else value += text[j]
    }
    if (j >= text.length) fail()
    labels[name] = value
    i = j + 1
    if (text[i] === ',') i++
    else if (text[i] !== '}') fail()
  }
  return { labels, end: i + 1 }
}

const seriesKey = (name: string, labels: Record<string, string>) =>
  `${name}{${Object.entries(labels).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(',')}}`

export function parsePrometheusText(text: string): Exposition {
  const types = new Map<string, string>()
  const samples: Sample[] = []
  const seen = new Map<string, number>()
  const familyOf = (name: string): string | undefined => {
    if (types.has(name)) return name
    for (const [family, type] of types) {
      if ((SUFFIXES[type] ?? []).some((suffix) => suffix && name === family + suffix)) return family
    }
    return undefined
  }
  for (const line of text.split('\n')) {
    if (line === '') continue
    if (line.startsWith('#')) {
      const match = /^# (HELP|TYPE) (\S+)(?: (.*))?$/.exec(line)
      if (!match) {
        if (/^# (HELP|TYPE)\b/.test(line)) throw new Error(`bad comment line: ${line}`)
        continue
      }
      const [, kind, name = '', rest = ''] = match
      if (!METRIC_NAME.test(name)) throw new Error(`bad metric name: ${line}`)
      if (kind === 'TYPE') {
        if (!TYPES.has(rest)) throw new Error(`unknown type: ${line}`)
        if (types.has(name)) throw new Error(`family declared twice: ${name}`)
        types.set(name, rest)
      }
      continue
    }
    const nameEnd = line.search(/[{ ]/)
    if (nameEnd <= 0) throw new Error(`bad sample line: ${line}`)
    const name = line.slice(0, nameEnd)
    if (!METRIC_NAME.test(name)) throw new Error(`bad metric name: ${line}`)
    let labels: Record<string, string> = {}
    let rest = line.slice(nameEnd)
    if (rest.startsWith('{')) {
      const parsed = parseLabels(line, nameEnd, line)
      labels = parsed.labels
      rest = line.slice(parsed.end)
    }
    const parts = rest.trim().split(' ')
    if (!rest.startsWith(' ') || parts.length < 1 || parts.length > 2) throw new Error(`bad sample line: ${line}`)
    if (parts[1] !== undefined && !/^-?\d+$/.test(parts[1])) throw new Error(`bad timestamp: ${line}`)
    if (!familyOf(name)) throw new Error(`sample of an undeclared family: ${line}`)
    const key = seriesKey(name, labels)
    if (seen.has(key)) throw new Error(`series repeated: ${key}`)
    const value = parseValue(parts[0] ?? '', line)
    seen.set(key, value)
    samples.push({ name, labels, value })
  }
  return { types, samples, value: (name, labels = {}) => seen.get(seriesKey(name, labels)) }
}

/**
 * A scrape from loopback that names itself: most test servers trust a proxy on loopback
 * (PROXY_CONFIG), and a request from that proxy naming no client is never on the metrics
 * allow-list (shared/metrics-access.ts). `::1` is on the default list and is not the proxy's
 * address; a server that trusts no proxy ignores the header and sees the loopback socket.
 */
export const LOOPBACK_SCRAPER = { 'x-forwarded-for': '::1' } as const

/** GET `<baseUrl>/metrics` that must answer 200 Prometheus text; the parsed exposition. */
export async function scrapeMetrics(baseUrl: string, headers: Record<string, string> = LOOPBACK_SCRAPER): Promise<Exposition> {
  const res = await fetch(`${baseUrl}/metrics`, { headers })
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`)
  const type = res.headers.get('content-type') ?? ''
  if (!/^text\/plain; version=0\.0\.4/.test(type)) throw new Error(`/metrics content-type: ${type}`)
  return parsePrometheusText(await res.text())
}

/** How much one series moved between two scrapes (absent = 0). */
export const moved = (before: Exposition, after: Exposition, name: string, labels: Record<string, string> = {}): number =>
  (after.value(name, labels) ?? 0) - (before.value(name, labels) ?? 0)
