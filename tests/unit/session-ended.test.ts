/** composables/session-ended.ts: the IAM's code for an ended session, as the sentence a person reads. */
import { describe, expect, it } from 'vitest'
import { endedWhy, sessionEndedMessage } from '../../composables/session-ended'

describe('why a session ended', () => {
  it.each([
    [{ code: 'refresh_token_reused', reason: 'REFRESH_TOKEN_REUSED' }, 'copied'],
    [{ code: 'session_revoked', reason: 'SESSION_REVOKED', revokedFor: 'refresh_token_reused' }, 'copied'],
    [{ code: 'session_revoked', reason: 'SESSION_REVOKED', revokedFor: 'password_changed' }, 'password'],
    [{ code: 'session_revoked', reason: 'SESSION_REVOKED', revokedFor: 'password_reset' }, 'password'],
    [{ code: 'session_revoked', reason: 'SESSION_REVOKED', revokedFor: 'email_changed' }, 'email'],
    [{ code: 'session_revoked', reason: 'SESSION_REVOKED', revokedFor: 'email_change_undone' }, 'email'],
    [{ code: 'session_revoked', reason: 'SESSION_REVOKED', revokedFor: 'user_revoked' }, 'elsewhere'],
    [{ code: 'session_revoked', reason: 'SESSION_REVOKED', revokedFor: 'user_revoked_others' }, 'elsewhere'],
    [{ code: 'session_expired', reason: 'SESSION_EXPIRED' }, 'expired'],
  ])('names %j as %s', (body, why) => {
    expect(endedWhy(body)).toBe(why)
  })

  it('says nothing more for a sign-out, an unknown code, a reason without a code or no body', () => {
    expect(endedWhy({ code: 'session_revoked', reason: 'SESSION_REVOKED', revokedFor: 'logout' })).toBeUndefined()
    expect(endedWhy({ code: 'session_revoked', reason: 'SESSION_REVOKED' })).toBeUndefined()
    expect(endedWhy({ code: 'relogin_required', reason: 'SOMETHING_NEW' })).toBeUndefined()
    expect(endedWhy({ reason: 'REFRESH_TOKEN_REUSED' })).toBeUndefined()
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
