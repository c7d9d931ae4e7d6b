/**
 * The benchmark's Client ID Metadata Document host (bench/README.md, row
 * `oidc-client-metadata-document`): https on loopback with the certificate the harness made (the
 * IAM trusts it through NODE_EXTRA_CA_CERTS, as tests/gateway/mcp-server.test.ts does). Every path
 * `/agent/<anything>/client.json` is the document of the public client whose id is that URL
 * (draft-ietf-oauth-client-id-metadata-document section 3: `client_id` equals the URL), cacheable
 * for five minutes; `GET /fetches` answers how many documents were served, so the harness can tell a
 * fetched document from a cached one. Its own process: the harness's event loop runs autocannon.
 * Prints "Listening on https://127.0.0.1:<port>" for scripts/lib/run-server.ts.
 *
 *   node bench/client-document-server.mjs --key key.pem --cert cert.pem --redirect-uri http://127.0.0.1:9/cb
 */
import { readFileSync } from 'node:fs'
import { createServer } from 'node:https'
import { parseArgs } from 'node:util'

const { values } = parseArgs({ options: { key: { type: 'string' }, cert: { type: 'string' }, 'redirect-uri': { type: 'string' } } })
if (!values.key || !values.cert || !values['redirect-uri']) throw new Error('--key <pem> --cert <pem> --redirect-uri <url>')

let fetches = 0
const server = createServer({ key: readFileSync(values.key), cert: readFileSync(values.cert) }, (req, res) => {
  const path = new URL(req.url ?? '/', 'https://127.0.0.1').pathname
  if (path === '/fetches') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ fetches }))
  if (!/^\/agent\/[\w-]+\/client\.json$/.test(path)) return res.writeHead(404).end()
  fetches++
  const body = {
    client_id: `https://127.0.0.1:${server.address().port}${path}`,
    client_name: 'Bench Agent',
    redirect_uris: [values['redirect-uri']],
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
  }
  res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=300' }).end(JSON.stringify(body))
})
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  console.log(`Listening on https://127.0.0.1:${server.address().port}`)
})
process.once('SIGTERM', () => {
  server.closeAllConnections()
  server.close(() => process.exit(0))
})
