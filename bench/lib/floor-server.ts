/**
 * What the floors (bench/rotation-floor.mjs, bench/login-floor.mjs) share: the answer of a
 * session handed out (an EdDSA access token signed through jose, both cookies, 201) and the
 * serving, started and stopped like the baselines (bench/baseline-server.mjs).
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createApp, setCookie, setResponseStatus, toNodeListener, type H3Event, type Router } from 'h3'
import { generateKeyPair, SignJWT } from 'jose'

const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' })

/** The session `token` handed out with an access token for `subject` and `sessionId`: 201. */
export async function sessionAnswer(event: H3Event, session: { token: string; subject: string; sessionId: string }): Promise<{ ok: true }> {
  const accessToken = await new SignJWT({ sid: session.sessionId })
    .setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt' })
    .setSubject(session.subject)
    .setIssuer('http://floor')
    .setAudience('http://floor')
    .setIssuedAt()
    .setExpirationTime('15m')
    .sign(privateKey)
  setCookie(event, 'session', session.token, { httpOnly: true, sameSite: 'lax', path: '/' })
  setCookie(event, 'access', accessToken, { httpOnly: true, sameSite: 'lax', path: '/' })
  setResponseStatus(event, 201)
  return { ok: true }
}

/** Serves `router` on PORT (0: any) of loopback, printing Nitro's "Listening on" line; SIGTERM closes it, then `close`. */
export function serve(router: Router, close: () => Promise<void>): void {
  const server = createServer(toNodeListener(createApp().use(router)))
  server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
    console.log(`Listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`)
  })
  process.once('SIGTERM', () => server.close(async () => {
    await close()
    process.exit(0)
  }))
}
