/**
 * shared/read-bounded.ts reads a request body under a ceiling, for both apps. A body the parser has
 * already finished (it arrived with the headers) is taken from the stream's buffer at once; one
 * still arriving is read as it comes. Both must give the same bytes and the same refusal, and leave
 * the connection usable for the next request. Driven through a real HTTP server and raw sockets, so
 * the timing of the body's arrival is the test's to choose.
 */
import { createServer, type Server } from 'node:http'
import { connect, type AddressInfo } from 'node:net'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { readBounded } from '../../shared/read-bounded'

const LIMIT = 64
let server: Server
let port = 0

beforeAll(async () => {
  server = createServer((req, res) => {
    // as the apps do: the body is asked for a few turns after the request started
    setImmediate(async () => {
      const complete = req.complete
      const body = await readBounded(req, LIMIT)
      // one line a response, the body in base64: nothing in it can look like the framing
      res.end(`answer ${complete} ${body === 'too-large' ? body : body.toString('base64')};`)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  port = (server.address() as AddressInfo).port
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

/** Sends `parts` on one connection (a pause between them) and returns each response's JSON, in order. */
async function exchange(parts: string[], responses: number): Promise<Array<{ complete: boolean; body: string }>> {
  const socket = connect(port, '127.0.0.1')
  let received = ''
  socket.on('data', (d) => (received += d.toString('utf8')))
  for (const part of parts) {
    socket.write(part)
    await new Promise((resolve) => setTimeout(resolve, 30))
  }
  const answers = () => [...received.matchAll(/answer (true|false) ([^;]*);/g)]
  while (answers().length < responses) await new Promise((resolve) => setTimeout(resolve, 5))
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
