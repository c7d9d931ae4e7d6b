import { describe, expect, it } from 'vitest'
import { createLogger, type LogLevel } from '../../shared/log'

function capture(level: LogLevel = 'debug', base = {}) {
  const lines: Array<Record<string, unknown>> = []
  const log = createLogger(level, base, (line) => lines.push(JSON.parse(line) as Record<string, unknown>))
  return { log, lines }
}

describe('createLogger', () => {
  it('writes one JSON line per event with level label, ISO time, message and fields', () => {
    const { log, lines } = capture('debug', { app: 'iam' })
    log.info('request', { status: 200 })
    expect(lines).toEqual([{ level: 'info', time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), app: 'iam', status: 200, msg: 'request' }])
  })

  it('drops events below the configured level and writes nothing when silent', () => {
    const warn = capture('warn')
    warn.log.info('hidden')
    warn.log.debug('hidden')
    warn.log.warn('shown')
    expect(warn.lines.map((line) => line.msg)).toEqual(['shown'])
    const silent = capture('silent')
    silent.log.error('hidden')
    expect(silent.lines).toEqual([])
  })

  it('replaces values under credential-shaped keys at any depth, in fields, base and child bindings', () => {
    const { log, lines } = capture('debug', { hmacSecret: 'base-secret' })
    log.child({ refresh_token: 'child-token', user: 7 }).info('event', {
      password: 'p4ss',
      nested: { list: [{ Authorization: 'Bearer abc' }], apiKey: 'k', sessionCookie: 'c' },
    })
    const text = JSON.stringify(lines)
    for (const value of ['base-secret', 'child-token', 'p4ss', 'Bearer abc', '"k"', '"c"']) expect(text).not.toContain(value)
    expect(lines[0]).toMatchObject({ user: 7, hmacSecret: '[redacted]', refresh_token: '[redacted]', password: '[redacted]' })
  })

  it('serialises an error with its code and its cause chain, and redacts inside the cause', () => {
    const { log, lines } = capture()
    const cause = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })
    log.error('call failed', { err: new Error('IAM unreachable', { cause: { reason: cause, token: 'tok' } }) })
    const err = lines[0]!.err as Record<string, unknown>
    expect(err).toMatchObject({ name: 'Error', message: 'IAM unreachable', stack: expect.stringContaining('IAM unreachable') })
    expect(err.cause).toMatchObject({ token: '[redacted]', reason: { message: 'connect ECONNREFUSED', code: 'ECONNREFUSED' } })
  })
})
