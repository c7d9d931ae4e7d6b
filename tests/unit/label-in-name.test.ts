/**
 * WCAG 2.2 2.5.3 (Label in Name): a control's accessible name contains the text it shows, so a
 * person who speaks what they see ("click Rotate secret") reaches it. The pages pair a visible
 * label `x` with an accessible name `xNamed` that adds which item it acts on; in every language the
 * second must contain the first. axe finds a broken pair only on a page a walk opens; this finds
 * every pair in the catalogues.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { SUPPORTED_LOCALES } from '../../iam/contract/locales'

type Messages = { [key: string]: string | Messages }

function flatten(messages: Messages, prefix = ''): Map<string, string> {
  const out = new Map<string, string>()
  for (const [key, value] of Object.entries(messages)) {
    if (typeof value === 'string') out.set(prefix + key, value)
    else for (const [k, v] of flatten(value, `${prefix}${key}.`)) out.set(k, v)
  }
  return out
}

/** The `xNamed` messages whose `x` is not part of them (case aside), as `key: visible | name`. */
function labelNotInName(messages: Messages): string[] {
  const flat = flatten(messages)
  const broken: string[] = []
  for (const [key, name] of flat) {
    if (!key.endsWith('Named')) continue
    const visible = flat.get(key.slice(0, -'Named'.length))
    if (visible !== undefined && !name.toLowerCase().includes(visible.toLowerCase())) broken.push(`${key}: ${visible} | ${name}`)
  }
  return broken
}

describe('the accessible names of labelled buttons (WCAG 2.5.3)', () => {
  it('finds a name that puts other words inside the visible label, and passes one that only adds to it', () => {
    expect(labelNotInName({ a: { rotate: 'Rotate secret', rotateNamed: 'Rotate the secret of {url}' } })).toEqual(['a.rotateNamed: Rotate secret | Rotate the secret of {url}'])
    expect(labelNotInName({ a: { rotate: 'Rotate secret', rotateNamed: 'Rotate secret of {url}', edit: 'Edit', editNamed: '{url} edit' } })).toEqual([])
  })

  for (const locale of SUPPORTED_LOCALES) {
    it(`contain the visible label in every ${locale} pair`, () => {
      const messages = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'i18n', 'locales', `${locale}.json`), 'utf8')) as Messages
      expect(labelNotInName(messages)).toEqual([])
    })
  }
})
