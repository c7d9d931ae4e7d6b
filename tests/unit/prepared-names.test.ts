import { beforeEach, describe, expect, it } from 'vitest'
import { forgetPreparedNames, preparedName, preparedQueryMethod, queryPrepared } from '../../iam/fast/prepared'

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

describe('named statements inside a transaction', () => {
  const STAR = 'select * from t where id = $1 /* names-tx-star */'
  const TABLE_STAR = 'select "v".* from visitors as "v" where "v"."id" = $1 /* names-tx-table-star */'
  const RETURNING_STAR = 'insert into "users" ("email") values ($1) returning * /* names-tx-returning */'
  const COLUMNS = 'select id, name from t where id = $1 /* names-tx-columns */'
  const COUNT = 'select count(*) from t where id = $1 /* names-tx-count */'
  // the bound test above leaves this process's names used up
  beforeEach(() => forgetPreparedNames())

  it('sends a * result unnamed inside a transaction and named outside one; named columns and count(*) are named in both', async () => {
    const sent: Array<string | undefined> = []
    const query = async (q: { name?: string }) => {
      sent.push(q.name)
      return { rows: [] }
    }
    for (const inTransaction of [false, true]) {
      sent.length = 0
      for (const text of [STAR, TABLE_STAR, RETURNING_STAR, COLUMNS, COUNT]) await queryPrepared(query, new Set(), text, [1], inTransaction)
      const named = [STAR, TABLE_STAR, RETURNING_STAR, COLUMNS, COUNT].map((text) => preparedName(text))
      expect(named.every((name) => name !== undefined)).toBe(true)
      expect(sent).toEqual(inTransaction ? [undefined, undefined, undefined, named[3], named[4]] : named)
    }
  })

  it('knows a connection is in a transaction from begin until commit or rollback, a savepoint rollback staying inside', async () => {
    class RecordedQuery {
      name?: string
      constructor(
        readonly text: string,
        readonly values: unknown[] | undefined,
        readonly done: (error: Error | undefined, result: { rows: unknown[] }) => void,
      ) {}
    }
    const sent: Array<[string, string | undefined]> = []
    const plain = function (this: unknown, q: unknown) {
      const recorded = q as RecordedQuery
      sent.push([recorded.text, recorded.name])
      recorded.done(undefined, { rows: [] })
    }
    const method = preparedQueryMethod(RecordedQuery, plain)
    const connection = {}
    const run = (text: string) => method.call(connection, text, [])
    for (const text of ['begin', STAR, 'savepoint s', 'rollback to savepoint s', STAR, 'commit', STAR, 'start transaction isolation level serializable', STAR, 'rollback', STAR]) await run(text)
    const star = preparedName(STAR)
    expect(sent.filter(([text]) => text === STAR).map(([, name]) => name)).toEqual([undefined, undefined, star, undefined, star])
  })
})
