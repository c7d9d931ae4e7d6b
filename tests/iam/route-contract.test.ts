import { describe, expect, it } from 'vitest'
import type { RouteContract } from '../../iam/contract/define'
import { codeProblem, documentedResponses } from '../../iam/contract/responses'
import { ROUTES, type RouteId } from '../../iam/contract/routes'
import { applyRefresh, authedGet, call as clientCall, loginUser, newDevice, refresh, setCookieValue, signupBody, uniqueEmail, type Session } from '../helpers/accounts'
import { sharedIam } from '../helpers/shared-iam'

const ROUTER_404 = { error: "The page you are looking for doesn't exists", code: 'not_found' }

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

  it('answers every entry with something other than the router 404, with a status, body and code its entry documents', async () => {
    const unserved: string[] = []
    const undocumented: string[] = []
    for (const [id, entry] of Object.entries(ROUTES) as Array<[string, RouteContract]>) {
      const path = entry.path.replace(/:(\w+)/g, (_, name: string) => PARAM_VALUES[name] ?? 'x')
      // no credentials, no body: each route answers its first refusal (or, for open GETs, its success)
      const answer = await call(entry.method, path)
      if (isRouter404(answer)) unserved.push(`${id} (${entry.method} ${path})`)
      const documented = documentedResponses(entry)[answer.status]
      const problem = codeProblem(entry, answer.status, answer.body)
      if (!documented || (documented.body && !documented.body.safeParse(answer.body).success) || problem) {
        undocumented.push(`${id}: ${answer.status} ${JSON.stringify(answer.body)}${problem ? ` (${problem})` : ''}`)
      }
    }
    expect(unserved, `table entries the IAM does not serve: ${unserved.join(', ')}`).toEqual([])
    expect(undocumented, `answers the table does not document: ${undocumented.join('; ')}`).toEqual([])
  })
})

describe('the test build refuses a failure whose code is not declared (iam/test-build/plugins/declared-codes.ts)', () => {
  const answer = (query: string) => call('GET', `/__test/answer?${query}`)

  it('lets a failure through whose code is in the vocabulary (a path outside the table declares nothing more)', async () => {
    expect(await answer('status=409&code=own_account')).toEqual({ status: 409, body: { error: 'A test answer', code: 'own_account' } })
  })

  it('turns a failure without a code into a 500 that names the problem', async () => {
    const refused = await answer('status=403')
    expect(refused.status).toBe(500)
    expect(refused.body).toMatchObject({ code: 'internal_error', undeclared: { where: 'GET /__test/answer', problem: 'a 403 answer without a code' } })
  })

  it('turns a failure whose code is outside the vocabulary into a 500 that names it', async () => {
    const refused = await answer('status=400&code=no_such_code')
    expect(refused.status).toBe(500)
    expect(refused.body).toMatchObject({ code: 'internal_error', undeclared: { problem: expect.stringContaining('"no_such_code"') } })
  })

  it('judges the 202 of a pending MFA too, and leaves other successes alone', async () => {
    expect((await answer('status=202&code=made_up')).status).toBe(500)
    expect(await answer('status=200')).toEqual({ status: 200, body: { error: 'A test answer' } })
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
