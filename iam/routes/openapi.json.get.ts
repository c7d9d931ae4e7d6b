import { defineEventHandler } from 'h3'
import { openApiDocument } from '../lib/openapi'

/** GET /openapi.json: the OpenAPI 3.1 document generated from the route table (HMAC-exempt by its entry). */
export default defineEventHandler(() => openApiDocument())
