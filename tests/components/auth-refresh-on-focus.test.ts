/**
 * useAuth() reads the session again when a signed-in page comes back into view
 * (plugins/auth-refresh-on-focus.client.ts), at most once per 30 seconds.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { answer } from './bff'

const SIGNED_IN = { authenticated: true, userId: '1', roles: ['user'], expiresAt: null, email: 'ada@example.com', emailVerified: true, name: 'Ada' }

afterEach(() => vi.useRealTimers())

describe('refresh on focus', () => {
  it('reads the session again when the window regains focus after 30 s, not before, and shows a session ended meanwhile', async () => {
    const first = answer('GET', '/api/auth/session', 200, SIGNED_IN)
    const auth = useAuth()
    await auth.load({ fresh: true })
    expect(auth.state.value.status).toBe('signed-in')
    const before = first.bodies.length
    window.dispatchEvent(new Event('focus'))
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(first.bodies.length).toBe(before)

    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(Date.now() + 31_000)
    answer('GET', '/api/auth/session', 200, { authenticated: false, ended: true })
    window.dispatchEvent(new Event('focus'))
    await vi.waitFor(() => expect(auth.state.value.status).toBe('signed-out'))
  })
})
