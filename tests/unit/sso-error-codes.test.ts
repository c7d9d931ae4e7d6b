/**
 * shared/sso-error-codes.ts: the codes the company sign-in error page words are codes the IAM
 * declares, or the gateway's own for an IAM it could not reach (server/utils/sso/saml-flow.ts).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { ERROR_CODES } from '../../iam/contract/error-codes'
import { SSO_ERROR_GROUPS } from '../../shared/sso-error-codes'

/** Said by the gateway itself, never by the IAM. */
const GATEWAY_OWN = ['sso_unavailable']

it('every code the company sign-in error page words is a declared IAM failure code or the gateway own', () => {
  expect(Object.keys(SSO_ERROR_GROUPS).filter((code) => !Object.hasOwn(ERROR_CODES, code) && !GATEWAY_OWN.includes(code))).toEqual([])
})

it('the gateway own codes are ones the SAML flow really sends', () => {
  const flow = readFileSync(join(process.cwd(), 'server', 'utils', 'sso', 'saml-flow.ts'), 'utf8')
  for (const code of GATEWAY_OWN) expect(flow).toContain(`'${code}'`)
})
