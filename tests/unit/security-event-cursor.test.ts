import { describe, expect, it } from 'vitest'
import { parseEventCursor } from '../../iam/features/security-events/event-page'

describe('parseEventCursor', () => {
  it('reads `<created_at ms>.<id>` into a time and an id', () => {
    expect(parseEventCursor('1764000000000.42')).toEqual({ createdAt: new Date(1764000000000), id: 42 })
  })

  it('refuses an id beyond a Postgres integer (the query would fail with a 500)', () => {
    expect(parseEventCursor('1764000000000.2147483648')).toBeNull()
    expect(parseEventCursor('1764000000000.2147483647')).toEqual({ createdAt: new Date(1764000000000), id: 2147483647 })
  })
})
