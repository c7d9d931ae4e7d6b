/** shared/sso-error-codes.ts: the codes the company sign-in error page words are codes the IAM declares. */
import { expect, it } from 'vitest'
import { ERROR_CODES } from '../../iam/contract/error-codes'
import { SSO_ERROR_GROUPS } from '../../shared/sso-error-codes'

it('every code the company sign-in error page words is a declared IAM failure code', () => {
  expect(Object.keys(SSO_ERROR_GROUPS).filter((code) => !Object.hasOwn(ERROR_CODES, code))).toEqual([])
})
