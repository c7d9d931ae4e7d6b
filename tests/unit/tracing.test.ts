/**
 * The pure parts of tracing (shared/tracing.ts, iam/lib/tracing.ts): when it is on, and what a
 * statement span may say about a statement.
 */
import { describe, expect, it } from 'vitest'
import { tracingConfigured, tracingActive, withSpan } from '../../shared/tracing'
import { statementAttributes } from '../../iam/lib/tracing'

describe('tracingConfigured', () => {
  it('is on with the OTLP endpoint or the traces endpoint, off without either', () => {
    expect(tracingConfigured({})).toBe(false)
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' })).toBe(false)
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true)
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true)
  })

  it('is off when OTEL_SDK_DISABLED is true, whatever the endpoint', () => {
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'TRUE' })).toBe(false)
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'false' })).toBe(true)
  })
})

describe('withSpan with tracing off', () => {
  it('runs the work and passes its result and its rejection through unchanged', async () => {
    expect(tracingActive).toBe(false)
    await expect(withSpan('work', {}, async () => 42)).resolves.toBe(42)
    const failure = new Error('boom')
    await expect(withSpan('work', {}, () => Promise.reject(failure))).rejects.toBe(failure)
  })
})

describe('statementAttributes', () => {
  it('names the operation and the table of a plain statement', () => {
    expect(statementAttributes('select "id" from "users" where "email" = $1')).toEqual({
      name: 'SELECT users',
      attributes: { 'db.system.name': 'postgresql', 'db.operation.name': 'SELECT', 'db.collection.name': 'users' },
    })
    expect(statementAttributes('insert into "sessions" ("id") values ($1)').name).toBe('INSERT sessions')
    expect(statementAttributes('update "users" set "name" = $1 where "id" = $2').name).toBe('UPDATE users')
    expect(statementAttributes('delete from "tokens" where "id" = $1').name).toBe('DELETE tokens')
  })

  it('names only the operation of a CTE, transaction control or an unknown verb', () => {
    expect(statementAttributes('with moved as (delete from a returning *) insert into b select * from moved').name).toBe('WITH')
    expect(statementAttributes('begin').name).toBe('BEGIN')
    expect(statementAttributes('/* hint */ commit').name).toBe('COMMIT')
    expect(statementAttributes('vacuum full').attributes['db.operation.name']).toBe('OTHER')
  })

  it('carries no literal of the statement, only names', () => {
    const { name, attributes } = statementAttributes("select * from users where email = 'alice@example.com' and secret = 'hunter2'")
    const said = JSON.stringify({ name, attributes })
    expect(said).not.toContain('alice')
    expect(said).not.toContain('hunter2')
  })
})
