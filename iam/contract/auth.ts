/** Authentication routes (IAM spec "Authentication routes"). */
import { OAUTH_JSON_LIMIT_BYTES, cookieOnly, defineRoutes, json } from './define'

export const AUTH_ROUTES = defineRoutes({
  signup: {
    method: 'POST',
    path: '/signup',
    summary: 'Create an account and sign in',
    auth: 'none',
    limiters: ['signup'],
    request: json(),
    responses: {},
  },
  login: {
    method: 'POST',
    path: '/login',
    summary: 'Sign in with email and password',
    auth: 'none',
    limiters: ['loginIp', 'loginAccount', 'loginAccountDelay'],
    request: json(),
    responses: {},
  },
  oauthLogin: {
    method: 'POST',
    path: '/auth/OAuth/:providerName',
    summary: 'Sign in with a provider profile the gateway obtained',
    auth: 'none',
    limiters: ['oauth'],
    // A provider profile may carry fields we never read with newlines (OIDC address.formatted): only
    // unstorable text is refused here; the fields we read are checked in full by their schema.
    request: json(OAUTH_JSON_LIMIT_BYTES, { text: 'storable' }),
    responses: {},
  },
  refreshSession: {
    method: 'POST',
    path: '/auth/user/refresh-session',
    summary: 'Rotate the session: a new token pair for the refresh token',
    auth: 'session',
    limiters: ['refresh'],
    request: cookieOnly,
    responses: {},
  },
  logout: {
    method: 'POST',
    path: '/auth/logout',
    summary: 'End this session',
    auth: 'bearer+session',
    limiters: [],
    request: cookieOnly,
    responses: {},
  },
})
