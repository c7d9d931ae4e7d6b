import type { IncomingMessage, ServerResponse } from 'node:http'

/** The example API as a request listener (server.mjs). */
export function ordersApi(options: {
  issuer: string
  audience: string
  jwksUri?: string
  introspection?: { clientId: string; clientSecret: string }
  session?: { issuer: string; audience: string; jwksUri: string }
}): (req: IncomingMessage, res: ServerResponse) => Promise<void>
