/** Checks an answer against the route table: the status is documented for the route and the body parses with its schema. */
import { expect } from 'vitest'
import type { RouteContract } from '../../iam/contract/define'
import { ROUTES, type RouteId } from '../../iam/contract/routes'

export function expectDocumented(id: RouteId, status: number, body: unknown): void {
  const documented = (ROUTES[id] as RouteContract).responses[status]
  expect(documented, `${id} does not document ${status}`).toBeDefined()
  expect(documented!.body?.safeParse(body).success ?? true, `${id} ${status} ${JSON.stringify(body)}`).toBe(true)
}
