import { describe, expect, it } from 'vitest'
import { computeSignature, GATEWAY_PURPOSES, sha256Hex, signaturesMatch, signRequest, signRequestV2, signRequestV3, stringToSign, stringToSignV2, stringToSignV3 } from '../../iam/client/hmac'
import type { CallerPurpose } from '../../iam/contract/define'
import { UNNAMED_PURPOSES, verifyHmacRequest, type HmacInput } from '../../iam/middleware/20.hmac'
import { storeKey } from '../../iam/lib/storage'

// version 1 accepted (requireBodyDigest: false), so the checks it shares with version 2 can be shown on it
const settings = { clientId: 'gateway', sharedSecret: 's'.repeat(40), maxClockSkew: 300_000, requireBodyDigest: false }
const NOW = 1_800_000_000_000

function signed(overrides: { url?: string; method?: string; now?: number; requestId?: string } = {}) {
  const url = overrides.url ?? '/secret/data?x=1'
  const method = overrides.method ?? 'GET'
  const headers = signRequest({ ...settings, url, method, now: overrides.now ?? NOW, requestId: overrides.requestId ?? 'req-1' })
  return {
    url,
    method,
    headers: {
      clientId: headers['x-client-id'],
      timestamp: headers['x-timestamp'],
      signature: headers['x-signature'],
      requestId: headers['x-request-id'],
    },
  }
}

function input(over: Partial<HmacInput> & { seen?: Set<string> } = {}): HmacInput {
  const seen = over.seen ?? new Set<string>()
  return {
    ...signed(),
    settings,
    now: NOW,
    claimNonce: async (key) => (seen.has(key) ? false : (seen.add(key), true)),
    ...over,
  }
}

describe('HMAC signing', () => {
  it('signs clientId:timestamp:METHOD:url:requestId', () => {
    expect(stringToSign({ clientId: 'c', timestampMs: 1, method: 'post', url: '/a?b=1', requestId: 'r' })).toBe('c:1:POST:/a?b=1:r')
    const sig = computeSignature({ clientId: 'c', sharedSecret: 'k', timestampMs: 1, method: 'POST', url: '/a?b=1', requestId: 'r' })
    expect(sig).toMatch(/^[0-9a-f]{64}$/)
  })
  it('compares signatures in constant time and rejects malformed ones', () => {
    const sig = computeSignature({ ...settings, timestampMs: 1, method: 'GET', url: '/', requestId: 'r' })
    expect(signaturesMatch(sig, sig)).toBe(true)
    expect(signaturesMatch(sig, sig.slice(0, 62) + (sig.endsWith('0') ? '11' : '00'))).toBe(false)
    expect(signaturesMatch(sig, sig.slice(0, 10))).toBe(false)
    expect(signaturesMatch(sig, 'z'.repeat(64))).toBe(false)
  })
})

describe('verifyHmacRequest', () => {
  it('accepts a correctly signed request once and records its nonce', async () => {
    const seen = new Set<string>()
    expect(await verifyHmacRequest(input({ seen }))).toEqual({ ok: true, purposes: UNNAMED_PURPOSES })
    // the nonce is keyed by client id and request id, each encoded (a request id may hold `:`, `/`, `?`)
    expect([...seen]).toEqual([storeKey('hmac:nonce', 'gateway', 'req-1')])
    expect(await verifyHmacRequest(input({ seen }))).toEqual({ ok: false, reason: 'Replayed request' })
  })
  it('requires all four headers', async () => {
    for (const name of ['clientId', 'timestamp', 'signature', 'requestId'] as const) {
      const { headers } = signed()
      expect(await verifyHmacRequest(input({ headers: { ...headers, [name]: undefined } }))).toEqual({ ok: false, reason: 'Missing HMAC headers' })
    }
  })
  it('rejects another client id', async () => {
    const { headers } = signed()
    expect(await verifyHmacRequest(input({ headers: { ...headers, clientId: 'other' } }))).toEqual({ ok: false, reason: 'Unknown client' })
  })
  it('rejects a timestamp that is not milliseconds', async () => {
    for (const timestamp of ['abc', '1.5', '-1', '0123', '']) {
      const { headers } = signed()
      const result = await verifyHmacRequest(input({ headers: { ...headers, timestamp: timestamp || undefined } }))
      expect(result.ok).toBe(false)
    }
    const { headers } = signed()
    expect(await verifyHmacRequest(input({ headers: { ...headers, timestamp: 'abc' } }))).toEqual({ ok: false, reason: 'Invalid timestamp' })
  })
  it('rejects clock skew above maxClockSkew in either direction and accepts it at the limit', async () => {
    expect(await verifyHmacRequest(input({ ...signed({ now: NOW - 300_001 }) }))).toEqual({ ok: false, reason: 'Request expired' })
    expect(await verifyHmacRequest(input({ ...signed({ now: NOW + 300_001 }) }))).toEqual({ ok: false, reason: 'Request expired' })
    expect(await verifyHmacRequest(input({ ...signed({ now: NOW - 300_000 }) }))).toEqual({ ok: true, purposes: UNNAMED_PURPOSES })
  })
  it('rejects a signature over another method, path or query', async () => {
    const other = signed({ url: '/secret/data?x=2' })
    expect(await verifyHmacRequest(input({ headers: other.headers }))).toEqual({ ok: false, reason: 'Invalid signature' })
    const post = signed({ method: 'POST' })
    expect(await verifyHmacRequest(input({ headers: post.headers }))).toEqual({ ok: false, reason: 'Invalid signature' })
  })
  it('does not burn the nonce when the signature is wrong', async () => {
    const seen = new Set<string>()
    const { headers } = signed()
    const forged = { ...headers, signature: '0'.repeat(64) }
    expect(await verifyHmacRequest(input({ seen, headers: forged }))).toEqual({ ok: false, reason: 'Invalid signature' })
    expect(seen.size).toBe(0)
    expect(await verifyHmacRequest(input({ seen }))).toEqual({ ok: true, purposes: UNNAMED_PURPOSES })
  })
  it('keeps nonces for twice the skew window', async () => {
    let ttl = 0
    await verifyHmacRequest(input({ claimNonce: async (_key, ttlMs) => ((ttl = ttlMs), true) }))
    expect(ttl).toBe(600_000)
  })
  it('rejects a request id that is not a bounded token', async () => {
    const long = signed({ requestId: 'a'.repeat(129) })
    expect(await verifyHmacRequest(input(long))).toEqual({ ok: false, reason: 'Invalid request id' })
  })
})

describe('HMAC signing, version 2', () => {
  const covered = { cookie: 'canary_id=c1; session=s1', authorization: 'Bearer t1', 'x-forwarded-for': '203.0.113.9', 'x-api-key': 'api_k' }

  it('signs the tag v2, the request line fields, the body digest and the digest of each covered header, one per line', () => {
    const text = stringToSignV2({
      clientId: 'c',
      timestampMs: 1,
      method: 'post',
      url: '/a?b=1',
      requestId: 'r',
      bodySha256: sha256Hex('{"x":1}'),
      headers: covered,
    })
    expect(text.split('\n')).toEqual([
      'v2',
      'c',
      '1',
      'POST',
      '/a?b=1',
      'r',
      sha256Hex('{"x":1}'),
      sha256Hex(covered.cookie),
      sha256Hex(covered.authorization),
      sha256Hex(covered['x-forwarded-for']),
      sha256Hex(covered['x-api-key']),
    ])
  })
  it('signs an absent header like an empty one', () => {
    const base = { clientId: 'c', timestampMs: 1, method: 'GET', url: '/', requestId: 'r', bodySha256: sha256Hex('') }
    expect(stringToSignV2({ ...base, headers: {} })).toBe(stringToSignV2({ ...base, headers: { cookie: '', authorization: '' } }))
    expect(stringToSignV2({ ...base, headers: {} }).split('\n').slice(7)).toEqual(new Array(4).fill(sha256Hex('')))
  })
  it('announces itself with X-Signature-Version: 2', () => {
    const headers = signRequestV2({ ...settings, method: 'GET', url: '/', now: NOW, requestId: 'r' })
    expect(headers['x-signature-version']).toBe('2')
    expect(headers['x-signature']).toMatch(/^[0-9a-f]{64}$/)
  })
})

describe('verifyHmacRequest, version 2', () => {
  const url = '/auth/OAuth/demo'
  const body = '{"sub":"alice","email":"alice@example.com"}'
  const headers = { cookie: 'canary_id=c1', 'x-forwarded-for': '203.0.113.9' }

  function v2(over: Partial<HmacInput> = {}, sent: { body?: string; headers?: Record<string, string> } = {}): HmacInput {
    const signedHeaders = signRequestV2({ ...settings, method: 'POST', url, now: NOW, requestId: 'req-2', body, headers })
    return {
      method: 'POST',
      url,
      headers: {
        clientId: signedHeaders['x-client-id'],
        timestamp: signedHeaders['x-timestamp'],
        signature: signedHeaders['x-signature'],
        requestId: signedHeaders['x-request-id'],
        version: signedHeaders['x-signature-version'],
      },
      settings,
      now: NOW,
      covered: async () => ({ bodySha256: sha256Hex(sent.body ?? body), headers: sent.headers ?? headers }),
      claimNonce: async () => true,
      ...over,
    }
  }

  it('accepts the body and headers it was signed over, for the purposes a signature without one stands for', async () => {
    expect(await verifyHmacRequest(v2())).toEqual({ ok: true, purposes: UNNAMED_PURPOSES })
    expect(UNNAMED_PURPOSES).not.toContain('provider')
  })
  it('rejects the same signature with another body', async () => {
    const other = '{"sub":"victim","email":"victim@example.com"}'
    expect(await verifyHmacRequest(v2({}, { body: other }))).toEqual({ ok: false, reason: 'Invalid signature' })
  })
  it('rejects the same signature with another Cookie, Authorization, X-Forwarded-For or x-api-key', async () => {
    for (const changed of [
      { ...headers, cookie: 'canary_id=c2' },
      { ...headers, authorization: 'Bearer stolen' },
      { ...headers, 'x-forwarded-for': '198.51.100.7' },
      { ...headers, 'x-api-key': 'api_other' },
    ]) {
      expect(await verifyHmacRequest(v2({}, { headers: changed }))).toEqual({ ok: false, reason: 'Invalid signature' })
    }
  })
  it('reads the body only after the cheap header checks passed', async () => {
    let read = false
    const input = v2({ now: NOW + 600_000 })
    const result = await verifyHmacRequest({ ...input, covered: async () => ((read = true), input.covered!()) })
    expect(result).toEqual({ ok: false, reason: 'Request expired' })
    expect(read).toBe(false)
  })
  it('rejects an unknown signature version', async () => {
    const input = v2()
    expect(await verifyHmacRequest({ ...input, headers: { ...input.headers, version: '4' } })).toEqual({
      ok: false,
      reason: 'Unsupported signature version',
    })
  })
  it('refuses version 1 when requireBodyDigest is on, and still accepts version 2', async () => {
    const strict = { ...settings, requireBodyDigest: true }
    expect(await verifyHmacRequest(input({ settings: strict }))).toEqual({ ok: false, reason: 'Signature version 2 required' })
    expect(await verifyHmacRequest(v2({ settings: strict }))).toMatchObject({ ok: true })
  })
  it('does not accept a version 1 signature announced as version 2', async () => {
    const v1 = input()
    expect(await verifyHmacRequest({ ...v1, headers: { ...v1.headers, version: '2' }, covered: async () => ({ bodySha256: sha256Hex(''), headers: {} }) })).toEqual({
      ok: false,
      reason: 'Invalid signature',
    })
  })
})

describe('HMAC signing, version 3 (the purpose)', () => {
  const url = '/auth/OAuth/demo'
  const body = '{"sub":"alice","email":"alice@example.com"}'
  const headers = { cookie: 'canary_id=c1', 'x-forwarded-for': '203.0.113.9' }
  const strict = { ...settings, requireBodyDigest: true }

  function v3(purpose: string, signedFor: (typeof GATEWAY_PURPOSES)[number] = 'oauth-callback'): HmacInput {
    const signedHeaders = signRequestV3({ ...settings, method: 'POST', url, now: NOW, requestId: 'req-3', body, headers, purpose: signedFor })
    return {
      method: 'POST',
      url,
      headers: {
        clientId: signedHeaders['x-client-id'],
        timestamp: signedHeaders['x-timestamp'],
        signature: signedHeaders['x-signature'],
        requestId: signedHeaders['x-request-id'],
        version: signedHeaders['x-signature-version'],
        purpose,
      },
      settings: strict,
      now: NOW,
      covered: async () => ({ bodySha256: sha256Hex(body), headers }),
      claimNonce: async () => true,
    }
  }

  it('signs the purpose on its own line after the request id', () => {
    const lines = stringToSignV3({ clientId: 'gateway', timestampMs: NOW, method: 'post', url, requestId: 'r', purpose: 'provider', bodySha256: sha256Hex(body), headers }).split('\n')
    expect(lines.slice(0, 8)).toEqual(['v3', 'gateway', String(NOW), 'POST', url, 'r', 'provider', sha256Hex(body)])
  })

  it('stands for exactly the purpose it was signed for', async () => {
    for (const purpose of GATEWAY_PURPOSES) expect(await verifyHmacRequest(v3(purpose, purpose))).toEqual({ ok: true, purposes: [purpose] })
  })

  it('rejects a signature whose purpose header was changed after signing', async () => {
    expect(await verifyHmacRequest(v3('oauth-callback', 'provider'))).toEqual({ ok: false, reason: 'Invalid signature' })
    expect(await verifyHmacRequest(v3('bff', 'provider'))).toEqual({ ok: false, reason: 'Invalid signature' })
  })

  it('rejects an unknown or missing purpose before any body is read', async () => {
    for (const purpose of ['admin', '', 'provider ', undefined]) {
      const input = v3('x')
      let read = false
      const result = await verifyHmacRequest({ ...input, headers: { ...input.headers, purpose }, covered: async () => ((read = true), input.covered!()) })
      expect(result, String(purpose)).toEqual({ ok: false, reason: 'Unknown purpose' })
      expect(read).toBe(false)
    }
  })

  it('names the same purposes as the route contract', () => {
    const contract: readonly CallerPurpose[] = GATEWAY_PURPOSES
    const back: readonly (typeof GATEWAY_PURPOSES)[number][] = ['bff', 'provider', 'oauth-callback', 'sso', 'scim'] satisfies CallerPurpose[]
    expect([...contract].sort()).toEqual([...back].sort())
  })
})
