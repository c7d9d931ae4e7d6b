/**
 * A local k-anonymity range server (HIBP-compatible `GET /range/<5 hex>`): answers the suffixes of
 * the given passwords with a count, plus padding lines with count 0 when `Add-Padding: true`.
 * `misbehave` switches it to a broken service (a status and body of choice, or a dropped
 * connection) until it is called with undefined.
 */
import { createHash } from 'node:crypto'
import { createServer } from 'node:http'

/** What a broken range service does instead of answering the range. */
export type RangeMisbehaviour = { status: number; body?: string } | 'drop-connection'

export interface RangeServer {
  /** base URL ending in /range/ (config password.breachCheck.rangeApiUrl) */
  url: string
  requests: { path: string; padding: string | undefined }[]
  misbehave(how: RangeMisbehaviour | undefined): void
  stop(): Promise<void>
}

export async function startRangeServer(breached: string[]): Promise<RangeServer> {
  const hashes = breached.map((p) => createHash('sha1').update(p.normalize('NFKC'), 'utf8').digest('hex').toUpperCase())
  const requests: RangeServer['requests'] = []
  let misbehaviour: RangeMisbehaviour | undefined
  const server = createServer((req, res) => {
    const padding = req.headers['add-padding'] as string | undefined
    requests.push({ path: req.url ?? '', padding })
    if (misbehaviour === 'drop-connection') {
      req.socket.destroy()
      return
    }
    if (misbehaviour) {
      res.statusCode = misbehaviour.status
      res.end(misbehaviour.body ?? '')
      return
    }
    const match = /^\/range\/([0-9A-F]{5})$/i.exec(req.url ?? '')
    if (!match) {
      res.statusCode = 404
      res.end()
      return
    }
    const prefix = match[1]!.toUpperCase()
    const lines = hashes.filter((h) => h.startsWith(prefix)).map((h) => `${h.slice(5)}:42`)
    if (padding === 'true') for (let i = 0; i < 5; i++) lines.push(`${createHash('sha1').update(`pad${i}${prefix}`).digest('hex').toUpperCase().slice(5)}:0`)
    res.setHeader('content-type', 'text/plain')
    res.end(lines.join('\r\n'))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  return {
    url: `http://127.0.0.1:${port}/range/`,
    requests,
    misbehave: (how) => {
      misbehaviour = how
    },
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
