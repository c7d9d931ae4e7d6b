/**
 * The OpenID Provider's interactions (features/oidc/interactions.ts): what the gateway's
 * /interaction/:uid page needs to show a sign-in or consent request, and the three ways it ends
 * (the signed-in account continues, grants consent, or cancels). The gateway forwards the
 * browser's `_interaction` cookies, which bind the request to the browser that started it; the
 * provider's own endpoints live under /oidc and are not in this table (routes/oidc).
 */
import { z } from 'zod'
import { defineRoutes, json, noBody } from './define'
import { errorFail, failure, FULL_AUTH, JSON_BODY_FIELDS, okData, REAUTH, responses, type Responses } from './responses'

/** What GET /auth/oidc/interaction/:uid answers with (features/oidc/interactions.ts builds it). */
export interface InteractionView {
  uid: string
  prompt: 'login' | 'consent'
  /** `metadataDocumentHost`: the host of a client known only by its metadata document (not verified by us) */
  client: { name: string; firstParty: boolean; metadataDocumentHost: string | null }
  scopes: string[]
  /**
   * The APIs the app asks to use (RFC 8707) and their scopes; `descriptions` what a scope lets the
   * app do, as the API's configuration words it (`oidc.resourceServers[].scopeDescriptions`): per
   * scope, a text per language, `default` for one given without a language. A scope without one is
   * shown by its name.
   */
  resources: Array<{ indicator: string; scopes: string[]; descriptions: Record<string, Record<string, string>> }>
  loginHint: string | null
  /** OIDC Core 3.1.2.1 `ui_locales`: the languages the app asked for, most preferred first (BCP 47 tags) */
  uiLocales: string[]
  freshSignIn: { required: boolean; maxAgeSeconds: number | null }
}

const uidParams = z.object({ uid: z.string().regex(/^[A-Za-z0-9_-]{10,64}$/, 'Not an interaction id') })

const GONE = {
  404: failure('No such sign-in request in this browser (expired, finished, or started in another browser)', errorFail, 'interaction_not_found'),
} satisfies Responses
/** A uid the params schema refuses */
const NOT_AN_ID = failure('Not an interaction id', errorFail, 'validation_failed')

const redirect = okData(z.object({ redirectTo: z.string() }))

export const OIDC_ROUTES = defineRoutes({
  oidcInteraction: {
    method: 'GET',
    path: '/auth/oidc/interaction/:uid',
    summary: 'What an OpenID sign-in or consent request asks (the app, the scopes, the prompt)',
    auth: 'none',
    limiters: [],
    request: noBody,
    params: uidParams,
    responses: responses(
      {
        200: {
          description: 'the request',
          body: okData(
            z.object({
              uid: z.string(),
              prompt: z.enum(['login', 'consent']),
              client: z.object({ name: z.string(), firstParty: z.boolean(), metadataDocumentHost: z.string().nullable() }),
              scopes: z.array(z.string()),
              resources: z.array(z.object({ indicator: z.string(), scopes: z.array(z.string()), descriptions: z.record(z.string(), z.record(z.string(), z.string())) })),
              loginHint: z.string().nullable(),
              uiLocales: z.array(z.string()),
              freshSignIn: z.object({ required: z.boolean(), maxAgeSeconds: z.number().int().nullable() }),
            }),
          ),
        },
        400: NOT_AN_ID,
      },
      GONE,
    ),
  },
  oidcInteractionLogin: {
    method: 'POST',
    path: '/auth/oidc/interaction/:uid/login',
    summary: 'Continue an OpenID sign-in request as the signed-in account',
    auth: 'full',
    guards: ['not-impersonated'],
    limiters: [],
    request: noBody,
    params: uidParams,
    responses: responses(
      { 200: { description: 'where the browser goes next', body: redirect } },
      { 400: NOT_AN_ID },
      { 400: failure('Not a sign-in step', errorFail, 'interaction_wrong_step') },
      GONE,
      FULL_AUTH,
      REAUTH,
    ),
  },
  oidcInteractionConsent: {
    method: 'POST',
    path: '/auth/oidc/interaction/:uid/consent',
    summary: 'Allow the app what it asked for',
    auth: 'full',
    guards: ['not-impersonated'],
    limiters: [],
    request: noBody,
    params: uidParams,
    responses: responses(
      { 200: { description: 'where the browser goes next', body: redirect } },
      { 400: NOT_AN_ID },
      { 400: failure('Not a consent step', errorFail, 'interaction_wrong_step'), 403: failure('Signed in as another account than the request', errorFail, 'interaction_other_account') },
      GONE,
      FULL_AUTH,
    ),
  },
  oidcInteractionAbort: {
    method: 'POST',
    path: '/auth/oidc/interaction/:uid/abort',
    summary: 'Cancel an OpenID sign-in or consent request (the app gets access_denied)',
    auth: 'none',
    limiters: [],
    request: noBody,
    params: uidParams,
    responses: responses({ 200: { description: 'where the browser goes next', body: redirect }, 400: NOT_AN_ID }, GONE),
  },
  oidcConnectedApps: {
    method: 'GET',
    path: '/auth/oidc/apps',
    summary: 'The apps the account signed in to with us, and what each may access',
    auth: 'full',
    limiters: [],
    request: noBody,
    responses: responses(
      {
        200: {
          description: 'connected apps, newest first',
          body: okData(z.object({ apps: z.array(z.object({ clientId: z.string(), name: z.string(), metadataDocumentHost: z.string().nullable(), scopes: z.array(z.string()), since: z.string() })) })),
        },
      },
      FULL_AUTH,
    ),
  },
  oidcRevokeApp: {
    method: 'POST',
    path: '/auth/oidc/apps/revoke',
    summary: 'Take an app\'s access back: its grants, tokens and codes for this account',
    auth: 'full',
    limiters: [],
    request: json(),
    // a registered client's id, or the https URL of a metadata-document client (features/oidc/client-metadata-documents.ts)
    body: z.object({
      clientId: z
        .string({ error: 'The app is required' })
        .min(1)
        .max(512)
        .regex(/^(?:[A-Za-z0-9_-]{1,64}|https:\/\/[\x21-\x7e]+)$/, 'Not an app id'),
    }),
    responses: responses(
      {
        200: { description: 'access revoked', body: okData(z.object({ revoked: z.literal(true) })) },
        400: failure('Validation failed', errorFail, 'validation_failed'),
        404: failure('The app has no access to this account', errorFail, 'app_not_found'),
      },
      JSON_BODY_FIELDS,
      FULL_AUTH,
    ),
  },
})
