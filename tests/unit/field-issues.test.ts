import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { FIELD_ISSUE_CODES, refusedFields } from '../../iam/contract/field-issues'

/** The refusal of `input` by `schema`, as the IAM and the BFF send it. */
function refusal(schema: z.ZodType, input: unknown) {
  const parsed = schema.safeParse(input)
  if (parsed.success) throw new Error('the schema accepted the input')
  return refusedFields(parsed.error, input, 'body')
}

const schema = z.strictObject({
  name: z.string().min(1).max(10),
  passphrase: z.string().min(12).optional(),
  tags: z.array(z.string()).min(1).max(3).optional(),
  retries: z.number().int().min(0).max(10).optional(),
  ratio: z.number().lt(1).optional(),
  url: z.url().optional(),
})

describe('field issues of a refused input', () => {
  it('names a missing, null or empty required field required', () => {
    expect(refusal(schema, {}).fieldIssues).toEqual({ name: { code: 'required' } })
    expect(refusal(schema, { name: null }).fieldIssues).toEqual({ name: { code: 'required' } })
    expect(refusal(schema, { name: '' }).fieldIssues).toEqual({ name: { code: 'required' } })
  })

  it('names a bound of characters, items or a number with the bound a person may use', () => {
    expect(refusal(schema, { name: 'x'.repeat(11), passphrase: 'short', tags: ['a', 'b', 'c', 'd'], retries: 11 }).fieldIssues).toEqual({
      name: { code: 'too_long', limit: 10 },
      passphrase: { code: 'too_short', limit: 12 },
      tags: { code: 'too_many', limit: 3 },
      retries: { code: 'too_large', limit: 10 },
    })
    expect(refusal(schema, { name: 'a', tags: [], retries: -1 }).fieldIssues).toEqual({ tags: { code: 'too_few', limit: 1 }, retries: { code: 'too_small', limit: 0 } })
  })

  it('names no bound for an exclusive bound of a number: no largest number lies inside it', () => {
    expect(refusal(schema, { name: 'a', ratio: 1 }).fieldIssues).toEqual({ ratio: { code: 'invalid' } })
  })

  it('names a wrong type, a wrong format and an unknown key invalid, the last under the root key', () => {
    expect(refusal(schema, { name: 5, url: 'not a url', extra: true }).fieldIssues).toEqual({
      name: { code: 'invalid' },
      url: { code: 'invalid' },
      body: { code: 'invalid' },
    })
  })

  it("keeps zod's sentence of each field's first issue beside its code, one entry per field", () => {
    const { fields, fieldIssues } = refusal(schema, { name: 5, tags: [1, 2, 3, 4] })
    expect(Object.keys(fields).sort()).toEqual(['name', 'tags'])
    expect(Object.keys(fieldIssues).sort()).toEqual(['name', 'tags'])
    expect(typeof fields.name).toBe('string')
    for (const issue of Object.values(fieldIssues)) expect(FIELD_ISSUE_CODES).toContain(issue.code)
  })
})
