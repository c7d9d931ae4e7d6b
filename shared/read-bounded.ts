/**
 * Reading a request body with a ceiling, framework-free so the IAM and the gateway share it. A
 * declared Content-Length says nothing about a chunked body, so the count of bytes actually read
 * decides; past the limit nothing more is kept. The caller answers 413 at once and then drops the
 * rest of the body (`dropRest`): most clients write their whole body before they read, and a
 * server that answers and closes mid-body resets the connection under the client's write, so the
 * client sees a broken pipe instead of the 413. Dropping is bounded (`drainBound`): past it, the
 * connection is closed, which is cheaper than reading an endless body.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'

/**
 * What both apps read a body with: the bytes within `limit`, or 'too-large' with the rest of the
 * body being dropped (`dropRest`), or 'close' when it is too large even to drop and the 413 must
 * end the connection. A declared Content-Length past the limit is refused before any byte is read.
 */
export async function readBodyWithin(req: IncomingMessage, res: ServerResponse, limit: number): Promise<Buffer | 'too-large' | 'close'> {
  const declared = req.headers['content-length']
  const body = declared !== undefined && Number(declared) > limit ? 'too-large' : await readBounded(req, limit)
  if (body !== 'too-large') return body
  return dropRest(req, res, limit) ? 'too-large' : 'close'
}

/** Reads at most `limit` bytes; 'too-large' as soon as one more arrives (the rest is not read). */
export function readBounded(req: IncomingMessage, limit: number): Promise<Buffer | 'too-large'> {
  // A small body usually arrives with the headers, and the parser has finished the message before
  // the handler asks for it: its bytes wait in the stream's buffer, taken at once instead of through
  // the stream's events (resume, 'data', 'end': three turns of the event loop per request).
  if (req.complete && !req.readableFlowing && req.readableEncoding === null) {
    if (req.readableLength > limit) return Promise.resolve('too-large')
    return Promise.resolve((req.read() as Buffer | null) ?? Buffer.alloc(0))
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const cleanup = () => {
      req.off('data', onData)
      req.off('end', onEnd)
      req.off('error', onError)
      req.off('aborted', onAborted)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) {
        cleanup()
        req.pause()
        resolve('too-large')
        return
      }
      chunks.push(chunk)
    }
    const onEnd = () => {
      cleanup()
      resolve(Buffer.concat(chunks, size))
    }
    const onError = (error: Error) => {
      cleanup()
      reject(error)
    }
    const onAborted = () => onError(new Error('request aborted'))
    req.on('data', onData)
    req.on('end', onEnd)
    req.on('error', onError)
    req.on('aborted', onAborted)
  })
}

/**
 * How much of a refused body is still read and dropped: four times the limit, at least 64 KiB (a
 * body a little over a small JSON limit is an honest mistake worth a readable answer; one many
 * times any limit is not).
 */
export function drainBound(limit: number): number {
  return Math.max(4 * limit, 64 * 1024)
}

/**
 * After a refusal: takes the rest of the request body off the connection without keeping it, so
 * a client still writing can finish and read the answer, and the connection (HTTP/1.1 keep-alive)
 * serves its next request. Returns false when the declared length is past `drainBound(limit)`:
 * nothing is read, and the answer should carry `Connection: close`. A body without a declared
 * length that passes the bound while being dropped ends the connection once the answer is out.
 */
export function dropRest(req: IncomingMessage, res: ServerResponse, limit: number): boolean {
  if (req.complete) return true
  const bound = drainBound(limit)
  const declared = req.headers['content-length']
  if (declared !== undefined && Number(declared) > bound) return false
  let dropped = 0
  const onData = (chunk: Buffer) => {
    dropped += chunk.length
    if (dropped <= bound) return
    req.off('data', onData)
    req.pause()
    if (res.writableFinished) req.socket.destroy()
    else res.once('finish', () => req.socket.destroy())
  }
  // a body already past the bound by a declared length never gets here; one without a length is
  // counted from here on, which is within one chunk of the bytes the refusal read
  req.on('data', onData)
  req.resume()
  return true
}
