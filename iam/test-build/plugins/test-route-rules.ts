/** Test build only: the request rules of routes/__test, when IAM_TEST_ROUTES=1 enables them. */
import { defineNitroPlugin } from 'nitropack/runtime'
import { addRouteRules } from '../../contract/route-rules'
import { testRoutesEnabled } from '../enabled'
import { TEST_ROUTE_RULES } from '../route-rules'

export default defineNitroPlugin(() => {
  if (testRoutesEnabled(process.env)) addRouteRules(TEST_ROUTE_RULES)
})
