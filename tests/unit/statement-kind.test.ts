import { describe, expect, it } from 'vitest'
import { statementKind } from '../../iam/lib/signals'

describe('statementKind (what iam_db_statements_total counts)', () => {
  it('counts INSERT, UPDATE and DELETE as writes, also inside a CTE', () => {
    expect(statementKind('insert into "sessions" ("id") values ($1)')).toBe('write')
    expect(statementKind('update "api_tokens" set "usage_count" = "usage_count" + 1 where "id" = $1')).toBe('write')
    expect(statementKind('delete from "visitors" where "id" = $1')).toBe('write')
    expect(statementKind('with r as (update "sessions" set "revoked" = true returning "id") select * from r')).toBe('write')
  })

  it('counts SELECTs as reads, even when a column is named like a write', () => {
    expect(statementKind('select "updated_at", "deleted" from "users" where "email" = $1')).toBe('read')
  })

  it('counts transaction control on its own', () => {
    for (const text of ['begin', 'commit', 'rollback', 'BEGIN ISOLATION LEVEL SERIALIZABLE']) expect(statementKind(text)).toBe('transaction')
  })
})
