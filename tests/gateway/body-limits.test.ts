/**
 * Request bodies are bounded before they are buffered (server/utils/request-body.ts): BFF JSON and
 * form bodies at 8 kB, the OAuth form_post callback at 64 kB. A declared oversized length is
 * refused before reading; an endless chunked body is cut at the limit; both are 413 and the
 * gateway keeps serving. The rest of a refused body is dropped within a bound, so the connection
 * stays open for a client still writing; past the bound it is closed. Runs the built gateway against the built IAM.
 */
// store-independent: bodies are refused by the gateway before they reach the IAM, so no store is reached
import { request as httpRequest } from 'node:http'
import { describe, expect, it } from 'vitest'
import { BFF_BODY_LIMIT_BYTES, CALLBACK_BODY_LIMIT_BYTES } from '../../server/utils/request-body'
import { drainBound } from '../../shared/read-bounded'
import { browserLike, setupStackOnSharedIam } from './bff-harness'

// answers with form_post: POST /oauth/callback/acme is an authorization response
const acme = {
  kind: 'oauth',
  name: 'acme',
  // never contacted: the callbacks here carry a provider error, answered before discovery
  authorizationEndpoint: 'http://127.0.0.1:9/authorize',
  tokenEndpoint: 'http://127.0.0.1:9/token',
  userInfoEndpoint: 'http://127.0.0.1:9/userinfo',
  clientId: 'client',
  clientSecret: 'secret',
  redirectUri: 'http://127.0.0.1:3000/oauth/callback/acme',
  redirectUrlOnSuccess: 'http://127.0.0.1:3000/account',
  redirectUrlOnError: 'http://127.0.0.1:3000/auth/error',
  extraAuthParams: { response_mode: 'form_post' },
}

// the gateway project's shared IAM: the IAM needs no config of its own here
const stack = await setupStackOnSharedIam({ OAuthProviders: [acme] })

interface RawAnswer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

/**
 * node:http, for what fetch cannot send. Either declares a length and sends nothing
 * (`headersOnly`), or sends `chunk` repeatedly, chunked with no Content-Length, until more than
 * `overBytes` are out, and never ends the body: an answer can only come from a server that stops
 * reading at its limit (one that waits for the end of the body never answers).
 */
function send(opts: { path: string; headers: Record<string, string>; chunk?: string; overBytes?: number; headersOnly?: boolean }): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    let answered = false
    const req = httpRequest(`${stack.gateway.url}${opts.path}`, { method: 'POST', headers: opts.headers }, (res) => {
      answered = true
      let body = ''
      res.on('data', (data: Buffer) => (body += data.toString()))
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body })
        req.destroy()
      })
    })
    req.on('error', (error) => {
      if (!answered) reject(error)
    })
    if (opts.headersOnly) {
      req.flushHeaders()
      return
    }
    const chunk = opts.chunk ?? 'x'.repeat(1024)
    for (let sent = 0; sent <= (opts.overBytes ?? 0); sent += Buffer.byteLength(chunk)) req.write(chunk)
  })
}

const browserHeaders = (origin: string) => ({ origin, 'sec-fetch-site': 'same-origin', 'x-csrf': '1' })

async function expectStillServing() {
  const res = await fetch(`${stack.gateway.url}/api/auth/session`)
  expect(res.status).toBe(200)
}

describe('BFF JSON bodies', () => {
  it('refuses a declared Content-Length over 8 kB with 413 before the body is sent, keeping the connection for the body to be dropped', async () => {
    const res = await send({
      path: '/api/auth/login',
      headers: { ...browserHeaders(stack.gateway.url), 'content-type': 'application/json', 'content-length': String(BFF_BODY_LIMIT_BYTES + 1) },
      headersOnly: true,
    })
    expect(res.status).toBe(413)
    expect(JSON.parse(res.body)).toEqual({ ok: false, error: 'Payload too large', code: 'payload_too_large' })
    // a client that writes its whole body before reading can finish and read this (shared/read-bounded.ts dropRest)
    expect(res.headers.connection).toBe('keep-alive')
  })

  it('closes the connection after the 413 when the declared length is past what it would drop', async () => {
    const res = await send({
      path: '/api/auth/login',
      headers: { ...browserHeaders(stack.gateway.url), 'content-type': 'application/json', 'content-length': String(drainBound(BFF_BODY_LIMIT_BYTES) + 1) },
      headersOnly: true,
    })
    expect(res.status).toBe(413)
    expect(JSON.parse(res.body)).toEqual({ ok: false, error: 'Payload too large', code: 'payload_too_large' })
    expect(res.headers.connection).toBe('close')
  })

  it('answers 413 to a chunked body that passes 8 kB without waiting for its end, and keeps serving', async () => {
    const res = await send({
      path: '/api/auth/login',
      headers: { ...browserHeaders(stack.gateway.url), 'content-type': 'application/json' },
      chunk: `{"email":"${'a'.repeat(1000)}`,
      overBytes: BFF_BODY_LIMIT_BYTES,
    })
    expect(res.status).toBe(413)
    expect(JSON.parse(res.body)).toEqual({ ok: false, error: 'Payload too large', code: 'payload_too_large' })
    await expectStillServing()
  })

  it('passes a normal-size body on (the IAM answers 401) and a padded one under 8 kB to the schema (400, not 413)', async () => {
    const b = browserLike(stack.gateway.url)
    const small = await b.call('/api/auth/login', { method: 'POST', body: { email: 'nobody@example.com', password: 'wrong password 123' } })
    expect(small.status).toBe(401)
    // the schema still refuses an oversized field: 400, not 413, under the byte limit
    const padded = await b.call('/api/auth/login', { method: 'POST', body: { email: 'nobody@example.com', password: 'p'.repeat(BFF_BODY_LIMIT_BYTES - 100) } })
    expect(padded.status).toBe(400)
    expect(padded.json.fields).toHaveProperty('password')
  })
})

describe('no-JS form posts (the CSRF check reads the form)', () => {
  const formHeaders = () => ({
    origin: stack.gateway.url,
    'sec-fetch-site': 'same-origin',
    'content-type': 'application/x-www-form-urlencoded',
    cookie: `__Host-csrf=${'A'.repeat(43)}`,
  })

  it('refuses a declared oversized form with 413', async () => {
    const res = await send({ path: '/api/auth/logout', headers: { ...formHeaders(), 'content-length': String(BFF_BODY_LIMIT_BYTES + 1) }, headersOnly: true })
    expect(res.status).toBe(413)
    expect(JSON.parse(res.body)).toEqual({ ok: false, error: 'Payload too large', code: 'payload_too_large' })
  })

  it('answers 413 to a chunked form that passes 8 kB without waiting for its end, and keeps serving', async () => {
    const res = await send({ path: '/api/auth/logout', headers: formHeaders(), chunk: `_csrf=${'A'.repeat(43)}&pad=${'x'.repeat(1000)}`, overBytes: BFF_BODY_LIMIT_BYTES })
    expect(res.status).toBe(413)
    expect(JSON.parse(res.body)).toEqual({ ok: false, error: 'Payload too large', code: 'payload_too_large' })
    await expectStillServing()
  })

  it('still accepts a normal-size form with the right token', async () => {
    const b = browserLike(stack.gateway.url)
    b.jar.set('__Host-csrf', 'A'.repeat(43))
    const res = await b.call('/api/auth/logout', {
      method: 'POST',
      body: new URLSearchParams({ _csrf: 'A'.repeat(43) }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-csrf': '' },
    })
    expect(res.status).toBe(303)
  })
})

describe('OAuth form_post callback', () => {
  const callbackHeaders = { 'content-type': 'application/x-www-form-urlencoded' }
  const errorOf = (res: Response) => new URL(res.headers.get('location') ?? 'http://x/').searchParams.get('error')

  it('refuses a declared Content-Length over 64 kB with 413', async () => {
    const res = await send({ path: '/oauth/callback/acme', headers: { ...callbackHeaders, 'content-length': String(CALLBACK_BODY_LIMIT_BYTES + 1) }, headersOnly: true })
    expect(res.status).toBe(413)
    expect(JSON.parse(res.body)).toEqual({ error: 'payload_too_large' })
  })

  it('answers 413 to a chunked callback body that passes 64 kB without waiting for its end, and keeps serving', async () => {
    const res = await send({ path: '/oauth/callback/acme', headers: callbackHeaders, chunk: `x=${'y'.repeat(4094)}&`, overBytes: CALLBACK_BODY_LIMIT_BYTES })
    expect(res.status).toBe(413)
    expect(JSON.parse(res.body)).toEqual({ error: 'payload_too_large' })
    await expectStillServing()
  })

  it('reads an authorization response of a few tens of kB (a large ID token fits)', async () => {
    const body = new URLSearchParams({ error: 'access_denied', state: 's', pad: 'x'.repeat(40 * 1024) }).toString()
    const res = await fetch(`${stack.gateway.url}/oauth/callback/acme`, { method: 'POST', headers: callbackHeaders, body, redirect: 'manual' })
    expect(res.status).toBe(302)
    expect(errorOf(res)).toBe('access_denied')
  })
})
