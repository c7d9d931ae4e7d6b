/**
 * Reading a request body with a ceiling, framework-free so the IAM and the gateway share it. A
 * declared Content-Length says nothing about a chunked body, so the count of bytes actually read
 * decides; past the limit nothing more is read or kept (the caller answers 413 and closes the
 * connection, which is cheaper than draining an endless body).
 */
import type { IncomingMessage } from 'node:http'

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
