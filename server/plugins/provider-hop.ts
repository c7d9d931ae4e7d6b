/**
 * The OpenID Provider's machine endpoints answered on the direct hop (server/utils/provider-hop.ts):
 * the h3 app's handler, wrapped as server/plugins/tracing.ts and Nitro itself wrap it. Runs before
 * the tracing plugin (file-name order), so a direct answer is traced like any other.
 */
import { answerDirectly, answeredDirectly } from '../utils/provider-hop'

export default defineNitroPlugin((nitroApp) => {
  const { h3App } = nitroApp
  const handle = h3App.handler
  h3App.handler = (event) => (answeredDirectly(event.node.req.url ?? '/') ? answerDirectly(event) : handle(event))
})
