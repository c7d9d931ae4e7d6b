/** GET /api/auth/mfa/waiting -> IAM GET /auth/verify-mfa/waiting: where the emailed code went (masked) and why; 404 when none waits. */
import { callIamRoute } from '../../../utils/bff/iam-call'
import { defineBffHandler, relay } from '../../../utils/bff/respond'

export default defineBffHandler(async (event) => relay(event, await callIamRoute(event, 'waitingMfa', { cookies: ['canary_id', 'session'] })))
