/**
 * The person's time zone as the gateway and the IAM read it (iam/contract/time-zones.ts): an IANA
 * name the runtime knows comes back in its own spelling; anything else is null, never a throw.
 */
import { describe, expect, it } from 'vitest'
import { readTimeZone, TIME_ZONE_MAX } from '../../iam/contract/time-zones'

describe('readTimeZone', () => {
  it('gives the canonical name of a zone the runtime knows', () => {
    expect(readTimeZone('Europe/Berlin')).toBe('Europe/Berlin')
    expect(readTimeZone('europe/berlin')).toBe('Europe/Berlin')
    // a current name ICU knows by its old one (Asia/Katmandu) stays as the browser wrote it
    expect(readTimeZone('America/Argentina/Buenos_Aires')).toBe('America/Argentina/Buenos_Aires')
    expect(readTimeZone('Asia/Kathmandu')).toBe('Asia/Kathmandu')
    expect(readTimeZone('Asia/Kolkata')).toBe('Asia/Kolkata')
    expect(readTimeZone('UTC')).toBe('UTC')
    expect(readTimeZone('Etc/GMT+1')).toBe('Etc/GMT+1')
  })

  it('gives null for an unknown zone, an offset, a hostile or oversized value, and a non-string', () => {
    for (const value of ['Mars/Olympus_Mons', 'Berlin', '+01:00', '-0500', 'Europe/Berlin\r\nX: 1', '../etc/passwd', '<script>', '', 'A'.repeat(TIME_ZONE_MAX + 1), 42, null, undefined, ['Europe/Berlin'], {}]) {
      expect(readTimeZone(value), JSON.stringify(value) ?? String(value)).toBeNull()
    }
  })
})
