import { describe, expect, it } from 'vitest'
import { waitForLog } from '../helpers/logs'
import { sharedIam } from '../helpers/shared-iam'

const iam = sharedIam()

const NOT_FOUND = { error: "The page you are looking for doesn't exists", code: 'not_found' }

/** The first JSON log line matching `predicate`, once it arrived. */
async function findLog(predicate: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
  const parse = (text: string) => JSON.parse(text) as Record<string, unknown>
  return parse(await waitForLog(iam, (text) => text.startsWith('{') && predicate(parse(text))))
}

describe('unmatched routes', () => {
  it('answers 404 with the not_found body for an unknown path', async () => {
    const res = await fetch(`${iam.url}/no/such/route?x=1`)
    expect(res.status).toBe(404)
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    expect(await res.json()).toEqual(NOT_FOUND)
  })
  it('answers 404 for a known path with another method: an unmatched route, so no answer tells which paths exist', async () => {
    const res = await fetch(`${iam.url}/health`, { method: 'DELETE' })
    expect(res.status).toBe(404)
    expect(await res.json()).toEqual(NOT_FOUND)
    const post = await fetch(`${iam.url}/operational/config`, { method: 'POST' })
    expect(post.status).toBe(404)
    expect(await post.json()).toEqual(NOT_FOUND)
  })
  it('does not reveal the router message in the status line', async () => {
    const res = await fetch(`${iam.url}/no/such/route`)
    expect(res.statusText).toBe('Not Found')
  })
})

describe('unhandled errors', () => {
  it('answers 500 with the request id and never the error message', async () => {
    const res = await fetch(`${iam.url}/__test/throw`)
    expect(res.status).toBe(500)
    const requestId = res.headers.get('x-request-id')
    const text = await res.text()
    expect(JSON.parse(text)).toEqual({ error: 'Internal Server Error', code: 'internal_error', requestId })
    expect(text).not.toMatch(/S3cr3t|postgres|connect failed|stack|at /)
  })
  it('logs the error at error level with the request id and the stack', async () => {
    const res = await fetch(`${iam.url}/__test/throw`, { headers: { 'x-request-id': 'trace-err-1' } })
    expect(res.status).toBe(500)
    expect(await res.json()).toEqual({ error: 'Internal Server Error', code: 'internal_error', requestId: 'trace-err-1' })
    const line = await findLog((l) => l.level === 'error' && l.requestId === 'trace-err-1')
    expect(line).toBeDefined()
    expect(line?.msg).toBe('unhandled error')
    expect(JSON.stringify(line?.error)).toMatch(/throw\.get/)
  })
  it('keeps a response status above 415 set before the error', async () => {
    const res = await fetch(`${iam.url}/__test/throw?status=503`)
    expect(res.status).toBe(503)
    expect(await res.json()).toEqual({ error: 'Internal Server Error', code: 'internal_error', requestId: res.headers.get('x-request-id') })
  })
  it('uses 500 when the status set before the error is 415 or below', async () => {
    for (const status of [200, 400, 415]) {
      const res = await fetch(`${iam.url}/__test/throw?status=${status}`)
      expect(res.status).toBe(500)
      expect(await res.json()).toMatchObject({ error: 'Internal Server Error' })
    }
    const above = await fetch(`${iam.url}/__test/throw?status=416`)
    expect(above.status).toBe(416)
  })
})
