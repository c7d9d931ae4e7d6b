/**
 * A webhook receiver for tests: node:http on a loopback address, answering each path from a script
 * (the last answer repeats; `hang` never answers), and verifying every delivery with the
 * `standardwebhooks` package and the secrets registered for its path, never with the IAM's code:
 * as it arrives, or with `deferVerification` when `verifyReceived()` is called (the bench, whose
 * receiver shares the machine with the IAM it measures: a team's receiver runs elsewhere).
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Webhook } from 'standardwebhooks'
import type { Json } from './iam-server'

export interface Received {
  path: string
  headers: IncomingHttpHeaders
  body: string
  /** the payload when `Webhook.verify` accepted it with one of the path's secrets, else null */
  verified: Json | null
  error: string | null
}

export type Answer = { status: number; headers?: Record<string, string>; body?: string } | 'hang'

export interface WebhookReceiver {
  /** `http://<host>:<port>` */
  base: string
  received: Received[]
  scripts: Map<string, Answer[]>
  secrets: Map<string, string[]>
  at(path: string): Received[]
  /** verifies every delivery received and not verified yet (only `deferVerification` leaves any) */
  verifyReceived(): void
  /** answers every request still hanging (the socket is destroyed) */
  releaseHanging(): void
  stop(): Promise<void>
}

const flatHeaders = (headers: IncomingHttpHeaders): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).filter((entry): entry is [string, string] => typeof entry[1] === 'string'))

/** Verifies `body` with each secret in turn (standardwebhooks' Webhook.verify). */
export function verifyDelivery(secrets: readonly string[], headers: IncomingHttpHeaders, body: string): { verified: Json | null; error: string | null } {
  const errors: string[] = []
  for (const secret of secrets) {
    try {
      return { verified: new Webhook(secret).verify(body, flatHeaders(headers)) as Json, error: null }
    } catch (error) {
      errors.push((error as Error).message)
    }
  }
  return { verified: null, error: errors.join('; ') || 'no secret' }
}

/** Not verified yet: what a deferred delivery holds until verifyReceived(). */
const UNVERIFIED = 'not verified yet'

export async function startWebhookReceiver(host: string, options: { deferVerification?: boolean } = {}): Promise<WebhookReceiver> {
  const received: Received[] = []
  const scripts = new Map<string, Answer[]>()
  const secrets = new Map<string, string[]>()
  const hanging = new Set<ServerResponse>()
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const path = req.url ?? '/'
      const body = Buffer.concat(chunks).toString('utf8')
      const verdict = options.deferVerification ? { verified: null, error: UNVERIFIED } : verifyDelivery(secrets.get(path) ?? [], req.headers, body)
      received.push({ path, headers: req.headers, body, ...verdict })
      const script = scripts.get(path) ?? [{ status: 200 }]
      const answer = script.length > 1 ? script.shift()! : script[0]!
      if (answer === 'hang') {
        hanging.add(res)
        return
      }
      res.writeHead(answer.status, answer.headers ?? {})
      res.end(answer.body ?? 'ok')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, host, resolve))
  const releaseHanging = () => {
    for (const res of hanging) res.destroy()
    hanging.clear()
  }
  return {
    base: `http://${host}:${(server.address() as AddressInfo).port}`,
    received,
    scripts,
    secrets,
    at: (path) => received.filter((r) => r.path === path),
    verifyReceived: () => {
      for (const r of received) if (r.error === UNVERIFIED) Object.assign(r, verifyDelivery(secrets.get(r.path) ?? [], r.headers, r.body))
    },
    releaseHanging,
    stop: async () => {
      releaseHanging()
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}
