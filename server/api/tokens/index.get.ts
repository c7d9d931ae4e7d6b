/** GET /api/tokens -> IAM GET /api/manage/list-metadata: `{ ok, date, data: { total, totalInvalidTokens, totalValidTokens, tokenList? } }`. */
import { defineBffHandler, relay } from '../../utils/bff/respond'
import { callAuthed } from '../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const res = await callAuthed(event, { method: 'GET', path: '/api/manage/list-metadata' })
  return relay(event, res)
})
