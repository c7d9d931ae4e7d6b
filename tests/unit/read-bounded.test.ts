/**
 * shared/read-bounded.ts reads a request body under a ceiling, for both apps. A body the parser has
 * already finished (it arrived with the headers) is taken from the stream's buffer at once; one
 * still arriving is read as it comes. Both must give the same bytes and the same refusal, and leave
 * the connection usable for the next request. The rest of a refused body is dropped as it arrives
 * (dropRest), within a bound past which the connection ends. Driven through a real HTTP server and
 * raw sockets, so the timing of the body's arrival is the test's to choose.
 */
import { createServer, type Server } from 'node:http'
import { connect, type AddressInfo } from 'node:net'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { drainBound, readBodyWithin } from '../../shared/read-bounded'

const LIMIT = 64
let server: Server
let port = 0

beforeAll(async () => {
  server = createServer((req, res) => {
    // as the apps do: the body is asked for a few turns after the request started
    setImmediate(async () => {
      const complete = req.complete
      // what the apps read with (iam/http/raw-body.ts, server/utils/request-body.ts)
      const body = await readBodyWithin(req, res, LIMIT)
      if (body === 'close') res.setHeader('connection', 'close')
      // one line a response, the body in base64: nothing in it can look like the framing
      res.end(`answer ${complete} ${typeof body === 'string' ? 'too-large' : body.toString('base64')};`)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  port = (server.address() as AddressInfo).port
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

interface Answer {
  complete: boolean
  body: string
}

/**
 * Sends `parts` on one connection (a pause between them) and returns each response's body, in
 * order, once `responses` have come; with `untilClosed`, once the server has ended the connection too.
 */
async function exchange(parts: string[], responses: number, untilClosed = false): Promise<Answer[]> {
  const socket = connect(port, '127.0.0.1')
  let received = ''
  let closed = false
  socket.on('data', (d) => (received += d.toString('utf8')))
  socket.on('close', () => (closed = true))
  // a reset under a write the server no longer reads is the closing this file asks for
  socket.on('error', () => undefined)
  for (const part of parts) {
    if (!closed) socket.write(part)
    await new Promise((resolve) => setTimeout(resolve, 30))
  }
  const answers = () => [...received.matchAll(/answer (true|false) ([^;]*);/g)]
  while (answers().length < responses || (untilClosed && !closed)) await new Promise((resolve) => setTimeout(resolve, 5))
  socket.end()
  return answers().map(([, complete, body]) => ({ complete: complete === 'true', body: body === 'too-large' ? body : Buffer.from(body!, 'base64').toString('utf8') }))
}

const post = (body: string, extra = '') => `POST /x HTTP/1.1\r\nHost: t\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`

it('a body that came with its headers is read whole, and the connection serves the next request', async () => {
  const answers = await exchange([post('{"a":"first"}') + post('{"a":"second"}')], 2)
  expect(answers).toEqual([
    { complete: true, body: '{"a":"first"}' },
    { complete: true, body: '{"a":"second"}' },
  ])
})

it('a body still arriving is read as it comes, to the same bytes', async () => {
  const body = '{"a":"slow"}'
  const [head] = post(body).split(body)
  const answers = await exchange([head!, body.slice(0, 5), body.slice(5)], 1)
  expect(answers).toEqual([{ complete: false, body }])
})

it('a body over the limit is refused whether it came whole or in pieces', async () => {
  const big = `{"a":"${'x'.repeat(LIMIT)}"}`
  expect(await exchange([post(big)], 1)).toEqual([{ complete: true, body: 'too-large' }])
  const [head] = post(big).split(big)
  expect(await exchange([head!, big.slice(0, 10), big.slice(10)], 1)).toEqual([{ complete: false, body: 'too-large' }])
})

it('a chunked body sent whole is read whole, and an empty one is empty', async () => {
  const chunked = 'POST /x HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n'
  expect(await exchange([chunked], 1)).toEqual([{ complete: true, body: 'hello world' }])
  expect(await exchange([post('')], 1)).toEqual([{ complete: true, body: '' }])
})

it('a refused body within the drain bound is dropped as it arrives, so the connection serves the next request', async () => {
  const big = 'x'.repeat(LIMIT * 3)
  const [head] = post(big).split(big)
  const next = post('{"a":"next"}')
  expect(await exchange([head!, big.slice(0, 10), big.slice(10), next], 2)).toEqual([
    { complete: false, body: 'too-large' },
    { complete: true, body: '{"a":"next"}' },
  ])
  // a declared length past the limit is refused before any byte is read, and dropped alike
  expect(await exchange([head!, big, next], 2)).toEqual([
    { complete: false, body: 'too-large' },
    { complete: true, body: '{"a":"next"}' },
  ])
  const chunked = `POST /x HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n${(LIMIT * 2).toString(16)}\r\n${'y'.repeat(LIMIT * 2)}\r\n`
  expect(await exchange([chunked, '0\r\n\r\n', next], 2)).toEqual([
    { complete: false, body: 'too-large' },
    { complete: true, body: '{"a":"next"}' },
  ])
})

it('a body declared past the drain bound is refused at once, unread, and the connection ends', async () => {
  const head = `POST /x HTTP/1.1\r\nHost: t\r\nContent-Length: ${drainBound(LIMIT) + 1}\r\n\r\n`
  expect(await exchange([head, 'x'.repeat(100)], 1, true)).toEqual([{ complete: false, body: 'too-large' }])
})

it('a body without a length that runs past the drain bound ends the connection once refused', async () => {
  const chunk = 'z'.repeat(16 * 1024)
  const head = `POST /x HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n`
  // never terminated: only the server's cut can end this exchange
  const parts = [head, ...Array.from({ length: Math.ceil(drainBound(LIMIT) / chunk.length) + 2 }, () => `${chunk.length.toString(16)}\r\n${chunk}\r\n`)]
  expect(await exchange(parts, 1, true)).toEqual([{ complete: false, body: 'too-large' }])
})

it('drops up to four times the limit, and never less than 64 KiB', () => {
  expect(drainBound(64)).toBe(64 * 1024)
  expect(drainBound(1024 * 1024)).toBe(4 * 1024 * 1024)
})
