/**
 * The resource server's side of discovery: what an API publishes so that a client that meets its
 * 401 finds the authorization server and asks it for a token meant for this API.
 *
 * - RFC 9728 (OAuth 2.0 Protected Resource Metadata): the JSON document at
 *   `/.well-known/oauth-protected-resource[/path]`, naming the resource, its authorization servers,
 *   its scopes, how it takes a token and whether it wants DPoP (RFC 9449 section 5.1);
 * - RFC 6750 section 3 and RFC 9728 section 5.1: the `WWW-Authenticate` challenge of a 401 or 403,
 *   carrying `resource_metadata` (where that document is) and `scope` (what to ask for), and for a
 *   DPoP-bound token the `DPoP` challenge with the algorithms it accepts (RFC 9449 section 7.1).
 *
 * The MCP authorization specification builds on exactly these: an MCP client follows the 401's
 * `resource_metadata`, then asks the named authorization server with `resource` = the document's
 * `resource` (RFC 8707), which is the audience the verifier then requires.
 *
 * Pure functions only; index.js puts them together with the token checks (createProtectedResource).
 */

const WELL_KNOWN = '/.well-known/oauth-protected-resource'

/**
 * The resource identifier as RFC 9728 section 1.2 wants it: an https URL (http on loopback, for
 * development) without a fragment. Throws a TypeError naming the problem.
 * @param {string} resource
 * @returns {URL}
 */
function resourceUrl(resource) {
  const url = typeof resource === 'string' ? URL.parse(resource) : null
  if (!url) throw new TypeError('resource must be an absolute URL')
  if (url.hash || resource.includes('#')) throw new TypeError('resource must not have a fragment (RFC 9728 section 1.2)')
  const loopback = url.hostname === 'localhost' || url.hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(url.hostname)
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) throw new TypeError('resource must be an https URL (http only on loopback)')
  return url
}

/**
 * Where the metadata of `resource` is published (RFC 9728 section 3.1): the well-known path is put
 * between the host and the resource's path, the resource's trailing slash dropped, its query kept.
 * `https://api.example.com/` -> `https://api.example.com/.well-known/oauth-protected-resource`;
 * `https://mcp.example.com/mcp` -> `https://mcp.example.com/.well-known/oauth-protected-resource/mcp`.
 * @param {string} resource
 * @returns {string}
 */
export function protectedResourceMetadataUrl(resource) {
  const url = resourceUrl(resource)
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '')
  return `${url.origin}${WELL_KNOWN}${path}${url.search}`
}

/**
 * The path (and query) part of protectedResourceMetadataUrl, for a router.
 * @param {string} resource
 * @returns {string}
 */
export function protectedResourceMetadataPath(resource) {
  const url = new URL(protectedResourceMetadataUrl(resource))
  return `${url.pathname}${url.search}`
}

const words = (list, name) => {
  if (list === undefined) return undefined
  if (!Array.isArray(list) || list.some((w) => typeof w !== 'string' || !w || /\s/.test(w))) throw new TypeError(`${name} must be a list of words`)
  return [...list]
}

/**
 * The protected resource metadata document (RFC 9728 section 2). `resource` is required and must
 * be the identifier the document is published for, unchanged (section 3.3: a client compares
 * them); the authorization servers are their issuer identifiers (RFC 8414).
 * @param {import('./index.d.ts').ProtectedResourceOptions} options
 * @returns {import('./index.d.ts').ProtectedResourceMetadata}
 */
export function protectedResourceMetadata(options) {
  resourceUrl(options?.resource)
  const servers = options.authorizationServers
  if (!Array.isArray(servers) || !servers.length || servers.some((s) => typeof s !== 'string' || !URL.canParse(s))) {
    throw new TypeError('authorizationServers must name at least one issuer URL')
  }
  const dpop = options.dpop
  const metadata = {
    resource: options.resource,
    authorization_servers: [...servers],
    ...(options.scopesSupported ? { scopes_supported: words(options.scopesSupported, 'scopesSupported') } : {}),
    // the Authorization header only: no form body or query parameter (RFC 6750 sections 2.2 and
    // 2.3, which RFC 9700 section 4.3.2 advises against), so nothing else is announced
    bearer_methods_supported: ['header'],
    ...(options.resourceName ? { resource_name: String(options.resourceName) } : {}),
    ...(options.resourceDocumentation ? { resource_documentation: String(options.resourceDocumentation) } : {}),
    ...(dpop
      ? {
          dpop_signing_alg_values_supported: [...dpop.algorithms],
          ...(dpop.required ? { dpop_bound_access_tokens_required: true } : {}),
        }
      : {}),
  }
  return metadata
}

/** A quoted-string (RFC 9110 section 5.6.4) of printable ASCII: quotes and backslashes escaped, anything else dropped. */
export const quoted = (value) => `"${String(value).replace(/[^\x20-\x7e]/g, '').replace(/[\\"]/g, '\\$&')}"`

/** Failures whose RFC 6750 / 9449 error belongs to the DPoP challenge rather than the Bearer one. */
const DPOP_REASONS = new Set(['invalid_dpop_proof', 'dpop_required'])

/**
 * The WWW-Authenticate value for a failed verification, or undefined for a success and a 503 (the
 * token was not judged; answer with Retry-After instead).
 *
 * The Bearer challenge comes first and carries `resource_metadata` and `scope` (RFC 9728 section
 * 5.1, RFC 6750 section 3), since clients look for them there; a request without a token gets no
 * error code (RFC 6750 section 3.1). With `dpop`, a `DPoP` challenge follows with the algorithms a
 * proof may use (RFC 9449 section 7.1), and a failure about the proof or the binding puts its error
 * on it instead of on the Bearer one. With `dpop.required` only the DPoP challenge is given.
 * @param {import('./index.d.ts').AccessTokenResult} result
 * @param {import('./index.d.ts').ChallengeOptions} [options]
 * @returns {string | undefined}
 */
export function wwwAuthenticate(result, options = {}) {
  if (result.ok || result.status === 503) return undefined
  const where = []
  if (options.realm) where.push(`realm=${quoted(options.realm)}`)
  if (options.resourceMetadata) where.push(`resource_metadata=${quoted(options.resourceMetadata)}`)
  const scope = result.scope ?? options.scope
  const what = scope ? [`scope=${quoted(scope)}`] : []
  const errorParams = result.error ? [`error=${quoted(result.error)}`, `error_description=${quoted(result.message)}`] : []
  const onDpop = DPOP_REASONS.has(result.reason)
  const challenges = []
  if (!options.dpop?.required) {
    const params = [...where, ...(onDpop ? [] : errorParams), ...what]
    challenges.push(params.length ? `Bearer ${params.join(', ')}` : 'Bearer')
  }
  if (options.dpop) {
    const own = options.dpop.required
    const params = [...(own ? where : []), `algs=${quoted(options.dpop.algorithms.join(' '))}`, ...(onDpop || own ? errorParams : []), ...(own ? what : [])]
    challenges.push(`DPoP ${params.join(', ')}`)
  }
  return challenges.join(', ')
}
