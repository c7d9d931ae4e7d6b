import { request as httpRequest } from 'node:http'
import { describe, expect, it } from 'vitest'
import { sharedIam } from '../helpers/shared-iam'

const iam = sharedIam()

const JSON_TYPE = { 'content-type': 'application/json' }

async function post(path: string, body: string | undefined, headers: Record<string, string> = JSON_TYPE) {
  const res = await fetch(`${iam.url}${path}`, { method: 'POST', headers, body })
  const text = await res.text()
  return { status: res.status, text, json: text ? (JSON.parse(text) as unknown) : undefined }
}

/** A JSON object whose serialisation is exactly `bytes` long. */
function jsonOfSize(bytes: number): string {
  const base = JSON.stringify({ pad: '' })
  return JSON.stringify({ pad: 'x'.repeat(bytes - base.length) })
}

/** node:http, for what fetch cannot send: chunked bodies, GET bodies, a declared length without a body. */
function raw(opts: {
  method: string
  path: string
  headers?: Record<string, string>
  chunks?: string[]
  /** send the headers only and wait for the answer */
  headersOnly?: boolean
}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${iam.url}${opts.path}`, { method: opts.method, headers: opts.headers }, (res) => {
      let body = ''
      res.on('data', (chunk: Buffer) => (body += chunk.toString()))
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body })
        req.destroy()
      })
    })
    req.on('error', reject)
    if (opts.headersOnly) {
      req.flushHeaders()
      return
    }
    for (const chunk of opts.chunks ?? []) req.write(chunk)
    req.end()
  })
}

describe('JSON routes: Content-Type', () => {
  it('answers 403 "not allowed." without application/json', async () => {
    expect(await post('/__test/echo', '{"a":1}', { 'content-type': 'text/plain' })).toMatchObject({ status: 403, json: { error: 'not allowed.' } })
    expect(await post('/__test/echo', '{"a":1}', { 'content-type': 'application/x-www-form-urlencoded' })).toMatchObject({
      status: 403,
      json: { error: 'not allowed.' },
    })
    expect(await post('/__test/echo', '{"a":1}', { 'content-type': 'application/json; charset=latin1' })).toMatchObject({
      status: 403,
      json: { error: 'not allowed.' },
    })
  })
  it('answers 403 "not allowed." without any Content-Type', async () => {
    const res = await raw({ method: 'POST', path: '/__test/echo', chunks: ['{"a":1}'] })
    expect(res.status).toBe(403)
    expect(JSON.parse(res.body)).toEqual({ error: 'not allowed.', code: 'content_type_not_json' })
  })
  it('accepts application/json with a utf-8 charset, in any case', async () => {
    expect(await post('/__test/echo', '{"a":"é"}', { 'content-type': 'Application/JSON; charset=UTF-8' })).toMatchObject({
      status: 200,
      json: { a: 'é' },
    })
  })
})

describe('JSON routes: body', () => {
  it('rejects an empty body with 403', async () => {
    expect(await post('/__test/echo', '')).toMatchObject({ status: 403, json: { error: 'Empty body' } })
    expect(await post('/__test/echo', '  \n ')).toMatchObject({ status: 403, json: { error: 'Empty body' } })
  })
  it('rejects malformed JSON with 400', async () => {
    expect(await post('/__test/echo', '{"a":')).toMatchObject({ status: 400, json: { error: 'Malformed JSON' } })
    expect(await post('/__test/echo', "{'a':1}")).toMatchObject({ status: 400, json: { error: 'Malformed JSON' } })
  })
  it('rejects bytes that are not UTF-8 with 400', async () => {
    const res = await fetch(`${iam.url}/__test/echo`, { method: 'POST', headers: JSON_TYPE, body: Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d]) })
    expect(res.status).toBe(400)
    expect(await res.json()).toEqual({ error: 'Malformed JSON', code: 'malformed_json' })
  })
  it('rejects JSON that is not an object with 400', async () => {
    for (const body of ['[1,2]', '42', '"text"', 'null', 'true']) {
      expect(await post('/__test/echo', body)).toMatchObject({ status: 400, json: { error: 'JSON body must be an object' } })
    }
  })
  it('passes the parsed object to the route, without __proto__ keys', async () => {
    expect(await post('/__test/echo', '{"a":{"b":[1,"x"]},"__proto__":{"admin":true}}')).toEqual({
      status: 200,
      text: '{"a":{"b":[1,"x"]}}',
      json: { a: { b: [1, 'x'] } },
    })
  })
  it('refuses compressed bodies with 415', async () => {
    const res = await post('/__test/echo', '{"a":1}', { ...JSON_TYPE, 'content-encoding': 'gzip' })
    expect(res).toMatchObject({ status: 415, json: { error: 'Content-Encoding not supported' } })
  })
})

describe('JSON routes: size limits', () => {
  it('accepts exactly 1kb (1024 bytes) and answers 413 above it', async () => {
    const ok = jsonOfSize(1024)
    expect(Buffer.byteLength(ok)).toBe(1024)
    expect(await post('/__test/echo', ok)).toMatchObject({ status: 200, json: JSON.parse(ok) })
    expect(await post('/__test/echo', jsonOfSize(1025))).toMatchObject({ status: 413, json: { error: 'Payload too large' } })
  })
  it('counts bytes, not characters', async () => {
    const body = JSON.stringify({ pad: 'é'.repeat(510) }) // 1020 characters, 1530 bytes
    expect(await post('/__test/echo', body)).toMatchObject({ status: 413, json: { error: 'Payload too large' } })
  })
  it('allows 4kb where the rule says so (the limit of POST /auth/OAuth/:providerName)', async () => {
    expect(await post('/__test/echo-4kb', jsonOfSize(4096))).toMatchObject({ status: 200 })
    expect(await post('/__test/echo-4kb', jsonOfSize(4097))).toMatchObject({ status: 413, json: { error: 'Payload too large' } })
  })
  it('applies 4kb to POST /auth/OAuth/:providerName', async () => {
    const within = await post('/auth/OAuth/demo', jsonOfSize(3000))
    expect(within.status).not.toBe(413)
    expect(within.status).not.toBe(403)
    expect(await post('/auth/OAuth/demo', jsonOfSize(4097))).toMatchObject({ status: 413, json: { error: 'Payload too large' } })
    expect(await post('/login', jsonOfSize(3000))).toMatchObject({ status: 413, json: { error: 'Payload too large' } })
  })
  it('refuses a declared Content-Length over the limit before reading any body', async () => {
    // only the headers are sent: an answer proves the server did not wait for the body
    const res = await raw({ method: 'POST', path: '/__test/echo', headers: { ...JSON_TYPE, 'content-length': '100000' }, headersOnly: true })
    expect(res.status).toBe(413)
    expect(JSON.parse(res.body)).toEqual({ error: 'Payload too large', code: 'payload_too_large' })
  })
  it('counts the bytes actually read when no length is declared (chunked)', async () => {
    const res = await raw({ method: 'POST', path: '/__test/echo', headers: JSON_TYPE, chunks: ['{"pad":"', 'x'.repeat(600), 'x'.repeat(600), '"}'] })
    expect(res.status).toBe(413)
    expect(JSON.parse(res.body)).toEqual({ error: 'Payload too large', code: 'payload_too_large' })
    const small = await raw({ method: 'POST', path: '/__test/echo', headers: JSON_TYPE, chunks: ['{"a"', ':1}'] })
    expect(small).toEqual({ status: 200, body: '{"a":1}' })
  })
})

describe('cookie-only routes (acceptCookieOnly)', () => {
  const session = { cookie: 'session=abc; canary_id=def' }
  it('answers 401 "Refresh token missing" without the session cookie, before the 400 checks', async () => {
    expect(await post('/__test/cookie-only', undefined, {})).toMatchObject({ status: 401, json: { error: 'Refresh token missing' } })
    expect(await post('/__test/cookie-only', undefined, { cookie: 'canary_id=def; session=' })).toMatchObject({
      status: 401,
      json: { error: 'Refresh token missing' },
    })
    expect(await post('/__test/cookie-only?x=1', '{"a":1}', JSON_TYPE)).toMatchObject({ status: 401, json: { error: 'Refresh token missing' } })
  })
  it('rejects any body with 400 "Request body not allowed"', async () => {
    expect(await post('/__test/cookie-only', 'x', session)).toMatchObject({ status: 400, json: { error: 'Request body not allowed' } })
    expect(await post('/__test/cookie-only', '{"a":1}', { ...session, ...JSON_TYPE })).toMatchObject({
      status: 400,
      json: { error: 'Request body not allowed' },
    })
  })
  it('rejects a chunked body with 400 "Request body not allowed"', async () => {
    const res = await raw({ method: 'POST', path: '/__test/cookie-only', headers: session, chunks: ['a', 'b'] })
    expect(res.status).toBe(400)
    expect(JSON.parse(res.body)).toEqual({ error: 'Request body not allowed', code: 'cookie_only' })
  })
  it('rejects a body on a cookie-only GET', async () => {
    const res = await raw({ method: 'GET', path: '/__test/cookie-only', headers: { ...session, 'content-length': '2' }, chunks: ['{}'] })
    expect(res.status).toBe(400)
    expect(JSON.parse(res.body)).toEqual({ error: 'Request body not allowed', code: 'cookie_only' })
  })
  it('rejects a query string with 400 "Query string not allowed"', async () => {
    expect(await post('/__test/cookie-only?a=1', undefined, session)).toMatchObject({ status: 400, json: { error: 'Query string not allowed' } })
    const get = await fetch(`${iam.url}/__test/cookie-only?flag`, { headers: session })
    expect(get.status).toBe(400)
    expect(await get.json()).toEqual({ error: 'Query string not allowed', code: 'cookie_only' })
  })
  it('rejects a Content-Type header with 400 "Content-Type not allowed"', async () => {
    expect(await post('/__test/cookie-only', undefined, { ...session, ...JSON_TYPE })).toMatchObject({
      status: 400,
      json: { error: 'Content-Type not allowed' },
    })
  })
  it('lets a request with only cookies through', async () => {
    expect(await post('/__test/cookie-only', undefined, session)).toMatchObject({ status: 200, json: { ok: true } })
    const get = await fetch(`${iam.url}/__test/cookie-only`, { headers: session })
    expect(get.status).toBe(200)
    expect(await get.json()).toEqual({ ok: true })
  })
})
