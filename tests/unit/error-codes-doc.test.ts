/** docs/errors.md lists every failure code with its meaning and the routes that answer it, as the code has them. */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ERROR_CODES } from '../../iam/contract/error-codes'
import { GATEWAY_ERROR_CODES } from '../../server/utils/bff/error-codes'
import { gatewayCodesTable, GATEWAY_TABLE_MARKERS, iamCodesTable, IAM_TABLE_MARKERS, withTable } from '../helpers/error-codes-doc'

const DOC = join(import.meta.dirname, '../../docs/errors.md')

describe('docs/errors.md', () => {
  const doc = readFileSync(DOC, 'utf8')
  const expected = withTable(withTable(doc, IAM_TABLE_MARKERS, iamCodesTable()) ?? '', GATEWAY_TABLE_MARKERS, gatewayCodesTable())

  it('has the tables of the vocabularies and the route table (UPDATE_ERROR_DOCS=1 rewrites them)', () => {
    expect(expected, 'docs/errors.md lost a table marker').toBeDefined()
    if (process.env.UPDATE_ERROR_DOCS === '1' && expected !== doc) writeFileSync(DOC, expected!)
    else expect(doc).toBe(expected)
  })

  it('names every code of both vocabularies', () => {
    for (const code of [...Object.keys(ERROR_CODES), ...Object.keys(GATEWAY_ERROR_CODES)]) expect(doc).toContain(`| \`${code}\` |`)
  })
})
