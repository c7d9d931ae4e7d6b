import { ROUTES } from '../contract/routes'
import { openApiDocument } from '../lib/openapi'
import { defineRoute } from '../http/route'

/** GET /openapi.json: the OpenAPI 3.1 document generated from the route table (HMAC-exempt by its entry). */
export default defineRoute(ROUTES.openapi, [], () => openApiDocument())
