/**
 * The account's picture through the BFF (server/api/auth/picture*), against the real IAM behind
 * HMAC: the image travels to the IAM as its raw bytes under the signature, comes back from the
 * gateway's own origin with its type, ETag and the headers that keep it an image, and the session
 * state names where the pages load it from. The IAM's refusals reach the page with their codes; an
 * unsafe request without the CSRF header changes nothing.
 */
import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { etagOf, expectServedPicture, PNG, SVG, WEBP } from '../helpers/pictures'
import { browserLike, freshEmail, PASSWORD, setupStackOnSharedIam } from './bff-harness'

const stack = await setupStackOnSharedIam()

async function signedIn() {
  const email = freshEmail('picture')
  const b = browserLike(stack.gateway.url)
  const signup = await b.call('/api/auth/signup', { method: 'POST', body: { email, password: PASSWORD, confirmedPassword: PASSWORD, name: 'Ada Lovelace', termsConsent: 'on' } })
  expect(signup.status, signup.text).toBe(201)
  return { email, b }
}

type Browser = ReturnType<typeof browserLike>
const cookies = (b: Browser) => [...b.jar].map(([k, v]) => `${k}=${v}`).join('; ')

/** PUT /api/auth/picture as a page of the gateway sends a file: its bytes with its type. */
async function upload(b: Browser, bytes: Buffer, type: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${stack.gateway.url}/api/auth/picture`, {
    method: 'PUT',
    headers: { cookie: cookies(b), origin: new URL(stack.gateway.url).origin, 'sec-fetch-site': 'same-origin', 'x-csrf': '1', accept: 'application/json', 'content-type': type, ...headers },
    // a copy on an ArrayBuffer of its own: what fetch's BodyInit types take
    body: new Uint8Array(bytes),
  })
  return { status: res.status, json: (await res.json()) as Record<string, unknown> }
}

const read = (b: Browser, headers: Record<string, string> = {}) => fetch(`${stack.gateway.url}/api/auth/picture`, { headers: { cookie: cookies(b), 'sec-fetch-site': 'same-origin', ...headers } })

describe('the profile picture through the BFF', () => {
  it('uploads a PNG and serves it from the gateway byte for byte with its type, ETag, nosniff and a closed CSP', async () => {
    const { b } = await signedIn()
    const res = await upload(b, PNG, 'image/png')
    expect(res.status, JSON.stringify(res.json)).toBe(200)
    expect(res.json.data).toMatchObject({ source: 'upload', contentType: 'image/png' })
    await expectServedPicture(await read(b), PNG, 'image/png')
    const again = await read(b, { 'if-none-match': etagOf(PNG) })
    expect(again.status).toBe(304)
    // the header reads where to load it from in the session state
    expect((await b.call('/api/auth/session')).json.picture).toEqual({ source: 'upload', src: '/api/auth/picture' })
  })

  it('relays the refusal of an SVG declared as PNG with its code, and keeps the earlier picture', async () => {
    const { b } = await signedIn()
    expect((await upload(b, WEBP, 'image/webp')).status).toBe(200)
    const res = await upload(b, SVG, 'image/png')
    expect(res.status).toBe(415)
    expect(res.json.code).toBe('picture_type_unsupported')
    const got = await read(b)
    expect(got.headers.get('content-type')).toBe('image/webp')
    expect(Buffer.from(await got.arrayBuffer()).equals(WEBP)).toBe(true)
  })

  it('relays the IAM cap as 413 picture_too_large with the cap', async () => {
    const { b } = await signedIn()
    const res = await upload(b, Buffer.concat([PNG, Buffer.alloc(1024 * 1024)]), 'image/png')
    expect(res.status).toBe(413)
    expect(res.json).toMatchObject({ code: 'picture_too_large', limitBytes: 1024 * 1024 })
  })

  // the gateway takes up to the largest cap the IAM may be configured with, so a picture between
  // the IAM's cap and that ceiling reaches the IAM whole: the gateway must read the IAM's 413, not
  // lose it to a connection closed under its upload (a 502)
  it('relays the 413 for pictures well over the IAM cap every time, never a failed upstream', async () => {
    const { b } = await signedIn()
    for (const mib of [2, 4, 2, 4]) {
      const res = await upload(b, Buffer.concat([PNG, Buffer.alloc(mib * 1024 * 1024 - PNG.length)]), 'image/png')
      expect(res.status, JSON.stringify(res.json)).toBe(413)
      expect(res.json).toMatchObject({ code: 'picture_too_large', limitBytes: 1024 * 1024 })
    }
  })

  it('switches to Gravatar and back to none, the session state naming the Gravatar address while chosen', async () => {
    const { b, email } = await signedIn()
    const chosen = await b.call('/api/auth/picture/choice', { method: 'POST', body: { source: 'gravatar' } })
    expect(chosen.status, chosen.text).toBe(200)
    const hash = createHash('sha256').update(email.trim().toLowerCase()).digest('hex')
    expect((await b.call('/api/auth/session')).json.picture).toEqual({ source: 'gravatar', src: `https://gravatar.com/avatar/${hash}?d=404&s=160` })
    expect((await b.call('/api/auth/picture/settings')).json.data).toMatchObject({ source: 'gravatar', maxBytes: 1024 * 1024 })
    expect((await b.call('/api/auth/picture/choice', { method: 'POST', body: { source: 'none' } })).status).toBe(200)
    expect((await b.call('/api/auth/session')).json.picture).toBeNull()
    const none = await b.call('/api/auth/picture')
    expect(none.status).toBe(404)
    expect(none.json.code).toBe('picture_not_found')
  })

  it('refuses an upload or a choice without the CSRF header and changes nothing', async () => {
    const { b } = await signedIn()
    expect((await upload(b, PNG, 'image/png', { 'x-csrf': '' })).status).toBe(403)
    expect((await b.call('/api/auth/picture/choice', { method: 'POST', body: { source: 'gravatar' }, headers: { 'x-csrf': '' } })).status).toBe(403)
    expect((await b.call('/api/auth/session')).json.picture).toBeNull()
  })

  it('answers 401 signed_out to a browser without a session', async () => {
    const b = browserLike(stack.gateway.url)
    const res = await b.call('/api/auth/picture')
    expect(res.status).toBe(401)
    expect(res.json.code).toBe('signed_out')
  })
})
