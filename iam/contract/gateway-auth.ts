/** Gateway authorization routes (IAM spec "Gateway authorization"). */
import { cookieOnly, defineRoutes, noBody } from './define'

export const GATEWAY_AUTH_ROUTES = defineRoutes({
  secretData: {
    method: 'GET',
    path: '/secret/data',
    summary: 'The signed-in user (full authentication)',
    auth: 'full',
    limiters: [],
    request: noBody,
    responses: {},
  },
  accessTokenMetadata: {
    method: 'GET',
    path: '/secret/accesstoken/metadata',
    summary: 'The access token claims of this session',
    auth: 'full',
    limiters: [],
    request: cookieOnly,
    responses: {},
  },
})
