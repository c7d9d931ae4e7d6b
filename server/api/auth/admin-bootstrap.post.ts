/**
 * POST /api/auth/admin-bootstrap `{ code }` (signed in) -> IAM POST /auth/admin-bootstrap: the
 * account becomes the first platform administrator with the code the running IAM wrote to its data
 * dir while no administrator exists (docs/administration.md). 403 `reauthenticate` asks for a fresh
 * sign-in proof in place, as every sensitive account action does.
 */
import { readIamBody } from '../../utils/bff/input'
import { defineBffHandler, relay } from '../../utils/bff/respond'
import { callAuthedRoute } from '../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const { body } = await readIamBody(event, 'adminBootstrap')
  return relay(event, await callAuthedRoute(event, 'adminBootstrap', { body }))
})
