import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, sql, type CompiledQuery } from 'kysely'
import { describe, expect, it } from 'vitest'
import { compiledOnce } from '../../iam/fast/compiled-once'

interface Db {
  people: { id: number; name: string; email: string; born: Date; tags: string }
  notes: { id: number; person_id: number; text: string }
}

/** A real Kysely on its compile-only driver: every statement it would send is kept. */
function database() {
  const sent: CompiledQuery[] = []
  const db = new Kysely<Db>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (k) => new PostgresIntrospector(k),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
    log: (event) => void sent.push(event.query),
  })
  return { db, sent }
}

describe('compiledOnce (a hot statement compiled once, run with fresh values)', () => {
  it('sends the SQL Kysely compiles, with each call its own values in their places, constants kept', async () => {
    const { db, sent } = database()
    const build = (k: Kysely<Db>, a: { email: string; id: number }) =>
      k.selectFrom('people').selectAll().where(sql`lower(email)`, '=', a.email).where('name', '<>', 'root').where('id', '>', a.id)
    const find = compiledOnce(build)
    await find(db, { email: 'a@example.com', id: 1 })
    await find(db, { email: 'b@example.com', id: 7 })
    const direct = build(db, { email: 'b@example.com', id: 7 }).compile()
    expect(sent.map((q) => q.sql)).toEqual([direct.sql, direct.sql])
    expect(sent.map((q) => q.parameters)).toEqual([['a@example.com', 'root', 1], direct.parameters])
  })

  it('fills the fields of object arguments, one statement writing several rows', async () => {
    const { db, sent } = database()
    const born = new Date('2000-01-01T00:00:00Z')
    type Rows = { person: Db['people']; note: { text: string } }
    const build = (k: Kysely<Db>, r: Rows) =>
      k.with('p', (q) => q.insertInto('people').values(r.person).returning('id')).insertInto('notes').values({ id: 1, person_id: 1, text: r.note.text })
    const insert = compiledOnce(build)
    const rows: Rows = { person: { id: 5, name: 'Ada', email: 'ada@example.com', born, tags: '["x"]' }, note: { text: 'hi' } }
    await insert(db, rows)
    expect(sent[0]).toMatchObject({ sql: build(db, rows).compile().sql, parameters: build(db, rows).compile().parameters })
  })

  it('refuses a query whose shape depends on a value, an undefined value and an array', async () => {
    const { db } = database()
    const constant = compiledOnce((k: Kysely<Db>, a: { id: number }) => k.selectFrom('people').selectAll().where('id', '=', a.id > 0 ? 1 : 2))
    await expect(constant(db, { id: 3 })).rejects.toThrow(/not a parameter of the query: id/)
    const find = compiledOnce((k: Kysely<Db>, a: { name: string | undefined }) => k.selectFrom('people').selectAll().where('name', '=', a.name!))
    await find(db, { name: 'x' })
    await expect(find(db, { name: undefined })).rejects.toThrow(/name must be a value/)
    const tagged = compiledOnce((k: Kysely<Db>, a: { tags: unknown }) => k.updateTable('people').set({ tags: a.tags as string }))
    await expect(tagged(db, { tags: ['a'] })).rejects.toThrow(/tags must be a value/)
  })
})
