/**
 * server/utils/request-cookies.ts reads a request's cookies as h3's getCookie does, parsing the
 * Cookie header once per request instead of at every read.
 */
import { IncomingMessage, ServerResponse } from 'node:http'
import { Socket } from 'node:net'
import { createEvent, getCookie } from 'h3'
import { describe, expect, it } from 'vitest'
import { requestCookie } from '../../server/utils/request-cookies'

function eventWith(cookie: string | undefined) {
  const req = new IncomingMessage(new Socket())
  if (cookie !== undefined) req.headers.cookie = cookie
  return createEvent(req, new ServerResponse(req))
}

const HEADERS = [
  undefined,
  '',
  'session=abc; canary_id=def',
  'session=abc;canary_id=def;  locale=de',
  // the first of a repeated name, as h3 reads it
  'session=first; session=second',
  'tz=Europe%2FBerlin; q="quoted value"; empty=; __Secure-a=eyJ.x.y',
  'no-equals; session=abc',
]
const NAMES = ['session', 'canary_id', 'locale', 'tz', 'q', 'empty', '__Secure-a', 'no-equals', 'absent']

describe('requestCookie', () => {
  it.each(HEADERS.map((header) => [header ?? '(no header)', header] as const))("reads every cookie of %s as h3's getCookie does", (_label, header) => {
    const ours = eventWith(header)
    const theirs = eventWith(header)
    expect(NAMES.map((name) => requestCookie(ours, name))).toEqual(NAMES.map((name) => getCookie(theirs, name)))
  })

  it('parses the header once per request: later reads answer from the first parse', () => {
    const event = eventWith('session=abc')
    expect(requestCookie(event, 'session')).toBe('abc')
    event.node.req.headers.cookie = 'session=changed'
    expect(requestCookie(event, 'session')).toBe('abc')
    expect(requestCookie(eventWith('session=changed'), 'session')).toBe('changed')
  })
})
