import { defineEventHandler } from 'h3'
import { useIam } from '../../context'
import { serveScim } from '../../http/scim'

/** /scim/** : the SCIM 2.0 service of the organization whose token the request carries (iam/http/scim.ts, docs/scim.md). */
export default defineEventHandler((event) => serveScim(event, useIam()))
