/**
 * Checks an answer against the route table: the status is documented for the route, the body
 * parses with its schema, and a failure's `code` is one the route declares for that status.
 */
import { expect } from 'vitest'
import type { RouteContract } from '../../iam/contract/define'
import { codeProblem } from '../../iam/contract/responses'
import { ROUTES, type RouteId } from '../../iam/contract/routes'

export function expectDocumented(id: RouteId, status: number, body: unknown): void {
  const route = ROUTES[id] as RouteContract
  const documented = route.responses[status]
  expect(documented, `${id} does not document ${status}`).toBeDefined()
  expect(documented!.body?.safeParse(body).success ?? true, `${id} ${status} ${JSON.stringify(body)}`).toBe(true)
  expect(codeProblem(route, status, body), `${id} ${status} ${JSON.stringify(body)}`).toBeUndefined()
}
