import { crc32 as zlibCrc32 } from 'node:zlib'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { BASE62_ALPHABET, base62Width, encodeBase62, encodeBase62Integer } from '../../iam/features/api-tokens/base62'
import {
  checksumOf,
  generatePublicIdentifier,
  generateRawToken,
  hashToken,
  isValidPrefix,
  isValidPublicIdentifier,
  parseRawToken,
  storedHashOf,
} from '../../iam/features/api-tokens/token-format'

const base62Char = fc.constantFrom(...BASE62_ALPHABET.split(''))

describe('checksum', () => {
  // CRC-32 check values (zlib, RFC 1952) written as 6 base62 digits: the format secret scanners recompute
  it('is the CRC-32 of the UTF-8 text in 6 left-padded base62 characters', () => {
    expect(checksumOf('')).toBe('000000')
    expect(checksumOf('123456789')).toBe('3jZRME') // 0xcbf43926
    expect(checksumOf('a')).toBe('4GEHKN') // 0xe8b7be43
    expect(checksumOf('The quick brown fox jumps over the lazy dog')).toBe('1C9bYH') // 0x414fa339
  })

  it('accepts a raw token and a public identifier built by hand from the documented format', () => {
    const payload = '0'.repeat(43)
    expect(parseRawToken(`api_${payload}_2CZclj`)).toEqual({ prefix: 'api', payload, checksum: '2CZclj' })
    expect(parseRawToken(`api_${payload}_2CZclk`)).toBeNull()
    expect(isValidPublicIdentifier(`${'0'.repeat(22)}_2tfPFA`)).toBe(true)
  })
})

describe('base62', () => {
  it('uses fixed widths: 43 characters for 32 bytes, 22 for 16, 6 for a 32-bit checksum', () => {
    expect(base62Width(32)).toBe(43)
    expect(base62Width(16)).toBe(22)
    expect(encodeBase62Integer(0xffffffffn, 6)).toHaveLength(6)
  })

  it('is injective and round-trips through BigInt for any bytes of a given length', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (bytes) => {
        const text = encodeBase62(bytes)
        expect(text).toMatch(/^[0-9A-Za-z]{43}$/)
        let value = 0n
        for (const ch of text) value = value * 62n + BigInt(BASE62_ALPHABET.indexOf(ch))
        expect(value).toBe(BigInt(`0x${Buffer.from(bytes).toString('hex')}`))
      }),
    )
  })
})

describe('raw tokens', () => {
  it('have the shape <prefix>_<43 base62>_<6 base62 CRC-32 of the payload>', () => {
    const raw = generateRawToken()
    const [prefix, payload, checksum] = raw.split('_')
    expect(prefix).toBe('api')
    expect(payload).toMatch(/^[0-9A-Za-z]{43}$/)
    expect(checksum).toBe(encodeBase62Integer(BigInt(zlibCrc32(payload!)), 6))
    expect(parseRawToken(raw)).toEqual({ prefix, payload, checksum })
  })

  it('parse back for any valid prefix', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9-]{1,16}$/), (prefix) => {
        const raw = generateRawToken(prefix)
        expect(parseRawToken(raw)?.prefix).toBe(prefix)
      }),
    )
  })

  it('refuse prefixes with "_" or outside 1-16 of [A-Za-z0-9-]', () => {
    for (const bad of ['', 'a_b', '_', 'x'.repeat(17), 'ünï', 'a b', 'a.b']) {
      expect(isValidPrefix(bad)).toBe(false)
      expect(() => generateRawToken(bad)).toThrow()
    }
  })

  it('reject any single-character change of the payload or checksum', () => {
    const raw = generateRawToken('live')
    fc.assert(
      fc.property(fc.integer({ min: 5, max: raw.length - 1 }), base62Char, (index, ch) => {
        fc.pre(raw[index] !== ch && raw[index] !== '_')
        const changed = raw.slice(0, index) + ch + raw.slice(index + 1)
        // CRC-32 detects every single-symbol change of the payload; a changed checksum never matches
        expect(parseRawToken(changed)).toBeNull()
      }),
    )
  })

  it('reject missing components, extra components and non-strings', () => {
    const raw = generateRawToken()
    const [prefix, payload, checksum] = raw.split('_') as [string, string, string]
    for (const bad of [
      `${payload}_${checksum}`, `${prefix}_${payload}`, `${prefix}__${checksum}`, `_${payload}_${checksum}`,
      `${raw}_x`, `${prefix}_${payload}x_${checksum}`, `${raw} `, '', '___', 42, null, undefined, { raw },
      hashToken(raw),
    ]) {
      expect(parseRawToken(bad)).toBeNull()
    }
  })

  it('never accept arbitrary strings', () => {
    fc.assert(fc.property(fc.string({ maxLength: 120 }), (text) => {
      const parts = parseRawToken(text)
      if (parts) expect(checksumOf(parts.payload)).toBe(parts.checksum)
    }))
  })
})

describe('public identifiers', () => {
  it('are <22 base62>_<checksum> and validate', () => {
    const id = generatePublicIdentifier()
    expect(id).toMatch(/^[0-9A-Za-z]{22}_[0-9A-Za-z]{6}$/)
    expect(isValidPublicIdentifier(id)).toBe(true)
  })

  it('fail validation when any character changes', () => {
    const id = generatePublicIdentifier()
    fc.assert(
      fc.property(fc.integer({ min: 0, max: id.length - 1 }), base62Char, (index, ch) => {
        fc.pre(id[index] !== ch && id[index] !== '_')
        expect(isValidPublicIdentifier(id.slice(0, index) + ch + id.slice(index + 1))).toBe(false)
      }),
    )
    expect(isValidPublicIdentifier(`${id}x`)).toBe(false)
    expect(isValidPublicIdentifier(id.replace('_', ''))).toBe(false)
    expect(isValidPublicIdentifier(7)).toBe(false)
  })
})

describe('stored hash', () => {
  it('is the SHA-256 hex of the whole raw token, and a hash passes through unchanged', () => {
    const raw = generateRawToken()
    const hash = hashToken(raw)
    expect(hash).toMatch(/^[0-9a-f]{64}$/)
    expect(storedHashOf(raw)).toBe(hash)
    expect(storedHashOf(hash)).toBe(hash)
    expect(storedHashOf('api_nope_x')).toBeNull()
    expect(storedHashOf(hash.toUpperCase())).toBeNull()
  })
})
