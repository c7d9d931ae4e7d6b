/**
 * The account's picture (features/users/profile-picture.ts, docs/accounts.md "Profile picture"):
 * PUT /auth/picture takes PNG, JPEG and WebP by their magic bytes and nothing else, within the
 * configured cap; GET /auth/picture answers the bytes with their type, an ETag and the headers that
 * keep them an image; POST /auth/picture/choice switches to Gravatar or none and drops the upload.
 * Every refusal leaves what was stored as it was, and one account never reaches another's picture.
 */
import { describe, expect, it } from 'vitest'
import { call, newDevice, type Session } from '../helpers/accounts'
import { signupConfirmed } from '../helpers/confirm-email'
import type { Json } from '../helpers/iam-server'
import { etagOf, expectServedPicture, GIF, JPEG, PNG, SVG, WEBP } from '../helpers/pictures'
import { sharedIam, sharedSmtp } from '../helpers/shared-iam'
import { expectDocumented } from './documented'
import { authed } from './second-factor-http'
import { createHash } from 'node:crypto'
import { connect } from 'node:net'

const iam = sharedIam()
const mails = sharedSmtp()
/** the shared IAM runs with the default cap (iam/lib/config-schema.ts profilePicture.maxBytes) */
const CAP = 1024 * 1024

const upload = (s: Session, bytes: Buffer, contentType?: string) =>
  fetch(`${iam.url}/auth/picture`, {
    method: 'PUT',
    headers: {
      'user-agent': s.ua,
      'x-forwarded-for': s.ip,
      cookie: `canary_id=${s.canary}; session=${s.refreshToken}`,
      authorization: `Bearer ${s.accessToken}`,
      ...(contentType ? { 'content-type': contentType } : {}),
    },
    // a copy on an ArrayBuffer of its own: what fetch's BodyInit types take
    body: new Uint8Array(bytes),
  })

/**
 * Writes `bytes` on one connection, all at once as most clients do, and collects what comes back
 * until `responses` status lines have arrived or the server closed the connection.
 */
function exchange(bytes: Buffer, responses: number): Promise<{ statuses: string[]; text: string; error?: string }> {
  const url = new URL(iam.url)
  const socket = connect(Number(url.port), url.hostname)
  let text = ''
  let error: string | undefined
  const statuses = () => text.match(/HTTP\/1\.1 \d{3}/g) ?? []
  return new Promise((resolve) => {
    const done = () => {
      socket.destroy()
      resolve({ statuses: statuses(), text, error })
    }
    socket.on('data', (data: Buffer) => {
      text += data.toString('latin1')
      if (statuses().length >= responses) done()
    })
    socket.on('error', (failure) => (error = failure.message))
    socket.on('close', done)
    socket.write(bytes)
  })
}

const read = (s: Session, headers: Record<string, string> = {}) =>
  call(iam, 'GET', '/auth/picture', { client: s, cookies: { session: s.refreshToken }, bearer: s.accessToken, headers })

const settings = async (s: Session) => {
  const res = await authed(iam, s, 'GET', '/auth/picture/settings')
  const body = (await res.json()) as Json
  expect(res.status).toBe(200)
  expectDocumented('pictureSettings', 200, body)
  return body.data as { source: string; gravatarUrl: string | null; contentType: string | null; etag: string | null; maxBytes: number }
}

const footprintPictures = async (email: string) => {
  const res = await fetch(`${iam.url}/__test/account-footprint`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email }) })
  return ((await res.json()) as { rows: Record<string, number> }).rows.user_pictures
}

describe('PUT /auth/picture and GET /auth/picture', () => {
  it.each([
    ['image/png', PNG],
    ['image/jpeg', JPEG],
    ['image/webp', WEBP],
  ] as const)('accepts a %s picture and reads it back byte for byte with its type', async (type, bytes) => {
    const user = await signupConfirmed(iam, mails)
    const res = await upload(user, bytes, type)
    const body = (await res.json()) as Json
    expect(res.status, JSON.stringify(body)).toBe(200)
    expectDocumented('uploadPicture', 200, body)
    const etag = etagOf(bytes)
    expect(body.data).toEqual({ source: 'upload', gravatarUrl: null, contentType: type, etag, maxBytes: CAP })

    await expectServedPicture(await read(user), bytes, type)
    // the browser's copy is confirmed without the bytes
    const again = await read(user, { 'if-none-match': etag })
    expect(again.status).toBe(304)
    expect((await again.arrayBuffer()).byteLength).toBe(0)
  })

  it('replaces the earlier picture with the new one', async () => {
    const user = await signupConfirmed(iam, mails)
    expect((await upload(user, PNG, 'image/png')).status).toBe(200)
    expect((await upload(user, WEBP, 'image/webp')).status).toBe(200)
    const got = await read(user)
    expect(got.headers.get('content-type')).toBe('image/webp')
    expect(Buffer.from(await got.arrayBuffer()).equals(WEBP)).toBe(true)
    expect(await footprintPictures(user.email)).toBe(1)
  })

  it.each([
    ['an SVG declared as image/svg+xml', SVG, 'image/svg+xml', 'picture_type_unsupported'],
    ['an SVG declared as image/png', SVG, 'image/png', 'picture_type_unsupported'],
    ['a GIF', GIF, 'image/gif', 'picture_type_unsupported'],
    ['a GIF declared as image/png', GIF, 'image/png', 'picture_type_unsupported'],
    ['a PNG declared as image/jpeg', PNG, 'image/jpeg', 'picture_type_mismatch'],
    ['a PNG without a Content-Type', PNG, undefined, 'picture_type_unsupported'],
  ])('refuses %s with 415 and stores nothing', async (_what, bytes, type, code) => {
    const user = await signupConfirmed(iam, mails)
    const res = await upload(user, bytes, type)
    const body = (await res.json()) as Json
    expect(res.status, JSON.stringify(body)).toBe(415)
    expect(body.code).toBe(code)
    expectDocumented('uploadPicture', 415, body)
    expect((await settings(user)).source).toBe('none')
    expect((await read(user)).status).toBe(404)
    expect(await footprintPictures(user.email)).toBe(0)
  })

  it('refuses a picture one byte over the cap with 413 picture_too_large naming the cap, and keeps the earlier one', async () => {
    const user = await signupConfirmed(iam, mails)
    expect((await upload(user, PNG, 'image/png')).status).toBe(200)
    const big = Buffer.concat([PNG, Buffer.alloc(CAP + 1 - PNG.length)])
    const res = await upload(user, big, 'image/png')
    const body = (await res.json()) as Json
    expect(res.status).toBe(413)
    expect(body).toMatchObject({ code: 'picture_too_large', limitBytes: CAP })
    expectDocumented('uploadPicture', 413, body)
    expect(Buffer.from(await (await read(user)).arrayBuffer()).equals(PNG)).toBe(true)
    // exactly the cap is taken
    expect((await upload(user, big.subarray(0, CAP), 'image/png')).status).toBe(200)
  })

  // Most clients write their whole body before they read: a server that answers and closes
  // mid-body resets the connection under the write, and the client sees a broken pipe instead of
  // the 413 (shared/read-bounded.ts dropRest).
  it('lets a client that writes a whole over-cap picture first read the 413, and serves its next request on the same connection', async () => {
    const user = await signupConfirmed(iam, mails)
    const big = Buffer.concat([PNG, Buffer.alloc(2 * CAP - PNG.length)])
    const head =
      `PUT /auth/picture HTTP/1.1\r\nHost: iam\r\nUser-Agent: ${user.ua}\r\nX-Forwarded-For: ${user.ip}\r\n` +
      `Cookie: canary_id=${user.canary}; session=${user.refreshToken}\r\nAuthorization: Bearer ${user.accessToken}\r\n` +
      `Content-Type: image/png\r\nContent-Length: ${big.length}\r\n\r\n`
    const health = `GET /health HTTP/1.1\r\nHost: iam\r\nUser-Agent: ${user.ua}\r\nX-Forwarded-For: ${user.ip}\r\n\r\n`
    const answer = await exchange(Buffer.concat([Buffer.from(head), big, Buffer.from(health)]), 2)
    expect(answer.error).toBeUndefined()
    expect(answer.statuses).toEqual(['HTTP/1.1 413', 'HTTP/1.1 200'])
    expect(answer.text).toContain('"code":"picture_too_large"')
  })

  it('answers every over-cap upload sent through fetch with a readable 413', async () => {
    const user = await signupConfirmed(iam, mails)
    for (const size of [CAP + 1, 2 * CAP, 3 * CAP, CAP + 1, 2 * CAP, 3 * CAP]) {
      const res = await upload(user, Buffer.concat([PNG, Buffer.alloc(size - PNG.length)]), 'image/png')
      expect(res.status).toBe(413)
      expect(((await res.json()) as Json).code).toBe('picture_too_large')
    }
  })

  it('refuses an empty upload with 400 picture_empty and stores nothing', async () => {
    const user = await signupConfirmed(iam, mails)
    const res = await upload(user, Buffer.alloc(0), 'image/png')
    const body = (await res.json()) as Json
    expect(res.status).toBe(400)
    expect(body.code).toBe('picture_empty')
    expectDocumented('uploadPicture', 400, body)
    expect(await footprintPictures(user.email)).toBe(0)
  })

  it('answers 401 without a session, for the upload and the read', async () => {
    const client = await newDevice(iam)
    expect((await call(iam, 'GET', '/auth/picture', { client })).status).toBe(401)
    const res = await fetch(`${iam.url}/auth/picture`, { method: 'PUT', headers: { 'user-agent': client.ua, 'x-forwarded-for': client.ip, 'content-type': 'image/png' }, body: PNG })
    expect(res.status).toBe(401)
  })

  it('lets no account read or replace another account picture: each session reaches its own alone', async () => {
    const owner = await signupConfirmed(iam, mails)
    const other = await signupConfirmed(iam, mails)
    expect((await upload(owner, PNG, 'image/png')).status).toBe(200)
    // the other account has none to read, whatever the owner holds
    const theirs = await read(other)
    expect(theirs.status).toBe(404)
    expect(((await theirs.json()) as Json).code).toBe('picture_not_found')
    // and its upload lands on its own account
    expect((await upload(other, WEBP, 'image/webp')).status).toBe(200)
    expect(Buffer.from(await (await read(owner)).arrayBuffer()).equals(PNG)).toBe(true)
    expect(Buffer.from(await (await read(other)).arrayBuffer()).equals(WEBP)).toBe(true)
  })
})

describe('POST /auth/picture/choice', () => {
  it('switches to Gravatar by the SHA-256 of the trimmed lowercased address, drops the upload, and the session metadata names it', async () => {
    const user = await signupConfirmed(iam, mails)
    expect((await upload(user, PNG, 'image/png')).status).toBe(200)
    const res = await authed(iam, user, 'POST', '/auth/picture/choice', { source: 'gravatar' })
    const body = (await res.json()) as Json
    expect(res.status).toBe(200)
    expectDocumented('choosePicture', 200, body)
    const hash = createHash('sha256').update(user.email.trim().toLowerCase()).digest('hex')
    const url = `https://gravatar.com/avatar/${hash}?d=404&s=160`
    expect(body.data).toEqual({ source: 'gravatar', gravatarUrl: url, contentType: null, etag: null, maxBytes: CAP })
    expect((await read(user)).status).toBe(404)
    expect(await footprintPictures(user.email)).toBe(0)
    const metadata = (await (await authed(iam, user, 'GET', '/secret/accesstoken/metadata')).json()) as Json
    expect(metadata.picture).toEqual({ source: 'gravatar', gravatarUrl: url })
  })

  it('removes the picture with none', async () => {
    const user = await signupConfirmed(iam, mails)
    expect((await upload(user, JPEG, 'image/jpeg')).status).toBe(200)
    expect((await authed(iam, user, 'POST', '/auth/picture/choice', { source: 'none' })).status).toBe(200)
    expect(await settings(user)).toMatchObject({ source: 'none', gravatarUrl: null, etag: null })
    expect((await read(user)).status).toBe(404)
    expect(await footprintPictures(user.email)).toBe(0)
  })

  it('refuses another source with 400 at the field', async () => {
    const user = await signupConfirmed(iam, mails)
    for (const source of ['upload', 'https://example.com/a.png', '']) {
      const res = await authed(iam, user, 'POST', '/auth/picture/choice', { source })
      const body = (await res.json()) as Json
      expect(res.status, source).toBe(400)
      expect(body.fields).toHaveProperty('source')
    }
    expect((await settings(user)).source).toBe('none')
  })
})

describe('the picture in the account export', () => {
  it('carries the uploaded picture as base64 with its type', async () => {
    const user = await signupConfirmed(iam, mails)
    expect((await upload(user, WEBP, 'image/webp')).status).toBe(200)
    const res = await authed(iam, user, 'GET', '/auth/export')
    expect(res.status).toBe(200)
    const document = (await res.json()) as { picture: Json }
    expect(document.picture).toEqual({ source: 'upload', contentType: 'image/webp', base64: WEBP.toString('base64'), updatedAt: expect.any(String) })
    expect(Buffer.from(document.picture.base64 as string, 'base64').equals(WEBP)).toBe(true)
  })

  it('says none without a picture', async () => {
    const user = await signupConfirmed(iam, mails)
    const document = (await (await authed(iam, user, 'GET', '/auth/export')).json()) as { picture: Json }
    expect(document.picture).toEqual({ source: 'none', contentType: null, base64: null, updatedAt: null })
  })
})

describe('the upload limiter (rate_limiters.picture)', () => {
  /** the shared IAM runs with the default: 20 uploads an hour per account (iam/lib/config-schema.ts) */
  const POINTS = 20

  it('takes 20 uploads an hour from one account, answers the next 429 with Retry-After and keeps the stored picture, while another account still uploads', async () => {
    const user = await signupConfirmed(iam, mails)
    for (let i = 0; i < POINTS; i++) expect((await upload(user, PNG, 'image/png')).status).toBe(200)
    const refused = await upload(user, JPEG, 'image/jpeg')
    const body = (await refused.json()) as Json
    expect(refused.status).toBe(429)
    expectDocumented('uploadPicture', 429, body)
    expect(body.code).toBe('rate_limited')
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
    const kept = await read(user)
    expect(kept.headers.get('content-type')).toBe('image/png')
    expect(Buffer.from(await kept.arrayBuffer()).equals(PNG)).toBe(true)

    const other = await signupConfirmed(iam, mails)
    expect((await upload(other, JPEG, 'image/jpeg')).status).toBe(200)
  })
})
