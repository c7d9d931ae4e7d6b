import { describe, expect, it } from 'vitest'
import { FLOW_ERROR_CODES, PROVIDER_ERROR_CODES } from '../../server/utils/oauth/error-codes'
import { explainOAuthError, OAUTH_ERROR_EXPLANATIONS, UNKNOWN_OAUTH_ERROR } from '../../utils/oauth-errors'

describe('the OAuth error page', () => {
  it('explains every code the flow can redirect with', () => {
    const missing = [...FLOW_ERROR_CODES, ...PROVIDER_ERROR_CODES, 'email_missing'].filter(
      (code) => !Object.hasOwn(OAUTH_ERROR_EXPLANATIONS, code),
    )
    expect(missing).toEqual([])
  })

  it('answers an unknown or inherited code with the generic explanation, never echoing it', () => {
    expect(explainOAuthError('<script>alert(1)</script>')).toBe(UNKNOWN_OAUTH_ERROR)
    expect(explainOAuthError('constructor')).toBe(UNKNOWN_OAUTH_ERROR)
    expect(explainOAuthError('')).toBe(UNKNOWN_OAUTH_ERROR)
  })
})
