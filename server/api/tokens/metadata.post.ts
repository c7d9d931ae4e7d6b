/** POST /api/tokens/metadata `{ tokenId, publicIdentifier, name }` -> IAM POST /api/manage/metadata. */
import { readIamBody } from '../../utils/bff/input'
import { defineBffHandler, relay } from '../../utils/bff/respond'
import { callAuthedRoute } from '../../utils/bff/session'

export default defineBffHandler(async (event) => {
  const { body } = await readIamBody(event, 'tokenMetadata')
  const res = await callAuthedRoute(event, 'tokenMetadata', { body })
  return relay(event, res)
})
