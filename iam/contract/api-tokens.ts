/** API tokens: verification, management and revoke-all (docs/api-tokens.md). */
import { z } from 'zod'
import { ipRestrictionBody, newTokenBody, PRIVILEGES, privilegeUpdateBody, revokeAllBody, tokenRefBody } from './api-token-inputs'
import { defineRoutes, manageJson, noBody, untouched } from './define'
import { FULL_AUTH, JSON_BODY_REASON, LIMITED, XSS, bannedBody, failure, okData, reasonFail, responses } from './responses'

const privilege = z.enum(PRIVILEGES)
const verifySuccess = z.object({
  name: z.string(),
  tokenId: z.number().int(),
  userId: z.number().int(),
  createdAt: z.string(),
  expiresAt: z.string().nullable(),
  lastUsed: z.string().nullable(),
  usageCount: z.number().int(),
  providedPrivilege: privilege,
})
const tokenCounts = z.object({ total: z.number().int(), totalInvalidTokens: z.number().int(), totalValidTokens: z.number().int() })
const tokenList = tokenCounts.extend({
  tokenList: z
    .array(
      z.object({
        id: z.number().int(),
        name: z.string(),
        created_at: z.string(),
        expires_at: z.string().nullable(),
        restricted_to_ip_address: z.array(z.string()).nullable(),
        public_identifier: z.string(),
        last_used: z.string().nullable(),
        usage_count: z.number().int(),
        privilege_type: privilege,
      }),
    )
    .optional(),
})

/** Every POST action: full authentication, the body rules, then in this order the union limiter, XSS, schema, operation limiter (a refused body spends no operation point). */
const MANAGE = responses(FULL_AUTH, JSON_BODY_REASON, XSS, LIMITED, {
  400: failure("The body does not match the action's schema (`Bad Request`)", reasonFail, 'bad_request'),
})

/** What a token action answers when the helper refuses it or fails (features/api-tokens, docs/errors.md) */
const TOKEN_REFUSED = ['token_not_found', 'token_identity_mismatch', 'bad_request'] as const
const SERVER_FAILED = failure('Server error', reasonFail, 'internal_error')

export const API_TOKEN_ROUTES = defineRoutes({
  publicVerify: {
    method: 'GET',
    path: '/api/public/verify',
    summary: 'Verify an API token (x-api-key)',
    auth: 'none',
    apiKey: true,
    limiters: ['generalUnionLimiter', 'consumptionRateLimiter'],
    request: untouched,
    // the raw token comes in the x-api-key header; the privilege is checked by the controller
    // (an unknown one is 400 `Bad Request`, markup 403), so the query is documented, not parsed here
    query: z.object({ privilege: z.string().optional() }),
    responses: responses(
      { 200: { description: 'The token is valid for the privilege', body: okData(verifySuccess) } },
      {
        400: failure('Unknown privilege or unresolvable client IP (`Bad Request`)', reasonFail, 'bad_request'),
        401: failure('No api key, invalid key or host outside the allow-list', reasonFail, 'api_key_missing', 'api_key_invalid', 'host_not_allowed'),
        403: failure('Markup in the privilege: the device is banned', bannedBody, 'xss_rejected'),
        500: failure('Server error validating token.', reasonFail, 'internal_error'),
      },
      LIMITED,
    ),
  },
  newToken: {
    method: 'POST',
    path: '/api/manage/new-token',
    summary: 'Create an API token',
    auth: 'full',
    guards: ['not-impersonated'],
    limiters: ['generalUnionLimiter', 'newTokenCreationLimiter'],
    request: manageJson,
    body: newTokenBody,
    responses: responses(
      { 201: { description: 'Token created; the raw key is shown once', body: okData(z.object({ rawApiKey: z.string(), rawPublicId: z.string(), expiresAt: z.string().nullable() })) } },
      MANAGE,
      { 400: failure('Invalid prefix, privilege, name, expiry or IP list, or the token limit is reached', reasonFail, 'validation_failed', 'account_not_found', 'token_limit_reached') },
      { 500: failure('Server error creating token', reasonFail, 'internal_error') },
    ),
  },
  revokeToken: {
    method: 'POST',
    path: '/api/manage/revoke',
    summary: 'Revoke an API token',
    auth: 'full',
    limiters: ['generalUnionLimiter', 'revokeTokensLimiter'],
    request: manageJson,
    body: tokenRefBody,
    responses: responses(
      { 200: { description: 'Token revoked', body: okData(z.union([z.object({ msg: z.string(), invalidedTokenId: z.number().int(), userId: z.number().int() }), z.string()])) } },
      MANAGE,
      { 400: failure('The token reference is not valid (`Bad Request`, `Invalid identity`)', reasonFail, ...TOKEN_REFUSED) },
      { 401: failure('Token not found or unauthorized, or it could not be revoked', reasonFail, ...TOKEN_REFUSED, 'internal_error') },
    ),
  },
  tokenMetadata: {
    method: 'POST',
    path: '/api/manage/metadata',
    summary: "An API token's metadata",
    auth: 'full',
    limiters: ['generalUnionLimiter', 'getMetadataTokenLimiter'],
    request: manageJson,
    body: tokenRefBody,
    responses: responses(
      { 200: { description: "The token's metadata and the user's token counts", body: okData(z.object({ tokenMeta: verifySuccess, counts: tokenCounts })) } },
      MANAGE,
      { 400: failure('The token reference is not valid (`Bad Request`, `Invalid identity`)', reasonFail, ...TOKEN_REFUSED) },
      {
        401: failure(
          'Token not found, invalid, expired or unauthorized, or its metadata could not be read',
          reasonFail,
          ...TOKEN_REFUSED,
          'api_key_invalid',
          'host_not_allowed',
          'token_expired',
          'internal_error',
        ),
      },
    ),
  },
  rotateToken: {
    method: 'POST',
    path: '/api/manage/rotate',
    summary: 'Rotate an API token',
    auth: 'full',
    guards: ['not-impersonated'],
    limiters: ['generalUnionLimiter', 'rotationRateLimiter'],
    request: manageJson,
    body: tokenRefBody,
    responses: responses(
      { 200: { description: 'Rotated: the new raw key is shown once', body: okData(z.object({ msg: z.string(), newRawToken: z.string(), newExpiry: z.string().nullable() })) } },
      MANAGE,
      {
        400: failure(
          'Token not found, revoked, or not rotatable now; or the rotation failed',
          reasonFail,
          ...TOKEN_REFUSED,
          'token_revoked',
          'token_not_rotatable',
          'validation_failed',
          'account_not_found',
          'token_limit_reached',
          'internal_error',
        ),
      },
    ),
  },
  ipRestrictionUpdate: {
    method: 'POST',
    path: '/api/manage/ip-restriction-update',
    summary: "Replace an API token's IP restriction",
    auth: 'full',
    guards: ['not-impersonated'],
    limiters: ['generalUnionLimiter', 'ipRestrictionUpdate'],
    request: manageJson,
    body: ipRestrictionBody,
    responses: responses(
      { 200: { description: 'IP restriction replaced (omitted or empty: none)', body: okData(z.object({ msg: z.string() })) } },
      MANAGE,
      { 400: failure('Token not found or unauthorized, or the change could not be saved', reasonFail, ...TOKEN_REFUSED, 'internal_error') },
    ),
  },
  privilegeUpdate: {
    method: 'POST',
    path: '/api/manage/privilege-update',
    summary: "Replace an API token's privileges",
    auth: 'full',
    guards: ['not-impersonated'],
    limiters: ['generalUnionLimiter', 'privilegeUpdate'],
    request: manageJson,
    body: privilegeUpdateBody,
    responses: responses(
      { 200: { description: 'Privilege replaced', body: okData(z.object({ msg: z.string() })) } },
      MANAGE,
      { 400: failure('Token not found or unauthorized, or the change could not be saved', reasonFail, ...TOKEN_REFUSED, 'internal_error') },
    ),
  },
  revokeAllTokens: {
    method: 'POST',
    path: '/api/manage/revoke-all',
    summary: 'Revoke every valid API token of the user',
    auth: 'full',
    limiters: ['generalUnionLimiter', 'revokeAllLimiter'],
    request: manageJson,
    body: revokeAllBody,
    responses: responses(
      { 200: { description: 'Every valid token of the user revoked', body: okData(z.record(z.string(), z.unknown())) } },
      MANAGE,
      { 500: SERVER_FAILED },
    ),
  },
  listTokenMetadata: {
    method: 'GET',
    path: '/api/manage/list-metadata',
    summary: "The metadata of all the user's valid API tokens",
    auth: 'full',
    limiters: ['generalUnionLimiter'],
    request: noBody,
    responses: responses(
      { 200: { description: "The user's valid tokens (tokenList omitted when none)", body: okData(tokenList) } },
      FULL_AUTH,
      { 500: SERVER_FAILED },
      LIMITED,
    ),
  },
  // POST list-metadata is answered 400 `Bad Request` by the controller (the listing is GET), not 403/413 by a body rule.
  listTokenMetadataPost: {
    method: 'POST',
    path: '/api/manage/list-metadata',
    summary: 'Not allowed (the listing is GET): answers 400 Bad Request',
    auth: 'full',
    limiters: ['generalUnionLimiter'],
    request: noBody,
    responses: responses(
      { 400: failure('Always `Bad Request` (the listing is GET)', reasonFail, 'bad_request') },
      FULL_AUTH,
      LIMITED,
    ),
  },
})
