/**
 * Store keys survive unstorage's key normalisation: every outside key part goes through one encoder
 * (iam/lib/storage/keys.ts), so distinct inputs (IPv6 forms, IPv4-mapped addresses, strings with
 * `:`, `/`, `?`, `#`, lone surrogates) never share a key, on the memory driver and on Redis.
 */
import fc from 'fast-check'
import { hasDotSegment, normalizeKey } from 'unstorage'
import { describe, expect, it } from 'vitest'
import { encodeKeyPart, storeKey } from '../../iam/lib/storage'
import { isKeptKey } from '../../iam/lib/storage/keys'
import { dropStore, keysWithTtl, STORE_BACKENDS } from '../helpers/limiter-stores'

/** Inputs that unstorage would rewrite or merge if they reached it as they are. */
const awkward = fc.oneof(
  fc.ipV6(),
  fc.ipV4().map((ip) => `::ffff:${ip}`),
  fc.ipV4(),
  fc.string({ unit: fc.constantFrom(':', '/', '\\', '?', '#', '.', '%', ' ', 'a', '1', '\uD800', '\uDC00', '\uFFFD', '😀') }),
  fc.string({ unit: 'binary' }),
)

/** Spellings that name one address, or look alike after normalisation: each is its own input. */
const LOOKALIKES = [
  '::1', '0:0:0:0:0:0:0:1', '::0:1', '1', ':1', '1:', '',
  '::ffff:127.0.0.1', '::ffff:7f00:1', '127.0.0.1',
  'a?b', 'a?c', 'a', 'a#b', 'a#c', 'a/b', 'a:b', 'a\\b', 'a::b', 'a//b', '.', '..',
  '\uD800', '\uDC00', '\uFFFD', '\uD83D\uDE00',
]

describe('store key encoding', () => {
  it('gives distinct inputs distinct parts, including every spelling of one address', () => {
    expect(new Set(LOOKALIKES.map(encodeKeyPart)).size).toBe(LOOKALIKES.length)
    fc.assert(
      fc.property(fc.uniqueArray(awkward, { minLength: 2, maxLength: 30 }), (inputs) => {
        expect(new Set(inputs.map(encodeKeyPart)).size).toBe(inputs.length)
      }),
      { numRuns: 500 },
    )
  })

  it('builds keys that unstorage keeps exactly as they are, and distinct part lists never share a key', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.array(awkward, { minLength: 1, maxLength: 3 }), { minLength: 2, maxLength: 20, selector: (parts) => JSON.stringify(parts) }),
        (lists) => {
          const keys = lists.map((parts) => storeKey('ip.test', ...parts))
          for (const key of keys) expect(normalizeKey(key)).toBe(key)
          expect(new Set(keys).size).toBe(lists.length)
        },
      ),
      { numRuns: 300 },
    )
  })
})

describe('the store\'s guard against unencoded keys', () => {
  it('accepts exactly the keys unstorage keeps as they are (its normalizeKey and dot-segment rule)', () => {
    const keyish = fc.string({ unit: fc.constantFrom(':', '/', '\\', '?', '#', '.', 'a', '1', '{', '}'), maxLength: 12 })
    fc.assert(
      fc.property(keyish, (key) => {
        expect(isKeptKey(key)).toBe(key !== '' && normalizeKey(key) === key && !hasDotSegment(key))
      }),
      { numRuns: 2000 },
    )
  })
})

// `noRedisServer` (the backends' `skip`): the Redis backend's cases are skipped without REDIS_URL (no Redis server; the PostgreSQL + Redis run sets it)
describe.each(STORE_BACKENDS)('store keys through a real Storage on $label', ({ make, skip: noRedisServer }) => {
  // skipped only when this kind's server is absent: the Redis kind runs with REDIS_URL (CI's PostgreSQL + Redis run)
  it.skipIf(noRedisServer)('reads back under each key exactly what was written under it, one stored key per distinct input', async () => {
    const store = make()
    let run = 0
    try {
      await fc.assert(
        fc.asyncProperty(fc.uniqueArray(awkward, { minLength: 1, maxLength: 15 }), async (inputs) => {
          // a namespace per run: the runs share one store (one connection)
          const area = `ip.run${(run += 1)}`
          const all = [...LOOKALIKES, ...inputs.filter((input) => !LOOKALIKES.includes(input))]
          await Promise.all(all.map((input) => store.set(storeKey(area, input), { input }, 60_000)))
          const read = await Promise.all(all.map((input) => store.get(storeKey(area, input))))
          expect(read).toEqual(all.map((input) => ({ input })))
          const stored = (await keysWithTtl(store)).filter(({ key }) => key.startsWith(`${store.fullKey(area)}:`))
          expect(stored).toHaveLength(all.length)
        }),
        { numRuns: 25 },
      )
    } finally {
      await dropStore(store)
    }
  }, 60_000)
})
