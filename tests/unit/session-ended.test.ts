/** composables/session-ended.ts: the IAM's reason for an ended session, as the sentence a person reads. */
import { describe, expect, it } from 'vitest'
import { endedWhy, sessionEndedMessage } from '../../composables/session-ended'

describe('why a session ended', () => {
  it.each([
    [{ reason: 'REFRESH_TOKEN_REUSED' }, 'copied'],
    [{ reason: 'SESSION_REVOKED', revokedFor: 'refresh_token_reused' }, 'copied'],
    [{ reason: 'SESSION_REVOKED', revokedFor: 'password_changed' }, 'password'],
    [{ reason: 'SESSION_REVOKED', revokedFor: 'password_reset' }, 'password'],
    [{ reason: 'SESSION_REVOKED', revokedFor: 'email_changed' }, 'email'],
    [{ reason: 'SESSION_REVOKED', revokedFor: 'email_change_undone' }, 'email'],
    [{ reason: 'SESSION_REVOKED', revokedFor: 'user_revoked' }, 'elsewhere'],
    [{ reason: 'SESSION_REVOKED', revokedFor: 'user_revoked_others' }, 'elsewhere'],
    [{ reason: 'SESSION_EXPIRED' }, 'expired'],
  ])('names %j as %s', (body, why) => {
    expect(endedWhy(body)).toBe(why)
  })

  it('says nothing more for a sign-out, an unknown reason or no body', () => {
    expect(endedWhy({ reason: 'SESSION_REVOKED', revokedFor: 'logout' })).toBeUndefined()
    expect(endedWhy({ reason: 'SESSION_REVOKED' })).toBeUndefined()
    expect(endedWhy({ reason: 'SOMETHING_NEW' })).toBeUndefined()
    expect(endedWhy(null)).toBeUndefined()
  })

  it('words each code, and anything else as the general sentence, never the raw value', () => {
    expect(sessionEndedMessage('copied')).toMatch(/^Your session was ended for your safety: .+ change your password\.$/)
    expect(sessionEndedMessage('elsewhere')).toBe('This session was signed out from another device. Please sign in again.')
    expect(sessionEndedMessage('1')).toBe('Your session has ended. Please sign in again.')
    expect(sessionEndedMessage('<script>')).toBe('Your session has ended. Please sign in again.')
    expect(sessionEndedMessage(undefined)).toBe('Your session has ended. Please sign in again.')
  })
})
