import { describe, expect, it } from 'vitest'
import { AnswerHeaders } from '../../iam/client/iam-client'

/** Raw answers as undici gives them: names and values alternating, as they came on the wire. */
const ANSWERS: Record<string, (Buffer | string)[]> = {
  'a JSON answer': ['Content-Type', 'application/json; charset=utf-8', 'Cache-Control', 'no-store', 'Content-Length', '17'],
  'three Set-Cookie lines and a repeated Vary': [
    'set-cookie', 'a=1; Path=/; HttpOnly', 'Vary', 'Origin', 'Set-Cookie', 'b=2; Path=/oidc; Secure', 'vary', 'Accept-Encoding', 'SET-COOKIE', 'c=3, d=4; Path=/',
  ],
  'names in mixed case, as buffers': [Buffer.from('WWW-Authenticate'), Buffer.from('Basic realm="x"'), Buffer.from('Location'), Buffer.from('/interaction/abc?x=1')],
  'a latin1 value': [Buffer.from('X-Name'), Buffer.from([0x63, 0x61, 0x66, 0xe9])],
  'no headers': [],
}

const asWhatwg = (raw: (Buffer | string)[]) => {
  const headers = new Headers()
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(String(typeof raw[i] === 'string' ? raw[i] : (raw[i] as Buffer).toString('latin1')), typeof raw[i + 1] === 'string' ? (raw[i + 1] as string) : (raw[i + 1] as Buffer).toString('latin1'))
  return headers
}

const pairs = (headers: { forEach(cb: (value: string, name: string) => void): void }) => {
  const out: string[] = []
  headers.forEach((value, name) => out.push(`${name}: ${value}`))
  return out.sort()
}

describe('AnswerHeaders reads an answer as a WHATWG Headers would', () => {
  it.each(Object.entries(ANSWERS))('%s: get, has, getSetCookie and forEach give what Headers gives', (_, raw) => {
    const ours = new AnswerHeaders(raw)
    const theirs = asWhatwg(raw)
    for (const name of ['content-type', 'Content-Type', 'set-cookie', 'vary', 'VARY', 'location', 'www-authenticate', 'x-name', 'absent']) {
      expect(ours.get(name), name).toBe(theirs.get(name))
      expect(ours.has(name), name).toBe(theirs.has(name))
    }
    expect(ours.getSetCookie()).toEqual(theirs.getSetCookie())
    expect(pairs(ours)).toEqual(pairs(theirs))
  })

  it('keeps the headers in the order they arrived, each name once apart from Set-Cookie', () => {
    const names: string[] = []
    new AnswerHeaders(ANSWERS['three Set-Cookie lines and a repeated Vary']).forEach((_, name) => names.push(name))
    expect(names).toEqual(['set-cookie', 'set-cookie', 'set-cookie', 'vary'])
  })

  it('gives a copy of the Set-Cookie lines: changing it changes nothing', () => {
    const headers = new AnswerHeaders(['set-cookie', 'a=1'])
    headers.getSetCookie().push('b=2')
    expect(headers.getSetCookie()).toEqual(['a=1'])
  })
})
