import { describe, expect, it } from 'vitest'
import type { RouteContract } from '../../iam/contract/define'
import { ROUTES, type RouteId } from '../../iam/contract/routes'
import { applyRefresh, authedGet, call as clientCall, loginUser, newDevice, refresh, setCookieValue, signupBody, uniqueEmail, type Session } from '../helpers/accounts'
import { sharedIam } from '../helpers/shared-iam'

const ROUTER_404 = { error: "The page you are looking for doesn't exists" }

// A value for each path parameter the router would accept and the route would not refuse as unknown.
const PARAM_VALUES: Record<string, string> = { providerName: 'demo', reason: 'ROUTE_CONTRACT' }

// the shared IAM's config is what this file needs: the proxy header trusted, the demo provider
const iam = sharedIam()

async function call(method: string, path: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${iam.url}${path}`, { method })
  const text = await res.text()
  let body: unknown = text
  try {
    body = JSON.parse(text)
  } catch {
    // a text body (GET /health) is not the router's 404 either
  }
  return { status: res.status, body }
}

const isRouter404 = (answer: { status: number; body: unknown }) => answer.status === 404 && JSON.stringify(answer.body) === JSON.stringify(ROUTER_404)

describe('every route table entry is served by the built IAM', () => {
  it('answers the router 404 for a path outside the table (what the check below looks for)', async () => {
    expect(isRouter404(await call('GET', '/not-in-the-table'))).toBe(true)
    expect(isRouter404(await call('POST', '/api/manage/not-an-action'))).toBe(true)
  })

  it('answers every entry with something other than the router 404, with a status and body its entry documents', async () => {
    const unserved: string[] = []
    const undocumented: string[] = []
    for (const [id, entry] of Object.entries(ROUTES) as Array<[string, RouteContract]>) {
      const path = entry.path.replace(/:(\w+)/g, (_, name: string) => PARAM_VALUES[name] ?? 'x')
      // no credentials, no body: each route answers its first refusal (or, for open GETs, its success)
      const answer = await call(entry.method, path)
      if (isRouter404(answer)) unserved.push(`${id} (${entry.method} ${path})`)
      const documented = entry.responses[answer.status]
      if (!documented || (documented.body && !documented.body.safeParse(answer.body).success)) {
        undocumented.push(`${id}: ${answer.status} ${JSON.stringify(answer.body)}`)
      }
    }
    expect(unserved, `table entries the IAM does not serve: ${unserved.join(', ')}`).toEqual([])
    expect(undocumented, `answers the table does not document: ${undocumented.join('; ')}`).toEqual([])
  })
})

/** The answer's status is documented for the route and its body parses with the documented schema. */
async function expectDocumented(id: RouteId, res: Response, status: number): Promise<unknown> {
  const body: unknown = await res.json()
  expect(res.status, `${id}: ${JSON.stringify(body)}`).toBe(status)
  const documented = (ROUTES[id] as RouteContract).responses[status]
  expect(documented, `${id} does not document ${status}`).toBeDefined()
  const parsed = documented!.body?.safeParse(body)
  expect(parsed?.success ?? true, `${id} ${status}: ${parsed?.error?.message}`).toBe(true)
  return body
}

describe('the success bodies of a signed-in session match the table', () => {
  it('documents what signup, login, the gateway routes, token management, refresh and logout answer', async () => {
    const client = await newDevice(iam, { ip: '203.0.113.90' })
    const email = uniqueEmail('contract')
    const signedUp = await clientCall(iam, 'POST', '/signup', { client, body: signupBody(email) })
    await expectDocumented('signup', signedUp, 201)
    expect(setCookieValue(signedUp, 'session')).toBeTruthy()
    let s: Session = await loginUser(iam, email, signupBody(email).password as string, client)
    await expectDocumented('login', await clientCall(iam, 'POST', '/login', { client, body: { email, password: s.password } }), 200)

    await expectDocumented('secretData', await authedGet(iam, s), 200)
    await expectDocumented('accessTokenMetadata', await authedGet(iam, s, '/secret/accesstoken/metadata'), 200)
    const authed = (path: string, body: unknown) => clientCall(iam, 'POST', path, { client: s, cookies: { session: s.refreshToken }, bearer: s.accessToken, body })
    const created = (await expectDocumented('newToken', await authed('/api/manage/new-token', { privilege: 'demo', name: 'contract' }), 201)) as {
      data: { rawPublicId: string }
    }
    const listed = (await expectDocumented('listTokenMetadata', await authedGet(iam, s, '/api/manage/list-metadata'), 200)) as {
      data: { tokenList: Array<{ id: number }> }
    }
    const ref = { tokenId: listed.data.tokenList[0]!.id, publicIdentifier: created.data.rawPublicId, name: 'contract' }
    await expectDocumented('tokenMetadata', await authed('/api/manage/metadata', ref), 200)

    const rotated = await refresh(iam, s)
    s = await applyRefresh(s, rotated.clone())
    await expectDocumented('refreshSession', rotated, 201)
    const out = await clientCall(iam, 'POST', '/auth/logout', { client: s, cookies: { session: s.refreshToken }, bearer: s.accessToken })
    await expectDocumented('logout', out, 200)
  })
})
