/**
 * SCIM filters and pages (iam/features/enterprise/scim-filter.ts; RFC 7644 sections 3.4.2.2 and
 * 3.4.2.4), and the patch step the SCIM PATCH routes apply before they replace
 * (scim-users.ts applyPatch).
 */
import { describe, expect, it } from 'vitest'
import { matchesFilter, pageOf, parseFilter } from '../../iam/features/enterprise/scim-filter'
import { applyPatch } from '../../iam/features/enterprise/scim-users'
import { userInput } from '../../iam/features/enterprise/scim-schema'

const user = {
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
  id: '2819c223-7f76-453a-919d-413861904646',
  externalId: 'Ext-Bjensen',
  userName: 'bjensen@example.com',
  name: { givenName: 'Barbara', familyName: 'Jensen' },
  emails: [{ value: 'bjensen@example.com', type: 'work', primary: true }],
  active: true,
  meta: { resourceType: 'User', created: '2026-01-01T00:00:00.000Z', lastModified: '2026-01-01T00:00:00.000Z', location: 'x', version: 'W/"1"' },
}

const matches = (text: string) => {
  const parsed = parseFilter(text)
  if (!parsed.ok) throw new Error(parsed.detail)
  return matchesFilter(user, parsed.filter)
}

describe('SCIM filters', () => {
  it('compares userName and emails without regard to letter case, and externalId and id exactly', () => {
    expect(matches('userName eq "BJensen@Example.com"')).toBe(true)
    expect(matches('emails.value eq "BJENSEN@example.com"')).toBe(true)
    expect(matches('externalId eq "Ext-Bjensen"')).toBe(true)
    expect(matches('externalId eq "ext-bjensen"')).toBe(false)
    expect(matches('id eq "2819C223-7F76-453A-919D-413861904646"')).toBe(false)
  })

  it('reads attribute names in any letter case and with their schema URN', () => {
    expect(matches('USERNAME eq "bjensen@example.com"')).toBe(true)
    expect(matches('urn:ietf:params:scim:schemas:core:2.0:User:name.familyName eq "jensen"')).toBe(true)
  })

  it('combines with and, or, not and value paths, and matches booleans', () => {
    expect(matches('active eq true and userName sw "bjensen"')).toBe(true)
    expect(matches('active eq false or userName eq "nobody@example.com"')).toBe(false)
    expect(matches('not (active eq false)')).toBe(true)
    expect(matches('emails[type eq "work" and value co "@example.com"]')).toBe(true)
    expect(matches('emails[type eq "home"]')).toBe(false)
    expect(matches('title pr')).toBe(false)
    expect(matches('title ne "x"')).toBe(true)
  })

  it('answers a failure value, not an exception, for a filter that does not parse or is too long', () => {
    expect(parseFilter('userName eq').ok).toBe(false)
    expect(parseFilter('userName zz "x"').ok).toBe(false)
    expect(parseFilter(`userName eq "${'a'.repeat(1000)}"`).ok).toBe(false)
  })
})

describe('SCIM pages', () => {
  it('counts startIndex from 1 and caps count, taking bad values as the defaults', () => {
    expect(pageOf({}, 200)).toEqual({ startIndex: 1, count: 200 })
    expect(pageOf({ startIndex: '0', count: '-5' }, 200)).toEqual({ startIndex: 1, count: 0 })
    expect(pageOf({ startIndex: '3', count: '1000' }, 200)).toEqual({ startIndex: 3, count: 200 })
    expect(pageOf({ startIndex: 'x', count: '1e3' }, 200)).toEqual({ startIndex: 1, count: 200 })
  })
})

describe('SCIM patches and bodies', () => {
  it('replaces, adds and removes attributes, and refuses a remove without a path with noTarget', () => {
    const patched = applyPatch(user, { schemas: [], Operations: [{ op: 'replace', path: 'name.familyName', value: 'Smith' }, { op: 'remove', path: 'externalId' }, { op: 'add', value: { displayName: 'Babs' } }] })
    expect(patched).toMatchObject({ ok: true, resource: { name: { familyName: 'Smith', givenName: 'Barbara' }, displayName: 'Babs' } })
    expect(patched.ok && 'externalId' in patched.resource).toBe(false)
    // the resource the caller holds is not changed
    expect(user.name.familyName).toBe('Jensen')
    expect(applyPatch(user, { schemas: [], Operations: [{ op: 'remove' }] })).toMatchObject({ ok: false, scimType: 'noTarget' })
  })

  it('takes active spelled as a string, as Entra ID sends it, and lower-cases the userName', () => {
    const parsed = userInput.parse({ schemas: [user.schemas[0]], userName: 'BJensen@Example.com', active: 'False' })
    expect(parsed).toMatchObject({ userName: 'bjensen@example.com', active: false })
    expect(userInput.safeParse({ schemas: [user.schemas[0]], userName: 'x@y.z', active: 'nope' }).success).toBe(false)
  })
})
