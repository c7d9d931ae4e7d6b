import { CHROME_UA } from '../../tests/helpers/accounts.ts'

/** Signs in through the gateway as a page of it would (CSRF header, same origin); returns its cookies. */
export async function gatewaySignIn(gatewayUrl, email, password) {
  const jar = new Map()
  const res = await fetch(`${gatewayUrl}/api/auth/login`, {
    method: 'POST',
    headers: { 'user-agent': CHROME_UA, accept: 'application/json', 'content-type': 'application/json', origin: gatewayUrl, 'sec-fetch-site': 'same-origin', 'x-csrf': '1' },
    body: JSON.stringify({ email, password }),
  })
  for (const line of res.headers.getSetCookie()) {
    const [pair = ''] = line.split(';')
    const eq = pair.indexOf('=')
    jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim())
  }
  if (res.status !== 200) throw new Error(`gateway sign-in answered ${res.status}: ${await res.text()}`)
  return [...jar].map(([k, v]) => `${k}=${v}`).join('; ')
}
