/**
 * The IAM's route table (iam/contract/) as the HTTP tests walk it: every entry, a concrete path for
 * its pattern, and the query it needs to get past its own query check. Tests that cover "every route
 * of a kind" take their routes from here, so a new route is covered without touching them.
 */
import type { RouteContract } from '../../iam/contract/define'
import { linkQuery } from '../../iam/contract/inputs'
import { ROUTES } from '../../iam/contract/routes'

export interface TableRoute {
  id: string
  entry: RouteContract
  method: string
  /** the entry's pattern, as the table has it */
  pattern: string
  /** a concrete path with the link query when the entry declares one */
  url: string
}

/** A value for each path parameter of the table; a parameter missing here fails the file at load. */
const PATH_PARAMS: Record<string, string> = {
  ':reason': 'PAYMENT_CONFIRM',
  ':providerName': 'demo',
  // the shape of an interaction id (no such interaction)
  ':uid': 'interaction-uid-0001',
  // the shape of an organization id (no such organization)
  ':orgId': '00000000-0000-4000-8000-00000000000a',
  // the shape of a user's public id (no such user)
  ':userId': '00000000-0000-4000-8000-00000000000e',
  // a mail kind of the catalogue and a supported language (iam/contract/mail-templates.ts)
  ':kind': 'passwordReset',
  ':locale': 'de',
  // the shape of a webhook endpoint id and a delivery id (no such endpoint)
  ':endpointId': 'ep_AAAAAAAAAAAAAAAAAAAAAA',
  ':deliveryId': '1',
  // the shape of a SAML connection id (no such connection)
  ':connectionId': '00000000-0000-4000-8000-00000000000f',
  // a metadata-document host name (not blocked)
  ':host': 'agent.example',
}

export function concretePath(pattern: string): string {
  return pattern.replace(/:[A-Za-z]+/g, (param) => {
    const value = PATH_PARAMS[param]
    if (!value) throw new Error(`no test value for ${param} in ${pattern}: add one to PATH_PARAMS in tests/iam/route-table.ts`)
    return value
  })
}

/** A well-shaped (unusable) magic link: the routes that take one check its shape before anything else. */
export const LINK_QUERY = `?token=a.b.c&random=${'A'.repeat(43)}&reason=change_email&visitor=v1`

/** Whether the entry's query is the magic-link query. */
export const takesLink = (entry: RouteContract) => entry.query === linkQuery

export const TABLE: readonly TableRoute[] = (Object.entries(ROUTES) as Array<[string, RouteContract]>).map(([id, entry]) => ({
  id,
  entry,
  method: entry.method,
  pattern: entry.path,
  url: concretePath(entry.path) + (takesLink(entry) ? LINK_QUERY : ''),
}))

/** The entries whose authentication is full (requireAccessToken ... protectRoute, iam/http/auth.ts). */
export const FULL_AUTH = TABLE.filter((route) => route.entry.auth === 'full')

/** The entries whose request is a JSON body. */
export const JSON_BODY = TABLE.filter((route) => route.entry.request.kind === 'json')
