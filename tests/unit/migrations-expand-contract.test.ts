/**
 * The expand/contract rule of iam/db/migrations (docs/operations.md, "Rolling upgrades"): while
 * instances are replaced one by one, the previous release runs on the schema this release's
 * `db:migrate` made. A migration may therefore only add (tables, nullable columns or columns with a
 * default, indexes, looser checks) unless it is a contract step: one that removes or changes what
 * the previous release no longer uses, marked `export const contract = true` in its file, and
 * shipped one release after the code stopped using it.
 *
 * Read from the sources, as a lint rule: the statements of `up` that take something away from
 * code already running. tests/iam/rolling-upgrade.test.ts runs the previous release on the new
 * schema; this catches the step before it is merged, on the embedded database too.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { migrations } from '../../iam/db/migrations/index'
import { ROOT } from '../helpers/build'

const DIR = join(ROOT, 'iam', 'db', 'migrations')

/** What an `up` may not do without the contract mark: a name for the report, and its pattern. */
const BREAKING: Array<[string, RegExp]> = [
  // Kysely's schema builder
  ['drops a table', /\.dropTable\(/],
  ['drops a column', /\.dropColumn\(/],
  ['renames a table or column', /\.renameTo\(|\.renameColumn\(/],
  ['changes a column type or makes it required', /\.alterColumn\([\s\S]*?\.(setDataType|setNotNull)\(/],
  // raw SQL
  ['drops a table', /\bdrop\s+table\b/i],
  ['drops a column', /\bdrop\s+column\b/i],
  ['renames a table or column', /\brename\s+(to|column)\b/i],
  ['changes a column type or makes it required', /\balter\s+column\s+\S+\s+(set\s+not\s+null|(set\s+data\s+)?type)\b/i],
]

/**
 * The statements of a migration's `up` that the previous release would fail on (empty: expand
 * only). Statements are split at `await`: each is one schema builder chain or one `sql` template.
 */
function breakingSteps(source: string): string[] {
  const start = source.indexOf('export async function up')
  if (start < 0) throw new Error('no `export async function up`')
  const end = source.indexOf('export async function down', start)
  const up = source.slice(start, end < 0 ? undefined : end)
  const found: string[] = []
  for (const statement of up.split(/\bawait\s+/).slice(1)) {
    for (const [what, pattern] of BREAKING) if (pattern.test(statement) && !found.includes(what)) found.push(what)
    // an existing table's new required column: the previous release's inserts do not name it
    const addsToExisting = /\.alterTable\(/.test(statement) ? statement.split(/\.addColumn\(/).slice(1) : (/\badd\s+column\b/i.test(statement) ? statement.split(/\badd\s+column\b/i).slice(1) : [])
    for (const column of addsToExisting) {
      const required = /\.notNull\(\)|\bnot\s+null\b/i.test(column)
      const defaulted = /\.defaultTo\(|\bdefault\b/i.test(column)
      const what = 'adds a required column without a default to an existing table'
      if (required && !defaulted && !found.includes(what)) found.push(what)
    }
  }
  return found
}

describe('breakingSteps', () => {
  it('finds the schema builder steps that take something away in up', () => {
    const up = (body: string) => `export async function up(db) {\n${body}\n}\nexport async function down(db) {}`
    expect(breakingSteps(up(`await db.schema.dropTable('t').execute()`))).toEqual(['drops a table'])
    expect(breakingSteps(up(`await db.schema.alterTable('t').dropColumn('c').execute()`))).toEqual(['drops a column'])
    expect(breakingSteps(up(`await db.schema.alterTable('t').renameColumn('a', 'b').execute()`))).toEqual(['renames a table or column'])
    expect(breakingSteps(up(`await db.schema.alterTable('t').renameTo('u').execute()`))).toEqual(['renames a table or column'])
    expect(breakingSteps(up(`await db.schema.alterTable('t').alterColumn('c', (col) => col.setNotNull()).execute()`))).toEqual(['changes a column type or makes it required'])
    expect(breakingSteps(up(`await db.schema.alterTable('t').alterColumn('c', (col) => col.setDataType('bigint')).execute()`))).toEqual(['changes a column type or makes it required'])
    expect(breakingSteps(up(`await db.schema.alterTable('t').addColumn('c', 'text', (c) => c.notNull()).execute()`))).toEqual(['adds a required column without a default to an existing table'])
  })

  it('finds the same steps in raw SQL', () => {
    const up = (text: string) => `export async function up(db) {\n  await sql\`${text}\`.execute(db)\n}`
    expect(breakingSteps(up('drop table t'))).toEqual(['drops a table'])
    expect(breakingSteps(up('alter table t drop column c'))).toEqual(['drops a column'])
    expect(breakingSteps(up('alter table t rename column a to b'))).toEqual(['renames a table or column'])
    expect(breakingSteps(up('alter table t alter column c type bigint'))).toEqual(['changes a column type or makes it required'])
    expect(breakingSteps(up('alter table t alter column c set not null'))).toEqual(['changes a column type or makes it required'])
    expect(breakingSteps(up('alter table t add column c text not null'))).toEqual(['adds a required column without a default to an existing table'])
  })

  it('lets expand steps pass: new tables, nullable or defaulted columns, indexes, looser checks, and anything in down', () => {
    const source = `
      export async function up(db) {
        await db.schema.createTable('t').addColumn('id', 'text', (c) => c.primaryKey()).addColumn('at', 'timestamptz', (c) => c.notNull()).execute()
        await db.schema.alterTable('u').addColumn('a', 'text').execute()
        await db.schema.alterTable('u').addColumn('b', 'boolean', (c) => c.notNull().defaultTo(false)).execute()
        await sql\`alter table u add column d integer not null default 0\`.execute(db)
        await db.schema.createIndex('u_a_idx').on('u').column('a').execute()
        await db.schema.alterTable('u').dropConstraint('u_check').ifExists().execute()
        await db.schema.dropIndex('old_idx').execute()
      }
      export async function down(db) {
        await db.schema.alterTable('u').dropColumn('a').execute()
        await db.schema.dropTable('t').execute()
      }`
    expect(breakingSteps(source)).toEqual([])
  })
})

describe('iam/db/migrations', () => {
  it('registers every migration file in index.ts, in name order', () => {
    const files = readdirSync(DIR).filter((name) => name !== 'index.ts' && name.endsWith('.ts')).map((name) => name.slice(0, -3)).sort()
    expect(Object.keys(migrations)).toEqual(files)
  })

  it('marks every migration whose up takes something away from the previous release as a contract step, and only those', () => {
    const report: Record<string, { breaking: string[]; contract: boolean }> = {}
    for (const [name, migration] of Object.entries(migrations)) {
      const breaking = breakingSteps(readFileSync(join(DIR, `${name}.ts`), 'utf8'))
      const contract = (migration as { contract?: unknown }).contract === true
      if (breaking.length > 0 !== contract) report[name] = { breaking, contract }
    }
    expect(report).toEqual({})
  })
})
