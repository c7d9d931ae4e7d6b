/**
 * A SAML 2.0 identity provider on loopback for the browser tests, built on samlify's IdP side (a
 * second SAML implementation, so the service provider under test, node-saml, is met by XML it did
 * not write): its own key and certificate (makeIdpKeys), its metadata at /metadata for the
 * organization's owner to paste, and the SP-initiated flow of SAML 2.0 bindings:
 *
 * 1. GET /sso takes the AuthnRequest by the HTTP-Redirect binding (section 3.4: SAMLRequest
 *    deflated and base64, RelayState beside it) and shows a page with one button, "Sign in as
 *    <address>", for the person it is set to sign in;
 * 2. the button posts to /sso/consent, which answers the HTTP-POST binding's auto-submitting form
 *    (section 3.5): a samlify-built Response whose assertion samlify signed, InResponseTo the
 *    request's ID, NameID, email, displayName and groups attributes, posted to the ACS URL the
 *    service provider's metadata names, with the RelayState given back unchanged.
 *
 * The service provider is trusted by its metadata (`trust`), as an administrator registers an
 * application at a real provider: the IdP answers no request from an SP it does not know.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { inflateRawSync } from 'node:zlib'
import * as samlify from 'samlify'
import { makeIdpKeys, type IdpKeys } from './saml-idp'

// samlify asks for an XML schema validator before it reads or writes a message. This IdP is a test
// fixture: it reads only the AuthnRequests of the service provider under test, which validates
// everything it receives itself (iam/features/enterprise/saml-response.ts), so it checks nothing here.
samlify.setSchemaValidator({ validate: () => Promise.resolve('skipped') })

export interface SamlifyUser {
  nameId: string
  email: string
  displayName: string
  groups: string[]
}

export interface SamlifyIdp {
  /** http://127.0.0.1:port */
  url: string
  entityId: string
  ssoUrl: string
  keys: IdpKeys
  /** the IdP metadata XML (entity id, signing certificate, SSO URL for HTTP-Redirect) */
  metadataXml: string
  /** registers a service provider by its metadata XML */
  trust(spMetadataXml: string): void
  /** the person the next sign-in answers as */
  signInAs(user: SamlifyUser): void
  /** the AuthnRequest IDs answered, oldest first */
  answered: string[]
  stop(): Promise<void>
}

const PERSISTENT = 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent'
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
const iso = (ms: number) => new Date(ms).toISOString()

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${esc(title)}</title></head><body><main><h1>${esc(title)}</h1>${body}</main></body></html>`

/** The values samlify puts into its login response template (its `{Tag}` placeholders). */
function templateValues(request: { id: string; acs: string; audience: string }, entityId: string, user: SamlifyUser, now: number) {
  const later = iso(now + 5 * 60_000)
  return {
    ID: `_${crypto.randomUUID()}`,
    AssertionID: `_${crypto.randomUUID()}`,
    Destination: request.acs,
    Audience: request.audience,
    SubjectRecipient: request.acs,
    Issuer: entityId,
    IssueInstant: iso(now),
    StatusCode: 'urn:oasis:names:tc:SAML:2.0:status:Success',
    ConditionsNotBefore: iso(now - 60_000),
    ConditionsNotOnOrAfter: later,
    SubjectConfirmationDataNotOnOrAfter: later,
    NameIDFormat: PERSISTENT,
    NameID: user.nameId,
    InResponseTo: request.id,
    AuthnStatement: '',
  }
}

function attributeStatement(user: SamlifyUser): string {
  const attribute = (name: string, values: string[]) =>
    `<saml:Attribute Name="${esc(name)}">${values.map((v) => `<saml:AttributeValue>${esc(v)}</saml:AttributeValue>`).join('')}</saml:Attribute>`
  return `<saml:AttributeStatement>${attribute('email', [user.email])}${attribute('displayName', [user.displayName])}${user.groups.length ? attribute('groups', user.groups) : ''}</saml:AttributeStatement>`
}

export type SamlifyIdentityProvider = ReturnType<typeof samlify.IdentityProvider>

/** samlify's IdP entity with `keys`, signing its responses, its SSO service at `ssoUrl` (HTTP-Redirect). */
export function samlifyIdentityProvider(entityId: string, ssoUrl: string, keys: IdpKeys): SamlifyIdentityProvider {
  return samlify.IdentityProvider({
    entityID: entityId,
    signingCert: keys.cert,
    privateKey: keys.privateKey,
    isAssertionEncrypted: false,
    nameIDFormat: [PERSISTENT],
    singleSignOnService: [{ Binding: samlify.Constants.namespace.binding.redirect, Location: ssoUrl }],
  })
}

/**
 * The base64 Response `idp` answers request `requestId` with, for the service provider its metadata
 * XML describes (audience: its entity ID; Destination and Recipient: its ACS URL); samlify signs the
 * assertion, as the SP's metadata asks (WantAssertionsSigned).
 */
export async function samlifyLoginResponse(idp: SamlifyIdentityProvider, spMetadataXml: string, requestId: string, user: SamlifyUser): Promise<{ samlResponse: string; acs: string }> {
  const sp = samlify.ServiceProvider({ metadata: spMetadataXml })
  const acs = /AssertionConsumerService[^>]*Location="([^"]+)"/.exec(spMetadataXml)?.[1]
  if (!acs) throw new Error('no AssertionConsumerService in the SP metadata')
  const values = templateValues({ id: requestId, acs, audience: sp.entityMeta.getEntityID() }, idp.entityMeta.getEntityID(), user, Date.now())
  const { context } = await idp.createLoginResponse(sp, { extract: { request: { id: requestId } } }, 'post', { email: user.email }, (template: string) => ({
    id: values.ID,
    context: samlify.SamlLib.replaceTagsByValue(template.replace('{AttributeStatement}', attributeStatement(user)), values),
  }))
  return { samlResponse: context, acs }
}

export async function startSamlifyIdp(options: { keys?: IdpKeys } = {}): Promise<SamlifyIdp> {
  const keys = options.keys ?? makeIdpKeys('samlify-idp')
  // trusted service providers: entity ID -> metadata XML
  const sps = new Map<string, string>()
  const answered: string[] = []
  let user: SamlifyUser | undefined

  // listening first: the provider's entity ID and SSO URL name its port
  const server: Server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`
  const idp = samlifyIdentityProvider(`${url}/metadata`, `${url}/sso`, keys)

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://idp.invalid')
      if (req.method === 'GET' && url.pathname === '/metadata') {
        res.writeHead(200, { 'content-type': 'application/samlmetadata+xml' }).end(idp.getMetadata())
        return
      }
      if (req.method === 'GET' && url.pathname === '/sso') {
        const samlRequest = url.searchParams.get('SAMLRequest') ?? ''
        const xml = inflateRawSync(Buffer.from(samlRequest, 'base64')).toString('utf8')
        const issuer = /<(?:\w+:)?Issuer[^>]*>([^<]+)</.exec(xml)?.[1]
        if (!issuer || !sps.has(issuer) || !user) {
          res.writeHead(400, { 'content-type': 'text/html; charset=utf-8' }).end(page('Unknown application', '<p>This identity provider does not know the application.</p>'))
          return
        }
        const fields = [['SAMLRequest', samlRequest], ...(url.searchParams.has('RelayState') ? [['RelayState', url.searchParams.get('RelayState')!]] : [])]
        const hidden = fields.map(([name, value]) => `<input type="hidden" name="${name}" value="${esc(value!)}">`).join('')
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page('Test identity provider', `<form method="post" action="/sso/consent">${hidden}<button type="submit">Sign in as ${esc(user.email)}</button></form>`))
        return
      }
      if (req.method === 'POST' && url.pathname === '/sso/consent') {
        const form = new URLSearchParams(await readBody(req))
        const xml = inflateRawSync(Buffer.from(form.get('SAMLRequest') ?? '', 'base64')).toString('utf8')
        const id = /\sID="([^"]+)"/.exec(xml)?.[1]
        const issuer = /<(?:\w+:)?Issuer[^>]*>([^<]+)</.exec(xml)?.[1]
        const trusted = issuer ? sps.get(issuer) : undefined
        if (!id || !trusted || !user) {
          res.writeHead(400, { 'content-type': 'text/plain' }).end('unknown request')
          return
        }
        const { samlResponse, acs } = await samlifyLoginResponse(idp, trusted, id, user)
        answered.push(id)
        const relayState = form.get('RelayState')
        const posted = [['SAMLResponse', samlResponse], ...(relayState !== null ? [['RelayState', relayState]] : [])]
        const inputs = posted.map(([name, value]) => `<input type="hidden" name="${name}" value="${esc(value!)}">`).join('')
        // the HTTP-POST binding's form (SAML 2.0 bindings 3.5.4), sent on by the page's own script
        res
          .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
          .end(page('Signing you in', `<form method="post" action="${esc(acs)}">${inputs}<noscript><button type="submit">Continue</button></noscript></form><script>document.forms[0].submit()</script>`))
        return
      }
      res.writeHead(404).end()
    })().catch((error: Error) => {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(error.message)
    })
  })
  return {
    url,
    entityId: `${url}/metadata`,
    ssoUrl: `${url}/sso`,
    keys,
    metadataXml: idp.getMetadata(),
    trust(spMetadataXml) {
      sps.set(samlify.ServiceProvider({ metadata: spMetadataXml }).entityMeta.getEntityID(), spMetadataXml)
    },
    signInAs(next) {
      user = next
    },
    answered,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
