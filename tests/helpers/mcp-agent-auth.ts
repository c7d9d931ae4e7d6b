/**
 * The MCP SDK's OAuth client provider, kept in memory, as an AI agent known only by its Client ID
 * Metadata Document uses it: the document's URL is its client id, it authenticates with nothing but
 * PKCE, and where it would send the person (`sentTo`) is recorded for the test to walk, by script
 * (tests/gateway/mcp-server.test.ts) or in Chromium (tests/e2e/mcp-agent.test.ts).
 */
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js'
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js'

export class AgentAuth implements OAuthClientProvider {
  information: OAuthClientInformationMixed | undefined
  saved: OAuthTokens | undefined
  verifier = ''
  sentTo: URL | undefined
  /** what the SDK asked to forget: 'all' only after the provider answered invalid_client or unauthorized_client */
  forgotten: string[] = []

  constructor(
    /** the https URL of the agent's metadata document, its client id */
    readonly clientMetadataUrl: string,
    readonly redirectUrl: string,
  ) {}

  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'Notes Agent', redirect_uris: [this.redirectUrl], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] }
  }
  clientInformation() {
    return this.information
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.information = information
  }
  tokens() {
    return this.saved
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens
  }
  redirectToAuthorization(url: URL) {
    this.sentTo = url
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier
  }
  codeVerifier() {
    return this.verifier
  }
  /** the SDK's call after the provider refused a token or the client: forget what it names, then start again */
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery') {
    this.forgotten.push(scope)
    if (scope === 'all' || scope === 'tokens') this.saved = undefined
    if (scope === 'all' || scope === 'client') this.information = undefined
  }
}
