import { describe, expect, it } from 'vitest'
import { computeSignature, signaturesMatch, signRequest, stringToSign } from '../../iam/client/hmac'
import { verifyHmacRequest, type HmacInput } from '../../iam/middleware/20.hmac'

const settings = { clientId: 'gateway', sharedSecret: 's'.repeat(40), maxClockSkew: 300_000 }
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
    expect(await verifyHmacRequest(input({ seen }))).toEqual({ ok: true })
    expect([...seen]).toEqual(['hmac:nonce:gateway:req-1'])
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
    expect(await verifyHmacRequest(input({ ...signed({ now: NOW - 300_000 }) }))).toEqual({ ok: true })
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
    expect(await verifyHmacRequest(input({ seen }))).toEqual({ ok: true })
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
