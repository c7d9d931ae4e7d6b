import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RouteContract } from '../../iam/contract/define'
import { ROUTES } from '../../iam/contract/routes'
import { startIam, type IamServer } from '../helpers/iam-server'

// Starting IAM processes (PGlite boot, migrations) is slow on a loaded shared machine.
const START_TIMEOUT_MS = 180_000
const ROUTER_404 = { error: "The page you are looking for doesn't exists" }

// A value for each path parameter the router would accept and the route would not refuse as unknown.
const PARAM_VALUES: Record<string, string> = { providerName: 'demo', reason: 'ROUTE_CONTRACT' }

let iam: IamServer
beforeAll(async () => {
  iam = await startIam({ config: { providers: [{ name: 'demo', useStandardProfile: true }] } })
}, START_TIMEOUT_MS)
afterAll(() => iam?.stop())

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

  it('answers every entry with something other than the router 404', async () => {
    const unserved: string[] = []
    for (const [id, entry] of Object.entries(ROUTES) as Array<[string, RouteContract]>) {
      const path = entry.path.replace(/:(\w+)/g, (_, name: string) => PARAM_VALUES[name] ?? 'x')
      const answer = await call(entry.method, path)
      if (isRouter404(answer)) unserved.push(`${id} (${entry.method} ${path})`)
    }
    expect(unserved, `table entries the IAM does not serve: ${unserved.join(', ')}`).toEqual([])
  })
})
