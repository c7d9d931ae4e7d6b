/**
 * POST /api/auth/delete-account (signed in, no body) -> IAM POST /auth/delete-account: mails the
 * confirmation link (202). A 403 `reauthenticate: true` is relayed as it is: the page proves the
 * sign-in again and repeats; a 409 `last_owner` names the organizations to hand on first.
 */
import { defineBffHandler, relay } from '../../utils/bff/respond'
import { callAuthedRoute } from '../../utils/bff/session'

export default defineBffHandler(async (event) => relay(event, await callAuthedRoute(event, 'deleteAccount', {})))
