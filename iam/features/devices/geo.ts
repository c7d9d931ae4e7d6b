/**
 * Geo/ASN/proxy data from a MaxMind-format database (`geo.mmdbPath`). Reads the GeoIP2 / GeoLite2 /
 * DB-IP shapes (City, Country, ASN, Anonymous-IP traits) from one file; absent fields stay absent.
 * Without a path, or when the file cannot be read, lookups return null and the fingerprint simply
 * has no geo fields.
 */
import maxmind, { type Reader, type Response } from 'maxmind'

export interface GeoFields {
  country?: string
  countryCode?: string
  region?: string
  regionName?: string
  city?: string
  district?: string
  lat?: number
  lon?: number
  timezone?: string
  currency?: string
  isp?: string
  org?: string
  as_org?: string
  asn?: number
  proxy?: boolean
  hosting?: boolean
}

export type GeoLookup = (ip: string) => GeoFields | null

type Rec = Record<string, unknown>
const obj = (value: unknown): Rec | undefined => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Rec) : undefined)
const str = (value: unknown): string | undefined => (typeof value === 'string' && value ? value : undefined)
const num = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined)
const bool = (value: unknown): boolean | undefined => (typeof value === 'boolean' ? value : undefined)
const name = (value: unknown): string | undefined => str(obj(obj(value)?.names)?.en)

/** Maps one mmdb record to the fingerprint's geo fields (pure). */
export function geoFromRecord(record: Rec): GeoFields {
  const country = obj(record.country)
  const subdivision = obj(Array.isArray(record.subdivisions) ? record.subdivisions[0] : undefined)
  const location = obj(record.location)
  const traits = obj(record.traits) ?? {}
  const out: GeoFields = {
    country: name(country),
    countryCode: str(country?.iso_code),
    region: str(subdivision?.iso_code),
    regionName: name(subdivision),
    city: name(record.city),
    district: name(record.postal) ?? undefined,
    lat: num(location?.latitude),
    lon: num(location?.longitude),
    timezone: str(location?.time_zone),
    currency: str(record.currency),
    isp: str(traits.isp) ?? str(record.isp),
    org: str(traits.organization) ?? str(record.organization),
    as_org: str(record.autonomous_system_organization) ?? str(traits.autonomous_system_organization),
    asn: num(record.autonomous_system_number) ?? num(traits.autonomous_system_number),
    proxy:
      bool(traits.is_anonymous_proxy) ?? bool(traits.is_anonymous) ?? bool(traits.is_public_proxy) ?? bool(record.is_anonymous),
    hosting: bool(traits.is_hosting_provider) ?? bool(record.is_hosting_provider),
  }
  for (const key of Object.keys(out) as (keyof GeoFields)[]) if (out[key] === undefined) delete out[key]
  return out
}

const readers = new Map<string, Promise<Reader<Response> | null>>()

/** Opens (once per path) the mmdb; null when it cannot be read. Never throws. */
export async function openGeoLookup(path: string | undefined, warn: (msg: string, fields: Rec) => void): Promise<GeoLookup | null> {
  if (!path) return null
  let reader = readers.get(path)
  if (!reader) {
    reader = maxmind.open<Response>(path, { watchForUpdates: false }).catch((error: Error) => {
      warn('geo database unreadable: geo fields are omitted', { path, error: error.message })
      return null
    })
    readers.set(path, reader)
  }
  const opened = await reader
  if (!opened) return null
  return (ip: string) => {
    try {
      const record = opened.get(ip)
      return record ? geoFromRecord(record as unknown as Rec) : null
    } catch {
      return null
    }
  }
}
