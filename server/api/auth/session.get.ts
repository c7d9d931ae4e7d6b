/**
 * GET /api/auth/session: the browser's session state, always 200 unless rate limited (the shapes:
 * server/utils/bff/session-state.ts). A page rendered by the server may already carry it
 * (server/middleware/35.signed-in-pages.ts), then the page does not ask again.
 */
import { defineBffHandler } from '../../utils/bff/respond'
import { readSessionState } from '../../utils/bff/session-state'

export default defineBffHandler(readSessionState)
