import { describe, expect, it } from 'vitest'
import { suspensionOf, UNTIL_LIFTED } from '../../iam/features/users/suspension'

const NOW = Date.parse('2026-11-29T12:00:00Z')

describe('suspensionOf', () => {
  it('gives the end and reason of a ban in force', () => {
    expect(suspensionOf({ banned_until: new Date('2026-12-05T00:00:00Z'), ban_reason: 'spam' }, NOW)).toEqual({ until: '2026-12-05T00:00:00.000Z', reason: 'spam' })
  })

  it('reads the far date of a ban until lifted as no end', () => {
    expect(suspensionOf({ banned_until: UNTIL_LIFTED, ban_reason: null }, NOW)).toEqual({ until: null, reason: null })
  })

  it('is no suspension once the end has passed, or without a ban', () => {
    expect(suspensionOf({ banned_until: new Date(NOW), ban_reason: 'spam' }, NOW)).toBeNull()
    expect(suspensionOf({ banned_until: null, ban_reason: null }, NOW)).toBeNull()
  })
})
