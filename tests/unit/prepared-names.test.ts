import { describe, expect, it } from 'vitest'
import { preparedName } from '../../iam/fast/prepared'

describe('preparedName', () => {
  it('gives a data statement one name, the same every time it is sent', () => {
    const text = 'select * from users where id = $1 /* names-1 */'
    const name = preparedName(text)
    expect(name).toMatch(/^iam_\d+$/)
    expect(preparedName(text)).toBe(name)
  })

  it('gives different texts different names', () => {
    expect(preparedName('update users set name = $1 where id = $2 /* names-2 */')).not.toBe(preparedName('delete from users where id = $1 /* names-2 */'))
  })

  it('never names transaction control or DDL', () => {
    for (const text of ['begin', 'commit', 'rollback', 'create table x (id int)', 'alter table users add column y text', 'set local x = 1']) {
      expect(preparedName(text)).toBeUndefined()
    }
  })

  it('stops naming new texts past its bound, and keeps the names it gave', () => {
    const first = preparedName('select $1::int /* names-bound-0 */')
    for (let i = 1; i <= 300; i++) preparedName(`select $1::int /* names-bound-${i} */`)
    expect(preparedName('select $1::int /* names-bound-fresh */')).toBeUndefined()
    expect(preparedName('select $1::int /* names-bound-0 */')).toBe(first)
  })
})
